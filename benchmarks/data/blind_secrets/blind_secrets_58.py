# ruff: noqa: E501
"""Blind secret-detector corpus 58: government digital services (public sector).

Brief: memory notes of a government digital-services team - citizen login (OIDC, SAML, eIDAS-style nodes), Notify/SMS/email gateways, payment platforms, case management, legacy Oracle and SharePoint, GOV cloud accounts, pen-test and accessibility contractors, procurement portals - with live credentials next to the many reference numbers, ids, hashes, public keys and placeholders that only look like secrets.

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Run: python blind_secrets_58.py [out.jsonl]

Kinds, secret: aws_secret_access_key, aws_root_breakglass_password, azure_ad_client_secret, azure_storage_connection_string, gcp_service_account_json_key, oidc_client_secret, saml_signing_private_key, eidas_keystore_password, pfx_certificate_password, notify_api_key, twilio_auth_token, sendgrid_api_key, smtp_relay_password, sms_gateway_password, stripe_secret_key, stripe_restricted_key, govpay_api_key, epdq_sha_passphrase, oracle_db_password, oracle_jdbc_url_password, oracle_wallet_password, postgres_url_password, sharepoint_app_secret, ad_service_account_password, ldap_bind_password, github_pat, github_fine_grained_pat, gitlab_pat, slack_webhook_url, slack_bot_token, teams_webhook_url, jwt_bearer_token, basic_auth_url, openssh_private_key, pentest_vpn_psk, office_wifi_password, jenkins_api_token, npm_token, acr_registry_password, vault_token, terraform_cloud_token, django_secret_key, rails_secret_key_base, session_cookie, totp_seed, procurement_portal_password, api_key_query_param, mfa_recovery_codes, openai_api_key, anthropic_api_key, datadog_api_key
Kinds, benign: aws_documented_example_key, git_commit_sha, git_short_sha, case_reference_uuid, notify_template_id, notify_service_id, file_sha256_checksum, tls_cert_fingerprint, ssh_public_key, x509_certificate_pem, saml_idp_metadata_cert, stripe_publishable_key, captcha_site_key, placeholder_angle_brackets, env_var_reference, vault_path_reference, masked_key_last4, redacted_value, changeme_default_placeholder, password_policy_text, nino_example_qq, tax_utr_reference, case_management_reference, procurement_tender_ref, purchase_order_number, companies_house_number, govpay_payment_id, stripe_payment_intent_id, twilio_message_sid, oidc_client_id_public, jwks_public_modulus, azure_tenant_subscription_id, aws_account_id_arn, docker_image_digest, npm_integrity_hash, bcrypt_password_hash, revoked_token_noted_revoked, documented_test_card, notify_simulated_address, saml_request_id, pentest_finding_id, oracle_sql_id, sharepoint_list_guid, w3c_traceparent, servicenow_incident_number, kms_key_arn, address_uprn, gateway_user_id_no_password, sentry_public_dsn, ga_measurement_id, supplier_bank_details, webhook_signature_in_log, dkim_public_key_record, ssh_host_key_fingerprint, pgp_key_fingerprint, cert_serial_number
"""

import json
import random
import string
import sys

SEED = 5858

LOW = string.ascii_lowercase
UP = string.ascii_uppercase
DIG = string.digits
ALNUM = LOW + UP + DIG
LOWNUM = LOW + DIG
UPNUM = UP + DIG
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
B64URL = ALNUM + "-_"
B32 = UP + "234567"

WORDS = [
    "Westminster",
    "Cardiff",
    "Swansea",
    "Brecon",
    "Thames",
    "Harbour",
    "Dragon",
    "Penguin",
    "Summer",
    "Autumn",
    "Winter",
    "Kestrel",
    "Rugby",
    "Whitehall",
    "Lighthouse",
    "Bluebell",
    "Marmite",
    "Teapot",
    "Biscuit",
    "Spitfire",
    "Cymru",
    "Heron",
    "Orchard",
    "Granite",
]
SYMS = "!#$%&*?@."


def r(rng, alpha, n):
    return "".join(rng.choice(alpha) for _ in range(n))


def uuid4(rng):
    h = r(rng, HEX, 32)
    h = h[:12] + "4" + h[13:16] + rng.choice("89ab") + h[17:]
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def human_pw(rng):
    style = rng.randrange(5)
    w1, w2 = rng.choice(WORDS), rng.choice(WORDS)
    d = str(rng.randrange(10, 9999))
    s = rng.choice(SYMS)
    if style == 0:
        return f"{w1}{d}{s}"
    if style == 1:
        return f"{w1.lower()}{s}{w2}{d}"
    if style == 2:
        leet = w1.replace("a", "@").replace("o", "0").replace("e", "3")
        return f"{leet}{d}{s}"
    if style == 3:
        return f"{w1}-{w2.lower()}-{d}"
    return f"{s}{w2}{w1.lower()}{d}"


def gen_pw(rng, n=20):
    return r(rng, ALNUM + "!#%*-_", n)


def pem(rng, label, nbytes, prefix=""):
    body = prefix + r(rng, B64, (nbytes * 4) // 3 - len(prefix))
    body += "=" * ((4 - len(body) % 4) % 4)
    lines = [body[i : i + 64] for i in range(0, len(body), 64)]
    return f"-----BEGIN {label}-----\n" + "\n".join(lines) + f"\n-----END {label}-----"


def b64_str(rng, nbytes):
    n = ((nbytes + 2) // 3) * 4
    pad = (3 - nbytes % 3) % 3
    return r(rng, B64, n - pad) + "=" * pad


# ---------------------------------------------------------------- generators


def g_aws_secret(rng):
    return {"v": r(rng, B64, 40), "a": "AKIA" + r(rng, UPNUM, 16)}


def g_human(rng):
    return {"v": human_pw(rng)}


def g_genpw(rng):
    return {"v": gen_pw(rng, rng.choice([16, 20, 24, 32]))}


def g_azure_secret(rng):
    return {"v": r(rng, ALNUM, 3) + "8Q~" + r(rng, ALNUM + "-_.~", 34), "a": uuid4(rng)}


def g_azure_conn(rng):
    return {"v": b64_str(rng, 64)}


def g_gcp(rng):
    body = r(rng, B64, 1620)
    lines = [body[i : i + 64] for i in range(0, len(body), 64)]
    key = "-----BEGIN PRIVATE KEY-----\\n" + "\\n".join(lines) + "\\n-----END PRIVATE KEY-----\\n"
    return {"v": key, "a": r(rng, HEX, 40), "b": str(rng.randrange(10**20, 10**21))}


def g_oidc_secret(rng):
    return {"v": r(rng, B64URL, rng.choice([32, 43, 48, 64])), "a": r(rng, ALNUM, 27)}


def g_rsa_key(rng):
    return {"v": pem(rng, "RSA PRIVATE KEY", 1190)}


def g_notify(rng):
    name = rng.choice(["live_key", "prod", "casework_live", "notify-live"])
    return {"v": f"{name}-{uuid4(rng)}-{uuid4(rng)}"}


def g_twilio(rng):
    return {"v": r(rng, HEX, 32), "a": "AC" + r(rng, HEX, 32)}


def g_sendgrid(rng):
    return {"v": "SG." + r(rng, B64URL, 22) + "." + r(rng, B64URL, 43)}


def g_stripe_sk(rng):
    return {"v": "sk_live_" + r(rng, ALNUM, rng.choice([24, 99]))}


def g_stripe_rk(rng):
    return {"v": "rk_live_" + r(rng, ALNUM, rng.choice([24, 99]))}


def g_govpay(rng):
    return {"v": "api_live_" + r(rng, LOWNUM, 26) + r(rng, HEX, 32)}


def g_epdq(rng):
    return {"v": r(rng, ALNUM + "!?-_", rng.choice([16, 24, 32]))}


def g_github(rng):
    return {"v": "ghp_" + r(rng, ALNUM, 36)}


def g_github_fg(rng):
    return {"v": "github_pat_11" + r(rng, UPNUM, 20) + "_" + r(rng, ALNUM, 59)}


def g_gitlab(rng):
    return {"v": "glpat-" + r(rng, B64URL, 20)}


def g_slack_hook(rng):
    return {
        "v": f"https://hooks.slack.com/services/T{r(rng, UPNUM, 8)}/B{r(rng, UPNUM, 10)}/{r(rng, ALNUM, 24)}"
    }


def g_slack_bot(rng):
    return {
        "v": f"xoxb-{rng.randrange(10**11, 10**12)}-{rng.randrange(10**12, 10**13)}-{r(rng, ALNUM, 24)}"
    }


def g_teams_hook(rng):
    return {
        "v": f"https://digitalgov.webhook.office.com/webhookb2/{uuid4(rng)}@{uuid4(rng)}/IncomingWebhook/{r(rng, HEX, 32)}/{uuid4(rng)}/V2{r(rng, ALNUM, 43)}"
    }


def g_jwt(rng):
    head = "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCIsImtpZCI6I"
    return {
        "v": head
        + r(rng, B64URL, 30)
        + "."
        + "eyJzdWIiOi"
        + r(rng, B64URL, 180)
        + "."
        + r(rng, B64URL, 342)
    }


def g_basic_url(rng):
    return {"v": human_pw(rng) if rng.random() < 0.5 else gen_pw(rng, 18)}


def g_openssh(rng):
    return {
        "v": pem(
            rng,
            "OPENSSH PRIVATE KEY",
            300,
            "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW",
        )
    }


def g_psk(rng):
    return {"v": r(rng, ALNUM + "#%+=", rng.choice([28, 32, 40]))}


def g_jenkins(rng):
    return {"v": "11" + r(rng, HEX, 32)}


def g_npm(rng):
    return {"v": "npm_" + r(rng, ALNUM, 36)}


def g_acr(rng):
    return {"v": r(rng, ALNUM + "+/", 52)}


def g_vault(rng):
    return {
        "v": "hvs." + r(rng, B64URL, 24) if rng.random() < 0.4 else "hvs.CAESI" + r(rng, B64URL, 86)
    }


def g_tfc(rng):
    return {"v": r(rng, ALNUM, 14) + ".atlasv1." + r(rng, ALNUM, 67)}


def g_django(rng):
    return {
        "v": "django-insecure-" + r(rng, LOWNUM + "!@#$%^&*(-_=+)", 50)
        if rng.random() < 0.3
        else r(rng, LOWNUM + "!@#$%^&*(-_=+)", 50)
    }


def g_rails(rng):
    return {"v": r(rng, HEX, 128)}


def g_cookie(rng):
    return {"v": "s%3A" + r(rng, B64URL, 32) + "." + r(rng, B64URL, 43)}


def g_totp(rng):
    return {"v": r(rng, B32, 32)}


def g_apikey(rng):
    return {"v": r(rng, LOWNUM, 32)}


def g_recovery(rng):
    codes = [f"{r(rng, LOWNUM, 4)}-{r(rng, LOWNUM, 4)}" for _ in range(5)]
    return {"v": " ".join(codes)}


def g_openai(rng):
    return {"v": "sk-proj-" + r(rng, B64URL, 48) + "T3BlbkFJ" + r(rng, B64URL, 48)}


def g_anthropic(rng):
    return {"v": "sk-ant-api03-" + r(rng, B64URL, 93) + "AA"}


def g_datadog(rng):
    return {"v": r(rng, HEX, 32)}


# benign generators


def g_lit(value):
    return lambda rng: {"v": value}


def g_sha40(rng):
    return {"v": r(rng, HEX, 40)}


def g_sha7(rng):
    return {"v": r(rng, HEX, rng.choice([7, 8, 10]))}


def g_uuid(rng):
    return {"v": uuid4(rng)}


def g_sha256(rng):
    return {"v": r(rng, HEX, 64)}


def g_fpr(rng):
    return {"v": ":".join(r(rng, "0123456789ABCDEF", 2) for _ in range(32))}


def g_sshpub(rng):
    if rng.random() < 0.5:
        return {"v": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + r(rng, B64, 43)}
    return {"v": "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABgQ" + r(rng, B64, 368)}


def g_cert(rng):
    return {"v": pem(rng, "CERTIFICATE", 900, "MIID")}


def g_certb64(rng):
    return {"v": "MIID" + r(rng, B64, 120)}


def g_pk_live(rng):
    return {"v": "pk_live_" + r(rng, ALNUM, rng.choice([24, 99]))}


def g_sitekey(rng):
    return {"v": "6L" + r(rng, B64URL, 38)}


def g_mask(rng):
    pre = rng.choice(["sk_live_", "api_live_", "ghp_", "SG.", "glpat-"])
    return {"v": pre + "*" * rng.choice([4, 8, 12]) + r(rng, ALNUM, 4)}


def g_policy(rng):
    return {"v": str(rng.randrange(12, 41))}


def g_nino(rng):
    return {"v": f"QQ {r(rng, DIG, 2)} {r(rng, DIG, 2)} {r(rng, DIG, 2)} {rng.choice('ABCD')}"}


def g_utr(rng):
    return {"v": r(rng, "123456789", 1) + r(rng, DIG, 9)}


def g_caseref(rng):
    return {
        "v": f"{rng.choice(['BEN', 'CMS', 'LIC', 'GRT'])}-{rng.randrange(2019, 2027)}-{r(rng, DIG, 6)}"
    }


def g_tender(rng):
    return {"v": f"{rng.randrange(2021, 2027)}/S 000-{r(rng, DIG, 6)}"}


def g_po(rng):
    return {"v": "PO" + r(rng, DIG, 8)}


def g_ch(rng):
    return {
        "v": rng.choice(["0", "1", "SC", "NI"]) + r(rng, DIG, 6)
        if rng.random() < 0.5
        else r(rng, DIG, 8)
    }


def g_paymentid(rng):
    return {"v": r(rng, LOWNUM, 26)}


def g_pi(rng):
    return {"v": "pi_" + r(rng, ALNUM, 24)}


def g_sm(rng):
    return {"v": "SM" + r(rng, HEX, 32)}


def g_clientid(rng):
    return {"v": r(rng, ALNUM + "-_", 27)}


def g_jwks(rng):
    return {"v": r(rng, B64URL, 342)}


def g_acct(rng):
    return {"v": r(rng, "123456789", 1) + r(rng, DIG, 11)}


def g_digest(rng):
    return {"v": "sha256:" + r(rng, HEX, 64)}


def g_integrity(rng):
    return {"v": "sha512-" + r(rng, B64, 86) + "=="}


def g_bcrypt(rng):
    return {"v": "$2b$12$" + r(rng, ALNUM + "./", 53)}


def g_revoked(rng):
    kind = rng.choice(["ghp_", "xoxb-"])
    if kind == "ghp_":
        return {"v": "ghp_" + r(rng, ALNUM, 36)}
    return {
        "v": f"xoxb-{rng.randrange(10**11, 10**12)}-{rng.randrange(10**12, 10**13)}-{r(rng, ALNUM, 24)}"
    }


def g_samlid(rng):
    return {"v": "_" + r(rng, HEX, 40)}


def g_finding(rng):
    return {"v": f"PT-{rng.randrange(2022, 2027)}-{r(rng, DIG, 3)}"}


def g_sqlid(rng):
    return {"v": r(rng, "0123456789abcdfghjkmnpqrstuvwxyz", 13)}


def g_traceparent(rng):
    return {"v": f"00-{r(rng, HEX, 32)}-{r(rng, HEX, 16)}-01"}


def g_sentry(rng):
    return {"v": f"https://{r(rng, HEX, 32)}@o{r(rng, DIG, 6)}.ingest.sentry.io/{r(rng, DIG, 7)}"}


def g_ga(rng):
    return {"v": "G-" + r(rng, UPNUM, 10)}


def g_bank(rng):
    return {"v": f"{r(rng, DIG, 2)}-{r(rng, DIG, 2)}-{r(rng, DIG, 2)} {r(rng, DIG, 8)}"}


def g_sig(rng):
    return {"v": "sha256=" + r(rng, HEX, 64)}


def g_dkim(rng):
    return {"v": "MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQ" + r(rng, B64, 178) + "IDAQAB"}


def g_hostfp(rng):
    return {"v": "SHA256:" + r(rng, B64, 43)}


def g_pgp(rng):
    return {"v": " ".join(r(rng, "0123456789ABCDEF", 4) for _ in range(10))}


def g_serial(rng):
    return {"v": ":".join(r(rng, "0123456789abcdef", 2) for _ in range(16))}


def g_inc(rng):
    return {"v": "INC" + r(rng, DIG, 7)}


def g_kms(rng):
    return {
        "v": f"arn:aws:kms:eu-west-2:{r(rng, '123456789', 1)}{r(rng, DIG, 11)}:key/{uuid4(rng)}"
    }


def g_uprn(rng):
    return {"v": r(rng, "123456789", 1) + r(rng, DIG, 11)}


def g_gateway_id(rng):
    return {"v": " ".join(r(rng, DIG, 4) for _ in range(3))}


# ---------------------------------------------------------------- templates
# Placeholders: {v} value, {a} {b} companion values (generated too).

SECRET = [
    (
        "aws_secret_access_key",
        g_aws_secret,
        [
            "gov-prod-identity account, CI deploy user creds (rotate after pentest):\naws_access_key_id = {a}\naws_secret_access_key = {v}",
            "export AWS_ACCESS_KEY_ID={a}\nexport AWS_SECRET_ACCESS_KEY={v}\nexport AWS_DEFAULT_REGION=eu-west-2",
            "Handover: the terraform runner for the casework stack still uses static keys, id {a}, secret {v} - we said we'd move to OIDC roles but haven't yet.",
            "| account | key id | secret |\n| gds-notify-staging | {a} | {v} |",
            "{v}",
        ],
    ),
    (
        "aws_root_breakglass_password",
        g_human,
        [
            "Break-glass for the GOV cloud root account (payments-prod): root email is platform-root@digital.example.gov.uk, password {v}, MFA token is in the safe in room 4.12.",
            "root pw for the org management account = {v} (only use if SSO is down, tell the SIRO after)",
            "Y cyfrinair argyfwng ar gyfer y cyfrif gwraidd yw {v} - peidiwch â'i rannu.",
            "breakglass: {v}",
        ],
    ),
    (
        "azure_ad_client_secret",
        g_azure_secret,
        [
            "Entra app reg 'casework-api-prod' (client id {a}) secret: {v} expires Mar.",
            "AZURE_CLIENT_ID={a}\nAZURE_CLIENT_SECRET={v}\nAZURE_TENANT_ID=digitalgov.onmicrosoft.com",
            "az login --service-principal -u {a} -p '{v}' --tenant digitalgov.onmicrosoft.com",
            "new secret for the SharePoint migration SPN is {v}, old one deleted from the portal",
        ],
    ),
    (
        "azure_storage_connection_string",
        g_azure_conn,
        [
            "DefaultEndpointsProtocol=https;AccountName=casedocsprod;AccountKey={v};EndpointSuffix=core.windows.net",
            'evidence uploads blob: AZURE_STORAGE_CONNECTION_STRING="DefaultEndpointsProtocol=https;AccountName=evidenceuploads;AccountKey={v};EndpointSuffix=core.windows.net"',
            "az storage blob list --account-name foiarchive --account-key {v} -c exports",
            "storage key1 for the FOI archive account: {v}",
        ],
    ),
    (
        "gcp_service_account_json_key",
        g_gcp,
        [
            '{\n  "type": "service_account",\n  "project_id": "gov-analytics-prod",\n  "private_key_id": "{a}",\n  "private_key": "{v}",\n  "client_email": "bq-export@gov-analytics-prod.iam.gserviceaccount.com",\n  "client_id": "{b}"\n}',
            'pasting the BigQuery export SA key here so the agent can run the dashboards job: "private_key": "{v}"',
            "GOOGLE_CREDENTIALS private_key field (bq-export SA, key id {a}): {v}",
            "{v}",
        ],
    ),
    (
        "oidc_client_secret",
        g_oidc_secret,
        [
            "Identity broker -> citizen login (prod): client_id={a} client_secret={v} redirect https://apply.example.gov.uk/auth/callback",
            "OIDC_CLIENT_ID: {a}\nOIDC_CLIENT_SECRET: {v}\nOIDC_ISSUER: https://oidc.login.example.gov.uk/",
            "curl -u {a}:{v} -d grant_type=client_credentials https://auth.identity.example.gov.uk/oauth2/token",
            "Keycloak realm 'citizens', client 'benefits-portal' -> Credentials tab secret is {v}",
            "les identifiants du fournisseur d'identité (test d'intégration eIDAS) : client {a}, secret {v}",
        ],
    ),
    (
        "saml_signing_private_key",
        g_rsa_key,
        [
            "SAML SP signing key for the licensing service (the cert is in metadata, this is the key):\n{v}",
            "sp-signing.key contents, ADFS trust for legacy intranet:\n{v}",
            "{v}",
            "eIDAS connector node metadata signing key - copy of what's on the HSM-less box in DC2:\n{v}",
        ],
    ),
    (
        "eidas_keystore_password",
        g_genpw,
        [
            "eIDAS node: keystore eidas-connector.jks, storepass {v}, alias 'metadata-signing'",
            "keytool -list -keystore eidas-proxy.p12 -storetype PKCS12 -storepass {v}",
            "Das Keystore-Passwort für den eIDAS-Knoten (Integrationsumgebung) lautet {v}.",
            "SSL_KEYSTORE_PASSWORD={v}",
        ],
    ),
    (
        "pfx_certificate_password",
        g_human,
        [
            "the client cert for the DWP-style data exchange (mutual TLS) is in /certs/dx-client.pfx, pfx password {v}",
            "openssl pkcs12 -in hmrc-gateway.pfx -nodes -passin pass:{v} -out gw.pem",
            "Cert from the CA came zipped, zip and pfx both use {v}",
            "PFX pass: {v}",
        ],
    ),
    (
        "notify_api_key",
        g_notify,
        [
            "NOTIFY_API_KEY={v}",
            "Notify live key for the 'Apply for a licence' service: {v} (team key is separate)",
            'notifications_client = NotificationsAPIClient("{v}")',
            "- Notify key (live, casework reminders): `{v}`",
            "{v}",
        ],
    ),
    (
        "twilio_auth_token",
        g_twilio,
        [
            "SMS fallback provider: TWILIO_ACCOUNT_SID={a} TWILIO_AUTH_TOKEN={v}",
            "curl -X POST https://api.twilio.com/2010-04-01/Accounts/{a}/Messages.json -u {a}:{v} --data-urlencode 'To=+447700900123'",
            "twilio creds for OTP SMS (prod) sid {a} token {v}",
            "auth token rotated today, new one {v}",
        ],
    ),
    (
        "sendgrid_api_key",
        g_sendgrid,
        [
            "SENDGRID_API_KEY={v}",
            "email gateway for the newsletter (not Notify, comms team pays for it): key {v}",
            "Authorization: Bearer {v}",
            "smtp.sendgrid.net user 'apikey' password {v}",
        ],
    ),
    (
        "smtp_relay_password",
        g_human,
        [
            "Legacy case system sends mail via relay.internal.example.gov.uk:587, user svc-casemail, pw {v}",
            "spring.mail.username=svc-casemail\nspring.mail.password={v}",
            "O365 SMTP AUTH for the scanner mailbox scans@department.example.gov.uk - {v}",
            "SMTP_PASS={v}",
        ],
    ),
    (
        "sms_gateway_password",
        g_genpw,
        [
            "The bulk SMS aggregator portal login is ops-team / {v} (shared, sorry)",
            "sms gw http api: https://sms.aggregator.example.net/send?user=govdigital&pass={v}&to=...",
            "SMS_GATEWAY_USER=govdigital\nSMS_GATEWAY_PASSWORD={v}",
            "new password for the text message supplier account: {v}",
        ],
    ),
    (
        "stripe_secret_key",
        g_stripe_sk,
        [
            "STRIPE_SECRET_KEY={v}",
            "Stripe (parking permits, council pilot) live secret {v}",
            "curl https://api.stripe.com/v1/refunds -u {v}: -d payment_intent=pi_123",
            'stripe.api_key = "{v}"',
            "{v}",
        ],
    ),
    (
        "stripe_restricted_key",
        g_stripe_rk,
        [
            "restricted key for the reconciliation job (read charges/refunds only): {v}",
            "STRIPE_RECON_KEY={v}",
            "finance asked for a read-only key -> {v}",
            "{v}",
        ],
    ),
    (
        "govpay_api_key",
        g_govpay,
        [
            "PAY_API_KEY={v}",
            "GOV.UK Pay live key for 'Pay for a fishing licence': {v}",
            'curl -H "Authorization: Bearer {v}" https://publicapi.payments.service.gov.uk/v1/payments',
            "payments api key (live, created by Sam, description 'casework refunds'): {v}",
            "{v}",
        ],
    ),
    (
        "epdq_sha_passphrase",
        g_epdq,
        [
            "Legacy card payments (ePDQ): SHA-IN passphrase {v}, SHA-OUT is different, ask finance",
            "epdq.sha_in={v}",
            "barclaycard back office -> Technical info -> SHA-IN pass phrase set to {v}",
            "merchant HMAC passphrase for the old payments page: {v}",
        ],
    ),
    (
        "oracle_db_password",
        g_human,
        [
            "sqlplus CASEOWNER/{v}@//ora-legacy-01.internal:1521/CASEPRD",
            "Oracle legacy case DB: schema CASEOWNER, pw {v}. SYSTEM pw is with the DBA (Priya).",
            "Le mot de passe du schéma CASE_RO est {v}",
            "oracle: CASE_RO / {v} @ CASEPRD",
            "password for the reporting user on the old Oracle box is {v} - don't lock it, 3 tries and the batch fails",
        ],
    ),
    (
        "oracle_jdbc_url_password",
        g_genpw,
        [
            "spring.datasource.url=jdbc:oracle:thin:CASE_APP/{v}@ora-legacy-02.internal:1521:CASEPRD",
            'DB_URL="jdbc:oracle:thin:RPT/{v}@//exadata-scan.internal:1521/GRANTS_PRD"',
            "datasource: jdbc:oracle:thin:LICENCE_APP/{v}@lic-db.internal:1521/LICPRD",
        ],
    ),
    (
        "oracle_wallet_password",
        g_genpw,
        [
            "orapki wallet display -wallet /u01/app/wallet -pwd {v}",
            "Oracle wallet (auto-login disabled) pw {v}",
            "mkstore -wrl /u01/wallet -createCredential CASEPRD CASE_APP  # wallet pw: {v}",
        ],
    ),
    (
        "postgres_url_password",
        g_genpw,
        [
            "DATABASE_URL=postgres://casework_app:{v}@casework-prod.cluster-c1a2.eu-west-2.rds.amazonaws.com:5432/casework",
            'psql "postgresql://notify_ro:{v}@10.20.4.11/notifications?sslmode=require"',
            "prod RDS master password (identity-db): {v}",
            "PGPASSWORD={v} pg_dump -h identity-db.internal -U idp_admin idp > idp.sql",
            "| service | db user | password |\n| grants | grants_app | {v} |",
        ],
    ),
    (
        "sharepoint_app_secret",
        g_azure_conn,
        [
            "SharePoint add-in for the records migration: ClientId 3f0e..., ClientSecret {v}",
            "SP_CLIENT_SECRET={v}",
            "Connect-PnPOnline -Url https://department.sharepoint.com/sites/Casework -ClientId $id -ClientSecret '{v}'",
            "appregnew.aspx generated secret (keep!): {v}",
        ],
    ),
    (
        "ad_service_account_password",
        g_human,
        [
            "svc_casebatch (DOMAIN\\svc_casebatch) password is {v} - set to never expire because the batch breaks otherwise",
            "AD svc account for the scanners: svc-scan / {v}",
            "runas /user:GOVDIGITAL\\svc_sqlagent cmd  -> pw {v}",
            "Mae cyfrif gwasanaeth svc_intranet yn defnyddio'r cyfrinair {v}",
            "the service account we use for the SharePoint crawl has pw {v}",
        ],
    ),
    (
        "ldap_bind_password",
        g_genpw,
        [
            "ldap.bindDN=cn=svc-idp,ou=Service,dc=dept,dc=gov\nldap.bindCredential={v}",
            "ldapsearch -H ldaps://dc01.dept.internal -D 'cn=svc-idp,ou=Service,dc=dept,dc=gov' -w '{v}' -b 'dc=dept,dc=gov' '(sAMAccountName=jbloggs)'",
            "LDAP_BIND_PASSWORD={v}",
            "staff SSO bind creds: cn=svc-idp, pass {v}",
        ],
    ),
    (
        "github_pat",
        g_github,
        [
            "GITHUB_TOKEN={v}",
            "token for the release bot on the alphagov-style org mirror: {v}",
            "git clone https://{v}@github.com/dept-digital/casework-infra.git",
            "{v}",
        ],
    ),
    (
        "github_fine_grained_pat",
        g_github_fg,
        [
            "fine-grained PAT, repo scope only on identity-broker, expires in 90d: {v}",
            "GH_TOKEN={v} gh pr list -R dept-digital/identity-broker",
            "{v}",
        ],
    ),
    (
        "gitlab_pat",
        g_gitlab,
        [
            "GitLab (supplier's instance, pen-test remediation repo) token: {v}",
            "git remote set-url origin https://oauth2:{v}@gitlab.supplier.example.com/dept/cms.git",
            "CI_DEPLOY_TOKEN={v}",
            "{v}",
        ],
    ),
    (
        "slack_webhook_url",
        g_slack_hook,
        [
            "alerts to #identity-incidents go via {v}",
            "SLACK_WEBHOOK_URL={v}",
            "curl -X POST -H 'Content-type: application/json' --data '{\"text\":\"Notify queue backlog\"}' {v}",
            "{v}",
        ],
    ),
    (
        "slack_bot_token",
        g_slack_bot,
        [
            "SLACK_BOT_TOKEN={v}",
            "on-call bot (posts the rota in #support) token {v}",
            "Authorization: Bearer {v}",
        ],
    ),
    (
        "teams_webhook_url",
        g_teams_hook,
        [
            "Teams incoming webhook for the 'Service desk - P1' channel: {v}",
            "TEAMS_WEBHOOK={v}",
            "{v}",
        ],
    ),
    (
        "jwt_bearer_token",
        g_jwt,
        [
            "curl -H 'Authorization: Bearer {v}' https://api.casework.example.gov.uk/v2/cases?status=open",
            "admin token for the case API (valid 30 days, issued to the accessibility contractor): {v}",
            "ACCESS_TOKEN={v}",
            "{v}",
        ],
    ),
    (
        "basic_auth_url",
        g_basic_url,
        [
            "staging is behind basic auth: https://casework:{v}@staging.casework.example.gov.uk/",
            "procurement portal SFTP: sftp://tenders_upload:{v}@sftp.procure.example.gov.uk/inbox",
            "prototype kit password for user research sessions: https://researcher:{v}@licence-prototype.herokuapp.com",
            "PROXY=http://svc_proxy:{v}@proxy.dept.internal:8080",
        ],
    ),
    (
        "openssh_private_key",
        g_openssh,
        [
            "bastion key for the pen testers (remove after 30/11):\n{v}",
            "~/.ssh/id_ed25519 on the Oracle jump box:\n{v}",
            "{v}",
        ],
    ),
    (
        "pentest_vpn_psk",
        g_psk,
        [
            "IPsec tunnel to the pen-test supplier: peer 203.0.113.40, IKEv2, PSK {v}",
            "pre-shared key for site-to-site VPN (DC2 <-> AWS): {v}",
            "crypto ikev2 keyring PENTEST\n peer SUPPLIER\n  address 203.0.113.40\n  pre-shared-key {v}",
            "wireguard PresharedKey = {v}",
        ],
    ),
    (
        "office_wifi_password",
        g_human,
        [
            "Guest wifi in 10 South Colonnade is GOVGUEST, pw {v} (changes monthly)",
            "wifi: DeptStaff / {v}",
            "Y cyfrinair wifi ar gyfer y swyddfa yng Nghaerdydd yw {v}",
        ],
    ),
    (
        "jenkins_api_token",
        g_jenkins,
        [
            "curl -u deploybot:{v} https://jenkins.dept.internal/job/casework-deploy/build",
            "JENKINS_API_TOKEN={v}",
            "Jenkins api token for deploybot user: {v}",
        ],
    ),
    (
        "npm_token",
        g_npm,
        [
            "//registry.npmjs.org/:_authToken={v}",
            "NPM_TOKEN={v} (publish rights on @dept-digital/frontend-components)",
            "{v}",
        ],
    ),
    (
        "acr_registry_password",
        g_acr,
        [
            "docker login deptdigital.azurecr.io -u deptdigital -p {v}",
            "ACR admin pw (yes admin user is on, ticket raised): {v}",
            "REGISTRY_PASSWORD={v}",
        ],
    ),
    (
        "vault_token",
        g_vault,
        [
            "VAULT_TOKEN={v}",
            "root token from the vault init (should have been revoked, isn't): {v}",
            "vault login {v}",
        ],
    ),
    (
        "terraform_cloud_token",
        g_tfc,
        [
            'credentials "app.terraform.io" {\n  token = "{v}"\n}',
            "TF_API_TOKEN={v}",
            "team token for the identity workspaces: {v}",
        ],
    ),
    (
        "django_secret_key",
        g_django,
        [
            "SECRET_KEY = '{v}'",
            "DJANGO_SECRET_KEY={v}",
            "prod secret key for the grants app (the one signing sessions): {v}",
        ],
    ),
    (
        "rails_secret_key_base",
        g_rails,
        [
            "SECRET_KEY_BASE={v}",
            "secret_key_base for the procurement portal (Rails): {v}",
            "{v}",
        ],
    ),
    (
        "session_cookie",
        g_cookie,
        [
            "reproduce with my admin session: curl -b 'connect.sid={v}' https://admin.casework.example.gov.uk/cases/export",
            "Cookie: connect.sid={v}",
            "caseworker session cookie copied from devtools (still logged in): {v}",
        ],
    ),
    (
        "totp_seed",
        g_totp,
        [
            "MFA secret for the shared payments admin login: {v} (add to authenticator)",
            "otpauth://totp/GOVPay:payments-admin?secret={v}&issuer=GOVPay",
            "TOTP seed for the procurement portal team account - {v}",
            "{v}",
        ],
    ),
    (
        "procurement_portal_password",
        g_human,
        [
            "Contracts Finder / tender portal login: procurement@dept.example.gov.uk, {v}",
            "buyer account on the e-sourcing portal (bids open Friday!) u: dept_buyer01 p: {v}",
            "La contraseña del portal de licitaciones es {v}",
            "tender portal pw reset -> {v}",
        ],
    ),
    (
        "api_key_query_param",
        g_apikey,
        [
            "address lookup API: https://api.os.example.gov.uk/search/places/v1/postcode?postcode=CF10&key={v}",
            "GET https://api.postcodes.example.net/lookup?api_key={v}&q=SW1A2AA",
            "company check: https://api.company-information.example.gov.uk/company/01234567 with key {v} as basic auth user",
            "ADDRESS_API_KEY={v}",
        ],
    ),
    (
        "mfa_recovery_codes",
        g_recovery,
        [
            "recovery codes for the GOV cloud org admin (store in safe): {v}",
            "backup codes (github org owner account): {v}",
            "{v}",
        ],
    ),
    (
        "openai_api_key",
        g_openai,
        [
            "OPENAI_API_KEY={v}",
            "key for the casework summarisation spike (AI pilot, DPIA pending): {v}",
            "{v}",
        ],
    ),
    (
        "anthropic_api_key",
        g_anthropic,
        [
            "ANTHROPIC_API_KEY={v}",
            "key the agent uses for the accessibility triage bot: {v}",
            "{v}",
        ],
    ),
    (
        "datadog_api_key",
        g_datadog,
        [
            "DD_API_KEY={v}",
            'datadog agent install: DD_API_KEY={v} DD_SITE=datadoghq.eu bash -c "$(curl -L https://install.datadoghq.com/scripts/install_script_agent7.sh)"',
            "Datadog api key for the identity platform: {v}",
        ],
    ),
]

BENIGN = [
    (
        "aws_documented_example_key",
        g_lit("AKIAIOSFODNN7EXAMPLE"),
        [
            "in the runbook use the AWS docs example id {v} and wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY, never real ones",
            "aws_access_key_id = {v}  # doc example, replaced at deploy",
            "test fixture for the secret scanner: {v}",
        ],
    ),
    (
        "git_commit_sha",
        g_sha40,
        [
            "identity-broker prod is on {v}, rollback target is the tag before",
            "git revert {v}  # broke SAML logout",
            "Deployed casework-api @ {v} at 14:02",
            "{v}",
        ],
    ),
    (
        "git_short_sha",
        g_sha7,
        [
            "fix for the Welsh translation bug is in {v}",
            "cherry-pick {v} onto release/2024-11",
            "build {v} passed a11y checks",
            'Revert "Bump oidc-client" ({v})',
        ],
    ),
    (
        "case_reference_uuid",
        g_uuid,
        [
            "citizen complained about duplicate SMS; case id {v}",
            "Correlation-Id: {v}",
            "lost application, journey id {v} in the logs around 09:14",
            "{v}",
        ],
    ),
    (
        "notify_template_id",
        g_uuid,
        [
            "Notify template for 'licence approved' email: {v}",
            "TEMPLATE_ID_REMINDER_SMS={v}",
            'send_email_notification(email_address=addr, template_id="{v}", personalisation={"ref": ref})',
            "y templed Cymraeg ar gyfer y llythyr yw {v}",
        ],
    ),
    (
        "notify_service_id",
        g_uuid,
        [
            "Notify service id (shows in the URL, not a secret): {v}",
            "https://www.notifications.service.gov.uk/services/{v}/dashboard",
            "service {v} is in trial mode still",
        ],
    ),
    (
        "file_sha256_checksum",
        g_sha256,
        [
            "sha256sum casework-export-2024-10.csv.gpg -> {v}",
            "ojdbc8.jar checksum {v} matches Maven Central",
            "hash of the pen-test report PDF as received: {v}",
            "{v}",
        ],
    ),
    (
        "tls_cert_fingerprint",
        g_fpr,
        [
            "new cert for login.example.gov.uk SHA-256 fingerprint {v}",
            "pin this in the mTLS allow-list: {v}",
            "IdP signing cert thumbprint {v}",
            "openssl x509 -noout -fingerprint -sha256 -in idp.pem\nsha256 Fingerprint={v}",
        ],
    ),
    (
        "ssh_public_key",
        g_sshpub,
        [
            "add pen tester's key to bastion authorized_keys: {v} tester@supplier",
            "{v} ops@dept",
            "public key for the deploy user (safe to share): {v}",
            "Mae allwedd gyhoeddus y contractwr: {v}",
        ],
    ),
    (
        "x509_certificate_pem",
        g_cert,
        [
            "IdP signing certificate (public) for the SP config:\n{v}",
            "eIDAS node metadata cert, give to the member-state partner:\n{v}",
            "{v}",
        ],
    ),
    (
        "saml_idp_metadata_cert",
        g_certb64,
        [
            "<ds:X509Certificate>{v}</ds:X509Certificate>",
            "from the ADFS federation metadata: X509Certificate {v}...",
            "idp.cert (public, from metadata): {v}",
        ],
    ),
    (
        "stripe_publishable_key",
        g_pk_live,
        [
            "STRIPE_PUBLISHABLE_KEY={v}  # goes in the frontend bundle",
            "Stripe.js init: Stripe('{v}')",
            "publishable key for the permits pilot (public): {v}",
            "{v}",
        ],
    ),
    (
        "captcha_site_key",
        g_sitekey,
        [
            "reCAPTCHA site key on the contact form: {v} (secret key is in Key Vault)",
            '<div class="g-recaptcha" data-sitekey="{v}"></div>',
            "RECAPTCHA_SITE_KEY={v}",
        ],
    ),
    (
        "placeholder_angle_brackets",
        g_lit("<your-notify-api-key>"),
        [
            "NOTIFY_API_KEY={v}",
            "In the README for suppliers: set NOTIFY_API_KEY to a {v} style value from the Notify admin",
            'export NOTIFY_API_KEY="{v}"',
            "| NOTIFY_API_KEY | {v} | set in Key Vault |",
        ],
    ),
    (
        "env_var_reference",
        g_lit("${ORACLE_CASE_PASSWORD}"),
        [
            "datasource.password={v}",
            "sqlplus CASEOWNER/{v}@CASEPRD  (var injected from Key Vault by the pipeline)",
            "password: {v}",
            "the bind password comes from {v}, never hardcode it",
        ],
    ),
    (
        "vault_path_reference",
        g_lit("secret/identity/prod/oidc-client"),
        [
            "OIDC client secret lives at {v} (vault kv get)",
            "vault kv get -field=client_secret {v}",
            "ask the platform team for read on {v}",
        ],
    ),
    (
        "masked_key_last4",
        g_mask,
        [
            "Pay admin shows the live key as {v} - that's the one to revoke",
            "key in use: {v}",
            "old key {v} was created by a leaver",
            "Die aktuelle Schlüssel endet auf ...: {v}",
        ],
    ),
    (
        "redacted_value",
        g_lit("[REDACTED]"),
        [
            "NOTIFY_API_KEY={v}",
            "client_secret: {v} (see the secrets manager)",
            "incident log: attacker tried password {v} on 412 accounts",
            "DB_PASSWORD={v}",
        ],
    ),
    (
        "changeme_default_placeholder",
        g_lit("changeme"),
        [
            "docker-compose local dev: POSTGRES_PASSWORD={v}",
            "the helm chart default adminPassword is '{v}' - pen test flagged that we must override it",
            "keystore pass in the dev template = {v}",
        ],
    ),
    (
        "password_policy_text",
        g_policy,
        [
            "Policy: citizen account passwords min {v} chars, check against breached list, no composition rules (NCSC guidance).",
            "Staff AD passwords: at least {v} characters, three random words encouraged, no forced expiry.",
            "Polisi cyfrineiriau: o leiaf {v} nod, dim newid gorfodol.",
            "pen-test finding: minimum password length on legacy portal is 8, should be {v}",
        ],
    ),
    (
        "nino_example_qq",
        g_nino,
        [
            "use {v} in test data (QQ prefix is never issued)",
            "example NINO for the prototype: {v}",
            "fixture citizen: Jane Tester, NINO {v}",
        ],
    ),
    (
        "tax_utr_reference",
        g_utr,
        [
            "supplier's UTR for the invoice check: {v}",
            "UTR {v} - matches the company on the contract",
            "unique taxpayer reference (test): {v}",
            "{v}",
        ],
    ),
    (
        "case_management_reference",
        g_caseref,
        [
            "case {v} escalated to tier 2, citizen says the letter was in English not Welsh",
            "Ref: {v}",
            "merge duplicates {v} and the older one",
            "{v}",
        ],
    ),
    (
        "procurement_tender_ref",
        g_tender,
        [
            "Find a Tender notice {v} - pen-testing services lot 2",
            "accessibility audit contract notice ref {v}, clarifications close 12:00",
            "tender ref {v}",
        ],
    ),
    (
        "purchase_order_number",
        g_po,
        [
            "raise invoice against {v} (pen test, 10 days)",
            "PO: {v}",
            "accessibility audit PO number {v}, cost centre D41",
        ],
    ),
    (
        "companies_house_number",
        g_ch,
        [
            "supplier company number {v} (checked on Companies House)",
            "pen-test contractor reg no. {v}",
            "Company No: {v}",
        ],
    ),
    (
        "govpay_payment_id",
        g_paymentid,
        [
            "refund requested for payment_id {v}",
            "GET /v1/payments/{v}/refunds",
            "citizen was charged twice: {v} and a second one 2 min later",
            "{v}",
            "| 12/11 | {v} | £25.00 | success |",
        ],
    ),
    (
        "stripe_payment_intent_id",
        g_pi,
        [
            "disputed charge {v} on the permits pilot",
            "stripe payment_intents retrieve {v}",
            "pi: {v}",
        ],
    ),
    (
        "twilio_message_sid",
        g_sm,
        [
            "OTP SMS not delivered, message sid {v}, status undelivered 30003",
            "MessageSid={v}",
            "support ticket with Twilio quoting {v}",
        ],
    ),
    (
        "oidc_client_id_public",
        g_clientid,
        [
            "OIDC client_id for the benefits portal is {v} (public, shows in the auth URL)",
            "https://oidc.login.example.gov.uk/authorize?response_type=code&client_id={v}&scope=openid+email&redirect_uri=https%3A%2F%2Fapply.example.gov.uk%2Fcallback",
            "client_id: {v}",
            "{v}",
        ],
    ),
    (
        "jwks_public_modulus",
        g_jwks,
        [
            'JWKS from the IdP: {"kty":"RSA","e":"AQAB","use":"sig","n":"{v}"}',
            "public key modulus (n) of the current signing key: {v}",
            '"n": "{v}"',
        ],
    ),
    (
        "azure_tenant_subscription_id",
        g_uuid,
        [
            "tenant id {v} (digitalgov.onmicrosoft.com)",
            "az account set --subscription {v}",
            "AZURE_SUBSCRIPTION_ID={v}",
            "| prod-casework | {v} | Owner: platform |",
        ],
    ),
    (
        "aws_account_id_arn",
        g_acct,
        [
            "identity-prod account is {v}",
            "arn:aws:iam::{v}:role/github-actions-deploy",
            "assume role in {v} via SSO, permission set PlatformAdmin",
        ],
    ),
    (
        "docker_image_digest",
        g_digest,
        [
            "pin the base image: FROM python:3.12-slim@{v}",
            "casework-api image digest {v}",
            "deployed {v} to prod at 16:40",
            "{v}",
        ],
    ),
    (
        "npm_integrity_hash",
        g_integrity,
        [
            '"integrity": "{v}"',
            "package-lock changed integrity for govuk-frontend: {v}",
            "{v}",
        ],
    ),
    (
        "bcrypt_password_hash",
        g_bcrypt,
        [
            "seed user row for local dev: ('admin@example.gov.uk', '{v}')",
            "password_hash column looks like {v} (bcrypt cost 12, good)",
            "pen testers got hashes like {v} from the old portal backup",
            "{v}",
        ],
    ),
    (
        "revoked_token_noted_revoked",
        g_revoked,
        [
            "Incident 2024-031: token {v} was pushed to a public repo; REVOKED within 10 min, audit log clean.",
            "{v} - revoked and rotated 14/10, leaving here for the incident timeline only",
            "old (revoked, deleted in the provider console) token {v}",
            "postmortem: the leaked key ({v}) is dead, GitHub secret scanning auto-revoked it",
        ],
    ),
    (
        "documented_test_card",
        g_lit("4000056655665556"),
        [
            "GOV.UK Pay sandbox: test card {v}, any future expiry, any CVC",
            "test card for the smoke test: {v}",
            "use {v} in sandbox only",
        ],
    ),
    (
        "notify_simulated_address",
        g_lit("simulate-delivered@notifications.service.gov.uk"),
        [
            "load tests send to {v} so nobody gets emailed",
            "smoke test email: {v}",
            "Notify simulated recipient {v} does not count towards the limit",
        ],
    ),
    (
        "saml_request_id",
        g_samlid,
        [
            'AuthnRequest ID="{v}" never got a response from the IdP',
            "InResponseTo mismatch: expected {v}",
            "saml request id {v} in the eIDAS node logs",
            "{v}",
        ],
    ),
    (
        "pentest_finding_id",
        g_finding,
        [
            "{v} (High): session cookie missing SameSite on admin app - fixed",
            "retest {v} next sprint",
            "Finding {v}: TLS 1.0 enabled on legacy Oracle APEX front end",
        ],
    ),
    (
        "oracle_sql_id",
        g_sqlid,
        [
            "slow query on CASEPRD, sql_id {v}, full scan on CASE_EVENTS",
            "SELECT * FROM v$sql WHERE sql_id = '{v}';",
            "AWR top SQL: {v}",
        ],
    ),
    (
        "sharepoint_list_guid",
        g_uuid,
        [
            "SharePoint list 'FOI requests' GUID {v}",
            "https://department.sharepoint.com/sites/Casework/_api/web/lists(guid'{v}')/items",
            "site id {v} for the Graph migration",
        ],
    ),
    (
        "w3c_traceparent",
        g_traceparent,
        [
            "traceparent: {v}",
            "failed login trace {v} spans IdP and broker",
            "{v}",
        ],
    ),
    (
        "sentry_public_dsn",
        g_sentry,
        [
            "frontend Sentry DSN (public by design, it's in the JS): {v}",
            "SENTRY_DSN={v}",
            'Sentry.init({ dsn: "{v}" })',
            "{v}",
        ],
    ),
    (
        "ga_measurement_id",
        g_ga,
        [
            "GA4 measurement id for the service: {v} (only with cookie consent)",
            "gtag('config', '{v}');",
            "analytics property {v}",
        ],
    ),
    (
        "supplier_bank_details",
        g_bank,
        [
            "pen-test supplier bank details on invoice (sort code / acc): {v}",
            "payee: Accessible Web Ltd, {v}",
            "BACS details for the refund cheque replacement: {v}",
        ],
    ),
    (
        "webhook_signature_in_log",
        g_sig,
        [
            "Pay webhook rejected, header Pay-Signature {v} didn't match",
            "X-Hub-Signature-256: {v}",
            "signature in the failing callback: {v}",
            "{v}",
        ],
    ),
    (
        "dkim_public_key_record",
        g_dkim,
        [
            'selector1._domainkey.dept.example.gov.uk TXT "v=DKIM1; k=rsa; p={v}"',
            "DKIM public key to publish for the Notify email branding: p={v}",
            "{v}",
        ],
    ),
    (
        "ssh_host_key_fingerprint",
        g_hostfp,
        [
            "bastion host key fingerprint ED25519 {v} - verify before first connect",
            "The authenticity of host 'jump.dept.internal' can't be established. ED25519 key fingerprint is {v}.",
            "known host fp: {v}",
        ],
    ),
    (
        "pgp_key_fingerprint",
        g_pgp,
        [
            "encrypt the pen-test report to the security team key, fingerprint {v}",
            "PGP fpr: {v}",
            "supplier's public key fingerprint {v} (verified by phone)",
            'gpg --recv-keys "{v}"',
        ],
    ),
    (
        "servicenow_incident_number",
        g_inc,
        [
            "P2 raised: {v} - citizens can't sign in with the Welsh language toggle on",
            "link the change to {v}",
            "Rhif y digwyddiad: {v}",
        ],
    ),
    (
        "kms_key_arn",
        g_kms,
        [
            "case documents bucket encrypted with {v}",
            "aws kms describe-key --key-id {v}",
            "KMS_KEY_ARN={v}",
        ],
    ),
    (
        "address_uprn",
        g_uprn,
        [
            "address lookup returned UPRN {v} for the applicant",
            "uprn: {v}",
            "two licences on UPRN {v}, check with the council",
        ],
    ),
    (
        "gateway_user_id_no_password",
        g_gateway_id,
        [
            "citizen quoted their Government Gateway user ID {v} on the phone; told them never to share the password",
            "user id {v} locked after 3 failed attempts, reset via the usual route",
            "GG user ID: {v}",
        ],
    ),
    (
        "cert_serial_number",
        g_serial,
        [
            "revoked cert serial {v} (old SP signing cert)",
            "Serial Number: {v}",
            "CA issued serial {v} for login.example.gov.uk",
        ],
    ),
]


def _sub(template, vals):
    out = template
    for k, val in vals.items():
        out = out.replace("{" + k + "}", val)
    return out


def corpus() -> list[dict]:
    rng = random.Random(SEED)
    rows = []
    for label, table in (("secret", SECRET), ("benign", BENIGN)):
        for kind, gen, templates in table:
            for tpl in templates:
                vals = gen(rng)
                text = _sub(tpl, vals)
                assert vals["v"] in text, (kind, tpl)
                rows.append({"label": label, "kind": kind, "text": text, "value": vals["v"]})
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

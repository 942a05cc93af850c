# ruff: noqa: E501
"""Blind secret-detector corpus 70: SaaS finance and revenue operations.

Brief: memory notes of a SaaS company's finance / RevOps team and its coding agents: ERP (NetSuite, SAP Business One), billing (Stripe, Chargebee, Zuora), payroll and HR (ADP, Gusto, Workday), tax engines (Avalara, TaxJar), bank and treasury APIs (Plaid, Mercury, SFTP bank files, EBICS/SWIFT), expense tools (Expensify, Ramp, Brex), spreadsheets, Salesforce and the warehouse, written by accountants, analysts and engineers.

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Run: python blind_secrets_70.py [out.jsonl]

Kinds, secret: stripe_live_secret_key, stripe_restricted_key, stripe_webhook_secret, chargebee_api_key, zuora_oauth_client_secret, netsuite_tba_consumer_secret, netsuite_tba_token_secret, netsuite_user_password, sap_b1_service_layer_password, adp_client_secret_uuid, adp_mtls_private_key, gusto_oauth_client_secret, workday_isu_password, workday_refresh_token, avalara_license_key, avalara_basic_auth_header, plaid_secret, plaid_access_token, bank_sftp_password, bank_sftp_ssh_private_key, ebics_keystore_passphrase, pgp_private_key_bank_files, expensify_partner_user_secret, ramp_client_secret, brex_user_token, mercury_api_token, salesforce_security_token, salesforce_access_token, salesforce_consumer_secret, gcp_service_account_key_json, google_api_key, slack_webhook_url, postgres_dsn_password, snowflake_user_password, fivetran_api_secret, hubspot_private_app_token, billcom_dev_key, okta_api_token, aws_secret_access_key, azure_storage_account_key, github_pat, sendgrid_api_key, totp_seed_shared_account, bank_portal_recovery_codes, xlsx_open_password, paypal_client_secret, braintree_private_key, xero_client_secret, taxjar_api_token, quickbooks_refresh_token, jwt_bearer_token, gmail_app_password
Kinds, benign: stripe_publishable_key, stripe_test_publishable_key, stripe_object_id, stripe_event_id, stripe_docs_example_key, aws_docs_example_key, git_commit_sha, request_id_uuid, plaid_item_id, plaid_sandbox_documented_creds, stripe_test_card_number, netsuite_account_id, netsuite_internal_id, invoice_number, iban_payment_note, bic_code, aba_routing_number, bank_file_sha256, export_md5, ssh_host_key_fingerprint, pgp_public_key_block, x509_certificate_pem, placeholder_token, masked_key_last4, env_var_reference, vault_path_reference, password_policy_text, default_changeme_placeholder, salesforce_record_id, salesforce_consumer_key, recaptcha_site_key, avalara_account_id, zuora_subscription_number, adp_associate_id, workday_wid, chargebee_subscription_id, gusto_company_uuid, ebics_ini_letter_hash, idempotency_key, google_sheet_id, google_oauth_client_id, slack_channel_id, docker_image_digest, revoked_stripe_key_stated_revoked, bcrypt_hash, swift_uetr, gl_account_and_po_numbers, redacted_connection_string, check_and_ach_trace_numbers, ssh_public_key, stripe_connect_account_id, vat_number, netsuite_account_url, stripe_signature_header
"""

import base64
import json
import random
import string
import sys

SEED = 7070

A62 = string.ascii_letters + string.digits
HEX = "0123456789abcdef"
HEXU = "0123456789ABCDEF"
B64 = string.ascii_letters + string.digits + "+/"
B64U = string.ascii_letters + string.digits + "-_"
B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
UP_DIG = string.ascii_uppercase + string.digits

WORDS = [
    "Ledger",
    "Accrual",
    "Tiger",
    "Maple",
    "Harbor",
    "Falcon",
    "Copper",
    "Winter",
    "Summer",
    "Payroll",
    "Audit",
    "Revenue",
    "Orange",
    "Sunset",
    "Budget",
    "Monkey",
    "Dragon",
    "Purple",
    "Coffee",
    "Rocket",
    "Penguin",
    "Bluebird",
    "Invoice",
    "Closing",
    "Cascade",
    "Granite",
    "Lobster",
    "Velvet",
]
SYMS = "!#$%&*@?"


def rs(r, n, alpha=A62):
    return "".join(r.choice(alpha) for _ in range(n))


def uuid4(r):
    h = rs(r, 32, HEX)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{r.choice('89ab')}{h[17:20]}-{h[20:32]}"


def human_pw(r):
    style = r.randrange(4)
    w1, w2 = r.choice(WORDS), r.choice(WORDS)
    d = str(r.randrange(10, 9999))
    s = r.choice(SYMS)
    if style == 0:
        return f"{w1}{d}{s}"
    if style == 1:
        return f"{w1.lower()}{s}{w2}{d}"
    if style == 2:
        return f"{w1}-{w2.lower()}-{d}"
    return f"{s}{w1}{r.randrange(2019, 2027)}{w2[:3].lower()}"


def gen_pw(r, n=20):
    alpha = A62 + "!#%^*()-_=+"
    while True:
        p = rs(r, n, alpha)
        if any(c in "!#%^*()-_=+" for c in p) and any(c.isdigit() for c in p):
            return p


def b64lines(r, nbytes, width=64):
    body = base64.b64encode(bytes(r.randrange(256) for _ in range(nbytes))).decode()
    return "\n".join(body[i : i + width] for i in range(0, len(body), width))


def pem(r, label, nbytes):
    return f"-----BEGIN {label}-----\n{b64lines(r, nbytes)}\n-----END {label}-----"


def openssh_key(r):
    raw = b"openssh-key-v1\x00\x00\x00\x00\x04none\x00\x00\x00\x04none" + bytes(
        r.randrange(256) for _ in range(360)
    )
    body = base64.b64encode(raw).decode()
    lines = "\n".join(body[i : i + 70] for i in range(0, len(body), 70))
    return f"-----BEGIN OPENSSH PRIVATE KEY-----\n{lines}\n-----END OPENSSH PRIVATE KEY-----"


def b64u_json(obj):
    return (
        base64.urlsafe_b64encode(json.dumps(obj, separators=(",", ":")).encode())
        .decode()
        .rstrip("=")
    )


def jwt(r):
    head = b64u_json({"alg": "RS256", "typ": "JWT", "kid": rs(r, 8, HEX)})
    body = b64u_json(
        {
            "sub": "isu_revops_integration",
            "iss": "wd5-impl-services1",
            "exp": 1790000000 + r.randrange(10**7),
            "jti": uuid4(r),
        }
    )
    return f"{head}.{body}.{rs(r, 342, B64U)}"


def iban_de(r):
    return "DE" + f"{r.randrange(10, 99)}" + rs(r, 18, string.digits)


def bic(r):
    return (
        rs(r, 4, string.ascii_uppercase)
        + r.choice(["DE", "GB", "US", "FR", "NL"])
        + rs(r, 2, UP_DIG)
        + r.choice(["", "XXX"])
    )


# ---------------------------------------------------------------------------
# Each kind: (label, kind, generator(r) -> dict with "v" (+extras), [templates])
# Templates are str.format strings; literal braces are doubled.
# ---------------------------------------------------------------------------

SECRET_KINDS = [
    (
        "stripe_live_secret_key",
        lambda r: {"v": "sk_live_" + (rs(r, 24) if r.random() < 0.4 else "51" + rs(r, 97))},
        [
            "Stripe prod key for the rev-rec sync job: {v}",
            "export STRIPE_SECRET_KEY={v}",
            "curl https://api.stripe.com/v1/invoices?limit=3 -u {v}:",
            "| stripe | prod | {v} | owner: billing-eng |",
            "Clé secrète Stripe (prod) pour le rapprochement bancaire : {v}",
        ],
    ),
    (
        "stripe_restricted_key",
        lambda r: {"v": "rk_live_51" + rs(r, 97)},
        [
            "restricted key for the finance dashboard (read invoices/charges only): {v}",
            "STRIPE_RK={v}  # metabase connector",
            "@maria the rk you asked for -> {v} pls put it in 1pw after",
        ],
    ),
    (
        "stripe_webhook_secret",
        lambda r: {"v": "whsec_" + rs(r, 32)},
        [
            "webhook signing secret for /hooks/stripe (invoice.paid, charge.refunded): {v}",
            "STRIPE_WEBHOOK_SECRET={v}",
            "stripe listen forwards to localhost:4242, but prod endpoint secret is {v}",
            "Webhook-Signaturgeheimnis Produktion: {v}",
        ],
    ),
    (
        "chargebee_api_key",
        lambda r: {"v": "live_" + rs(r, 32)},
        [
            "Chargebee full-access key (acme site): {v}",
            "curl https://acme.chargebee.com/api/v2/subscriptions -u {v}:",
            "CHARGEBEE_API_KEY={v}\nCHARGEBEE_SITE=acme",
            "chargebee:\n  site: acme\n  api_key: {v}",
        ],
    ),
    (
        "zuora_oauth_client_secret",
        lambda r: {"v": rs(r, 30, B64) + "=" + rs(r, 9, A62), "id": uuid4(r)},
        [
            "Zuora OAuth client for the usage upload: client_id {id} / client_secret {v}",
            "curl -X POST https://rest.zuora.com/oauth/token -d client_id={id} -d client_secret='{v}' -d grant_type=client_credentials",
            "ZUORA_CLIENT_ID={id}\nZUORA_CLIENT_SECRET={v}",
            "zuora oauth (prod tenant) id={id} secret={v} -- created by Ken on the API Users page",
        ],
    ),
    (
        "netsuite_tba_consumer_secret",
        lambda r: {"v": rs(r, 64, HEX), "ck": rs(r, 64, HEX)},
        [
            "NetSuite integration record 'RevOps Sync': consumer key {ck}, consumer secret {v}",
            "NS_CONSUMER_KEY={ck}\nNS_CONSUMER_SECRET={v}",
            "consumer secret (only shown once!!) {v}",
        ],
    ),
    (
        "netsuite_tba_token_secret",
        lambda r: {"v": rs(r, 64, HEX), "tid": rs(r, 64, HEX)},
        [
            "TBA token for role 'Integration - AR': token id {tid} token secret {v}",
            "netsuite:\n  account: 4829117\n  token_id: {tid}\n  token_secret: {v}",
            "NS_TOKEN_SECRET={v}",
            "Token-Secret für NetSuite (Prod, Rolle AP-Clerk): {v}",
        ],
    ),
    (
        "netsuite_user_password",
        lambda r: {"v": human_pw(r)},
        [
            "netsuite login for the audit firm: auditors@acme-saas.com / {v} (role: Read Only Auditor)",
            "NS admin pw changed after close -> {v}",
            "if the suitelet breaks, log in as ap.clerk@acme-saas.com, pass is {v}",
            "Contraseña de NetSuite para el equipo de cierre: {v}",
        ],
    ),
    (
        "sap_b1_service_layer_password",
        lambda r: {"v": human_pw(r)},
        [
            'curl -k https://b1-hana.acme.local:50000/b1s/v1/Login -d \'{{"CompanyDB":"ACME_PROD","UserName":"manager","Password":"{v}"}}\'',
            "SAP B1 manager user: manager / {v} (company DB ACME_PROD)",
            "B1_SL_USER=manager\nB1_SL_PASSWORD={v}",
            "SAP Business One Passwort (manager, Produktivmandant): {v}",
        ],
    ),
    (
        "adp_client_secret_uuid",
        lambda r: {"v": uuid4(r), "id": uuid4(r)},
        [
            "ADP API Central app 'payroll-export': client_id={id} client_secret={v}",
            "ADP_CLIENT_ID={id}\nADP_CLIENT_SECRET={v}",
            "curl --cert adp.pem --key adp.key https://accounts.adp.com/auth/oauth/v2/token -d grant_type=client_credentials -d client_id={id} -d client_secret={v}",
            "adp creds from Priya: id {id}, secret {v}",
        ],
    ),
    (
        "adp_mtls_private_key",
        lambda r: {"v": pem(r, "PRIVATE KEY", 600)},
        [
            "ADP requires mTLS; this is the key that pairs with acme_adp.crt:\n{v}",
            "adp.key (prod, expires with cert in Mar):\n{v}",
            "{v}",
        ],
    ),
    (
        "gusto_oauth_client_secret",
        lambda r: {"v": rs(r, 43, B64U), "id": rs(r, 43, B64U)},
        [
            "Gusto partner app: client id {id} / client secret {v}",
            "GUSTO_CLIENT_SECRET={v}",
            "gusto:\n  client_id: {id}\n  client_secret: {v}\n  redirect_uri: https://fin-tools.acme-saas.com/oauth/gusto",
        ],
    ),
    (
        "workday_isu_password",
        lambda r: {"v": gen_pw(r, 24)},
        [
            "Workday ISU_RevOps_Integration password (generated, never expires): {v}",
            "WORKDAY_USER=ISU_RevOps_Integration@acme\nWORKDAY_PASSWORD={v}",
            "wd soap call: <wsse:Username>ISU_RevOps_Integration@acme</wsse:Username><wsse:Password>{v}</wsse:Password>",
            "Mot de passe de l'ISU Workday (tenant prod) : {v}",
        ],
    ),
    (
        "workday_refresh_token",
        lambda r: {"v": rs(r, 88, A62)},
        [
            "Workday API client 'fin-reporting' refresh token (no expiry): {v}",
            "WORKDAY_REFRESH_TOKEN={v}",
            "curl -X POST https://wd5-impl-services1.workday.com/ccx/oauth2/acme/token -d grant_type=refresh_token -d refresh_token={v}",
        ],
    ),
    (
        "avalara_license_key",
        lambda r: {"v": rs(r, 16, HEXU), "acct": str(r.randrange(1100000000, 2099999999))},
        [
            "AvaTax prod: account {acct}, license key {v}",
            "AVALARA_ACCOUNT_ID={acct}\nAVALARA_LICENSE_KEY={v}",
            "avatax account {acct} lic {v} (regenerated Tue, old one dead)",
            "| avalara | prod | {acct} | {v} |",
        ],
    ),
    (
        "avalara_basic_auth_header",
        lambda r: {
            "v": base64.b64encode(
                f"{r.randrange(1100000000, 2099999999)}:{rs(r, 16, HEXU)}".encode()
            ).decode()
        },
        [
            "curl https://rest.avatax.com/api/v2/utilities/ping -H 'Authorization: Basic {v}'",
            "header that works for avatax: Authorization: Basic {v}",
            "Authorization: Basic {v}",
        ],
    ),
    (
        "plaid_secret",
        lambda r: {"v": rs(r, 30, HEX), "cid": rs(r, 24, HEX)},
        [
            "Plaid production: client_id {cid}, secret {v}",
            "PLAID_CLIENT_ID={cid}\nPLAID_SECRET={v}\nPLAID_ENV=production",
            'curl https://production.plaid.com/transactions/sync -H \'Content-Type: application/json\' -d \'{{"client_id":"{cid}","secret":"{v}","access_token":"$TOK"}}\'',
            "plaid prod secret rotated, new one {v}",
        ],
    ),
    (
        "plaid_access_token",
        lambda r: {"v": "access-production-" + uuid4(r)},
        [
            "Plaid access token for the SVB operating account item: {v}",
            "treasury sync uses {v} for the Chase item",
            "PLAID_ACCESS_TOKEN_OPERATING={v}",
        ],
    ),
    (
        "bank_sftp_password",
        lambda r: {"v": human_pw(r)},
        [
            "sftp acme_payments@sftp.bank-connect.example-bank.com  pw: {v}",
            "Bank file drop (positive pay + BAI2): host sftp.bank-connect.example-bank.com, user acme_payments, password {v}",
            "lftp -u acme_payments,'{v}' sftp://sftp.bank-connect.example-bank.com",
            "SFTP-Zugang Hausbank: acme_payments / {v}",
        ],
    ),
    (
        "bank_sftp_ssh_private_key",
        lambda r: {"v": openssh_key(r)},
        [
            "key for the lockbox SFTP (user acme_lockbox), no passphrase:\n{v}",
            "id_ed25519_bankfiles\n{v}",
            "{v}",
        ],
    ),
    (
        "ebics_keystore_passphrase",
        lambda r: {"v": human_pw(r)},
        [
            "EBICS keystore (A006/X002/E002 for Partner ACMEGMBH) is unlocked with {v}",
            "EBICS_KEYSTORE_PASS={v}",
            "Passwort für die EBICS-Schlüsseldatei: {v}",
        ],
    ),
    (
        "pgp_private_key_bank_files",
        lambda r: {
            "v": "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n"
            + b64lines(r, 700)
            + "\n="
            + rs(r, 4, B64)
            + "\n-----END PGP PRIVATE KEY BLOCK-----"
        },
        [
            "Our PGP private key to decrypt the bank's ACK files (acme-treasury@):\n{v}",
            "secret key export for payments encryption:\n{v}",
            "{v}",
        ],
    ),
    (
        "expensify_partner_user_secret",
        lambda r: {"v": rs(r, 40, HEX), "uid": "aa_api_" + rs(r, 8, HEX) + "_acme"},
        [
            "Expensify integration server: partnerUserID {uid}, partnerUserSecret {v}",
            "'credentials': {{'partnerUserID': '{uid}', 'partnerUserSecret': '{v}'}}",
            "EXPENSIFY_USER_ID={uid}\nEXPENSIFY_USER_SECRET={v}",
        ],
    ),
    (
        "ramp_client_secret",
        lambda r: {"v": "ramp_sec_" + rs(r, 48), "id": "ramp_id_" + rs(r, 40)},
        [
            "Ramp developer app: {id} / {v}",
            "RAMP_CLIENT_ID={id}\nRAMP_CLIENT_SECRET={v}",
            "curl -u {id}:{v} https://api.ramp.com/developer/v1/token -d grant_type=client_credentials -d scope=transactions:read",
        ],
    ),
    (
        "brex_user_token",
        lambda r: {"v": "bxt_" + rs(r, 54)},
        [
            "Brex user token for card txn export (expires if unused 30d): {v}",
            "curl https://platform.brexapis.com/v2/transactions/card/primary -H 'Authorization: Bearer {v}'",
            "BREX_TOKEN={v}",
        ],
    ),
    (
        "mercury_api_token",
        lambda r: {"v": "secret-token:mercury_production_wma_" + rs(r, 44) + "_yrucrem"},
        [
            "Mercury read-write token (whitelisted IP 34.x only): {v}",
            "MERCURY_API_TOKEN={v}",
            "curl https://api.mercury.com/api/v1/accounts -H 'Authorization: Bearer {v}'",
        ],
    ),
    (
        "salesforce_security_token",
        lambda r: {"v": rs(r, 24), "pw": human_pw(r)},
        [
            "SF integration user revops-int@acme-saas.com pw {pw} security token {v}",
            "simple_salesforce(username='revops-int@acme-saas.com', password='{pw}', security_token='{v}')",
            "SF_PASSWORD={pw}\nSF_SECURITY_TOKEN={v}",
            "new SFDC reset token came by email: {v}",
        ],
    ),
    (
        "salesforce_access_token",
        lambda r: {
            "v": "00D" + rs(r, 12, A62) + "!AQ" + rs(r, 1, "EIMQ") + "AQ" + rs(r, 92, A62 + "._")
        },
        [
            "sf session for the bulk quote export, valid ~2h: {v}",
            "curl https://acme.my.salesforce.com/services/data/v60.0/query?q=SELECT+Id+FROM+Opportunity -H 'Authorization: Bearer {v}'",
            "sfdx force:org:display gave accessToken {v}",
        ],
    ),
    (
        "salesforce_consumer_secret",
        lambda r: {"v": rs(r, 64, HEXU), "ck": "3MVG9" + rs(r, 80, A62 + "._")},
        [
            "Connected app 'CPQ-Billing Bridge': consumer key {ck}\nconsumer secret {v}",
            "SF_CLIENT_SECRET={v}",
            "Consumer Secret der Connected App (Prod): {v}",
        ],
    ),
    (
        "gcp_service_account_key_json",
        lambda r: {
            "v": "-----BEGIN PRIVATE KEY-----\\n"
            + b64lines(r, 600).replace("\n", "\\n")
            + "\\n-----END PRIVATE KEY-----\\n",
            "kid": rs(r, 40, HEX),
            "cid": str(r.randrange(10**20, 10**21)),
        },
        [
            '{{\n  "type": "service_account",\n  "project_id": "acme-fin-sheets",\n  "private_key_id": "{kid}",\n  "private_key": "{v}",\n  "client_email": "board-pack@acme-fin-sheets.iam.gserviceaccount.com",\n  "client_id": "{cid}"\n}}',
            'sheets bot key (board-pack@acme-fin-sheets) private_key: "{v}"',
            'GOOGLE_SA_PRIVATE_KEY="{v}"',
        ],
    ),
    (
        "google_api_key",
        lambda r: {"v": "AIza" + rs(r, 35, A62 + "-_")},
        [
            "Sheets API key (unrestricted, careful) for the FX rates tab: {v}",
            '=IMPORTDATA("https://sheets.googleapis.com/v4/spreadsheets/1AbC/values/FX!A1:D40?key={v}")',
            "GOOGLE_API_KEY={v}",
        ],
    ),
    (
        "slack_webhook_url",
        lambda r: {
            "v": "https://hooks.slack.com/services/T"
            + rs(r, 8, UP_DIG)
            + "/B"
            + rs(r, 10, UP_DIG)
            + "/"
            + rs(r, 24)
        },
        [
            "post failed payment alerts to #fin-alerts via {v}",
            "SLACK_WEBHOOK_FIN={v}",
            "curl -X POST -H 'Content-type: application/json' --data '{{\"text\":\"dunning run done\"}}' {v}",
        ],
    ),
    (
        "postgres_dsn_password",
        lambda r: {"v": gen_pw(r, 18).replace("@", "x").replace("/", "x").replace(":", "x")},
        [
            "DATABASE_URL=postgresql://billing_rw:{v}@billing-db.prod.acme.internal:5432/billing",
            'psql "host=fin-replica.acme.internal dbname=revrec user=analyst password={v}"',
            "revrec db creds: analyst / {v} (replica only)",
            "jdbc:postgresql://billing-db.prod.acme.internal:5432/billing?user=billing_rw&password={v}",
        ],
    ),
    (
        "snowflake_user_password",
        lambda r: {"v": human_pw(r)},
        [
            "snowsql -a acme-xy12345 -u FIN_ANALYST_SVC  (pw {v})",
            "Snowflake FIN_ANALYST_SVC password: {v}",
            'connections.toml:\n[fin]\naccount = "acme-xy12345"\nuser = "FIN_ANALYST_SVC"\npassword = "{v}"',
            "La contraseña de Snowflake para el usuario de finanzas es {v}",
        ],
    ),
    (
        "fivetran_api_secret",
        lambda r: {"v": rs(r, 32), "k": rs(r, 16)},
        [
            "Fivetran API key {k} secret {v} (used by the netsuite connector script)",
            "curl -u {k}:{v} https://api.fivetran.com/v1/connectors/netsuite_suiteanalytics/sync -X POST",
            "FIVETRAN_API_KEY={k}\nFIVETRAN_API_SECRET={v}",
        ],
    ),
    (
        "hubspot_private_app_token",
        lambda r: {"v": "pat-na1-" + uuid4(r)},
        [
            "HubSpot private app 'deal-to-invoice' token: {v}",
            "HUBSPOT_TOKEN={v}",
            "curl https://api.hubapi.com/crm/v3/objects/deals -H 'authorization: Bearer {v}'",
        ],
    ),
    (
        "billcom_dev_key",
        lambda r: {"v": "0" + rs(r, 2, "12") + rs(r, 33, A62)},
        [
            "Bill.com AP sync devKey {v} (org 00802XYZ, user ap-bot@acme-saas.com)",
            "BILLCOM_DEV_KEY={v}",
            'login.json: {{"userName":"ap-bot@acme-saas.com","orgId":"00802XYZ","devKey":"{v}"}}',
        ],
    ),
    (
        "okta_api_token",
        lambda r: {"v": "00" + rs(r, 40, A62 + "-_")},
        [
            "Okta token used to deprovision finance app access on offboarding: {v}",
            "curl https://acme.okta.com/api/v1/users?filter=profile.department+eq+\"Finance\" -H 'Authorization: SSWS {v}'",
            "OKTA_API_TOKEN={v}",
        ],
    ),
    (
        "aws_secret_access_key",
        lambda r: {"v": rs(r, 40, B64), "ak": "AKIA" + rs(r, 16, B32)},
        [
            "s3://acme-bank-statements creds: {ak} / {v}",
            "[finance-exports]\naws_access_key_id = {ak}\naws_secret_access_key = {v}",
            "AWS_ACCESS_KEY_ID={ak} AWS_SECRET_ACCESS_KEY={v} aws s3 sync ./bai2 s3://acme-bank-statements/",
            "Die Zugangsdaten für den Kontoauszug-Bucket: {ak} und {v}",
        ],
    ),
    (
        "azure_storage_account_key",
        lambda r: {"v": base64.b64encode(bytes(r.randrange(256) for _ in range(64))).decode()},
        [
            "DefaultEndpointsProtocol=https;AccountName=acmefinarchive;AccountKey={v};EndpointSuffix=core.windows.net",
            "az storage blob upload --account-name acmefinarchive --account-key {v} -c audit-2025 -f tb.xlsx",
            "key1 for acmefinarchive: {v}",
        ],
    ),
    (
        "github_pat",
        lambda r: {"v": "ghp_" + rs(r, 36)},
        [
            "PAT for the revops-scripts repo (classic, repo scope): {v}",
            "git clone https://x-access-token:{v}@github.com/acme-saas/revops-scripts.git",
            "GH_TOKEN={v}",
        ],
    ),
    (
        "sendgrid_api_key",
        lambda r: {"v": "SG." + rs(r, 22, B64U) + "." + rs(r, 43, B64U)},
        [
            "invoice mailer (billing@acme-saas.com) sends through SendGrid with {v}",
            "SENDGRID_API_KEY={v}",
            "smtp.sendgrid.net:587 user apikey pass {v}",
        ],
    ),
    (
        "totp_seed_shared_account",
        lambda r: {"v": rs(r, 32, B32)},
        [
            "MFA seed for the shared treasury@ login at the bank portal (add it to your authenticator): {v}",
            "otpauth://totp/FirstBank:treasury%40acme-saas.com?secret={v}&issuer=FirstBank",
            "2FA secret for the Avalara admin login: {v}",
        ],
    ),
    (
        "bank_portal_recovery_codes",
        lambda r: {
            "v": " ".join(
                f"{rs(r, 4, 'abcdefghjkmnpqrstuvwxyz23456789')}-{rs(r, 4, 'abcdefghjkmnpqrstuvwxyz23456789')}"
                for _ in range(8)
            )
        },
        [
            "backup codes for the Ramp admin (cfo@ account): {v}",
            "Recovery codes for treasury@ (Mercury), use one if Dana's phone is gone:\n{v}",
            "{v}",
        ],
    ),
    (
        "xlsx_open_password",
        lambda r: {"v": human_pw(r)},
        [
            "Payroll_Register_2025-11.xlsx opens with {v}",
            "the comp bands sheet is locked, Ana said it's {v}",
            "sent the bonus file to the auditors, will text them {v} separately",
            "Die Gehaltsliste (Lohnjournal_Nov.xlsx) öffnet man mit {v}",
        ],
    ),
    (
        "paypal_client_secret",
        lambda r: {"v": "E" + rs(r, 79, B64U), "id": "A" + rs(r, 79, B64U)},
        [
            "PayPal live REST app: client id {id}\nsecret {v}",
            "PAYPAL_CLIENT_SECRET={v}",
            'curl https://api-m.paypal.com/v1/oauth2/token -u "{id}:{v}" -d grant_type=client_credentials',
        ],
    ),
    (
        "braintree_private_key",
        lambda r: {
            "v": rs(r, 32, HEX),
            "pub": rs(r, 16, "abcdefghijklmnopqrstuvwxyz0123456789"),
            "mid": rs(r, 16, "abcdefghijklmnopqrstuvwxyz0123456789"),
        },
        [
            "Braintree prod merchant {mid}: public key {pub}, private key {v}",
            "BRAINTREE_PRIVATE_KEY={v}",
            "braintree.Configuration(environment=braintree.Environment.Production, merchant_id='{mid}', public_key='{pub}', private_key='{v}')",
        ],
    ),
    (
        "xero_client_secret",
        lambda r: {"v": rs(r, 48, B64U), "id": rs(r, 32, HEXU)},
        [
            "Xero app for the UK subsidiary: client id {id} secret {v}",
            "XERO_CLIENT_ID={id}\nXERO_CLIENT_SECRET={v}",
            "xero uk-sub app secret: {v}",
        ],
    ),
    (
        "taxjar_api_token",
        lambda r: {"v": rs(r, 32, HEX)},
        [
            "TaxJar live token (marketplace nexus reports): {v}",
            "curl https://api.taxjar.com/v2/summary_rates -H 'Authorization: Bearer {v}'",
            "TAXJAR_API_KEY={v}",
        ],
    ),
    (
        "quickbooks_refresh_token",
        lambda r: {"v": "AB11" + str(r.randrange(10**9, 10**10)) + rs(r, 36)},
        [
            "QBO refresh token for the legacy entity (100 day expiry): {v}",
            "QBO_REFRESH_TOKEN={v}",
            "intuit oauth playground gave refresh_token {v} for realm 9130357",
        ],
    ),
    (
        "jwt_bearer_token",
        lambda r: {"v": jwt(r)},
        [
            "curl https://wd5-impl-services1.workday.com/ccx/api/v1/acme/workers -H 'Authorization: Bearer {v}'",
            "token from the Workday RaaS client, good for the night batch: {v}",
            "Authorization: Bearer {v}",
        ],
    ),
    (
        "gmail_app_password",
        lambda r: {"v": " ".join(rs(r, 4, string.ascii_lowercase) for _ in range(4))},
        [
            "app password for ar@acme-saas.com (imap pull of remittance emails): {v}",
            'IMAP_USER=ar@acme-saas.com\nIMAP_PASS="{v}"',
            "remittance bot logs into ap@ gmail with {v}",
        ],
    ),
]

BENIGN_KINDS = [
    (
        "stripe_publishable_key",
        lambda r: {"v": "pk_live_51" + rs(r, 97)},
        [
            "checkout page uses publishable key {v} (public, ships to the browser)",
            "NEXT_PUBLIC_STRIPE_PK={v}",
            "Stripe.js init: Stripe('{v}')",
            "pk for the pricing page: {v} -- fine to commit, it's the publishable one",
        ],
    ),
    (
        "stripe_test_publishable_key",
        lambda r: {"v": "pk_test_51" + rs(r, 97)},
        [
            "test-mode publishable key for the staging checkout: {v}",
            "STRIPE_PUBLISHABLE_KEY_TEST={v}",
            "Clave publicable de pruebas: {v}",
        ],
    ),
    (
        "stripe_object_id",
        lambda r: {
            "v": r.choice(["cus_", "in_", "ch_", "pi_", "sub_", "re_"])
            + rs(r, 14 if r.random() < 0.5 else 24)
        },
        [
            "customer disputes the Oct charge, see {v} in the dashboard",
            "refund posted against {v}, JE 4410 reversed",
            "| 2025-11-03 | {v} | 1,200.00 | USD | unapplied |",
            "stripe object {v} missing from NetSuite import, reran the saved search",
            "Rückerstattung für {v} ist durch",
        ],
    ),
    (
        "stripe_event_id",
        lambda r: {"v": "evt_" + rs(r, 24)},
        [
            "webhook retry storm started with {v} (invoice.payment_failed)",
            "stripe events resend {v}",
            "dedupe table already had {v}, so the handler skipped it",
            "Ereignis {v} kam doppelt an",
        ],
    ),
    (
        "stripe_docs_example_key",
        lambda r: {"v": "sk_test_4eC39HqLyjWDarjtT1zdp7dc"},
        [
            "the key in the Stripe docs curl examples is {v}, it's their public demo key, not ours",
            "README snippet uses {v} (Stripe documentation example)",
            "ignore {v} in the old tutorial notebook - it's the docs sample key",
        ],
    ),
    (
        "aws_docs_example_key",
        lambda r: {
            "v": r.choice(["AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"])
        },
        [
            "terraform example in the runbook uses {v} (AWS docs example), replace with the role",
            "aws_access_key_id = {v}   # placeholder from AWS docs",
            "scanner flagged {v} but it's the documented example value",
        ],
    ),
    (
        "git_commit_sha",
        lambda r: {"v": rs(r, 40, HEX)},
        [
            "rev-rec schedule fix merged in {v}",
            "rolled back the dunning change to {v}",
            "git revert {v}  # broke the ASC 606 allocation",
            "deployed billing-svc @ {v} at 14:05 UTC",
        ],
    ),
    (
        "request_id_uuid",
        lambda r: {"v": uuid4(r)},
        [
            "Zuora returned 500, request id {v}, ticket opened with support",
            "X-Request-Id: {v}",
            "ADP support asked for the correlation id: {v}",
            "ID de solicitud para soporte de Avalara: {v}",
        ],
    ),
    (
        "plaid_item_id",
        lambda r: {"v": rs(r, 37, A62)},
        [
            "Plaid item_id for the Chase operating acct: {v} (ITEM_LOGIN_REQUIRED again)",
            "relink needed for item {v}",
            "| chase-operating | {v} | healthy |",
            "item {v} -> removed after account closure",
        ],
    ),
    (
        "plaid_sandbox_documented_creds",
        lambda r: {
            "v": r.choice(
                ["user_good / pass_good", "user_good / mfa_device", "custom_user / pass_good"]
            )
        },
        [
            "in Plaid sandbox Link, log in with {v} (documented test creds)",
            "QA: sandbox bank login {v}, code 1234",
            "Sandbox de Plaid: usar {v}",
        ],
    ),
    (
        "stripe_test_card_number",
        lambda r: {
            "v": r.choice(
                [
                    "4242 4242 4242 4242",
                    "4000 0000 0000 0341",
                    "4000 0025 0000 3155",
                    "5555 5555 5555 4444",
                ]
            )
        },
        [
            "repro the SCA failure with test card {v}, any future exp, any CVC",
            "staging checkout: {v} 12/34 123",
            "test card {v} -> attach then fails on charge",
        ],
    ),
    (
        "netsuite_account_id",
        lambda r: {"v": str(r.randrange(1000000, 9999999)) + r.choice(["", "_SB1", "_SB2"])},
        [
            "NetSuite account ID {v}",
            "NS_ACCOUNT_ID={v}",
            "sandbox refresh done, account {v} now mirrors prod as of Nov 30",
        ],
    ),
    (
        "netsuite_internal_id",
        lambda r: {"v": str(r.randrange(10000, 9999999))},
        [
            "vendor bill internal id {v} stuck pending approval",
            "saved search customsearch_ar_aging_{v} is the one the CFO uses",
            "JE {v} posted to wrong subsidiary, reversed",
        ],
    ),
    (
        "invoice_number",
        lambda r: {"v": r.choice(["INV-", "INV", "SI-", "AR-"]) + str(r.randrange(100000, 999999))},
        [
            "customer paid {v} twice, credit memo issued",
            "{v} is short-paid by 18.40 (bank fee), write off to 6810",
            "Factura {v} pendiente de pago",
        ],
    ),
    (
        "iban_payment_note",
        lambda r: {"v": iban_de(r)},
        [
            "Vendor changed bank details to {v} - VERIFIED by callback to known number",
            "Rechnung bitte auf {v} überweisen",
            "payment run: Müller GmbH -> {v}",
            "Nouvel IBAN fournisseur : {v} (contrôlé par téléphone)",
        ],
    ),
    (
        "bic_code",
        lambda r: {"v": bic(r)},
        [
            "beneficiary BIC {v}",
            "SWIFT code for the EUR account: {v}",
            "MT103 field 57A: {v}",
            "Code BIC du fournisseur : {v}",
        ],
    ),
    (
        "aba_routing_number",
        lambda r: {"v": str(r.randrange(10**8, 10**9))},
        [
            "ACH routing {v} (public, from the bank's site)",
            "remit-to routing number: {v}",
            "| Wells | routing {v} | acct ending 4411 |",
            "ABA {v} is on the W-9 / remittance form",
        ],
    ),
    (
        "bank_file_sha256",
        lambda r: {"v": rs(r, 64, HEX)},
        [
            "positive pay file sha256 {v}, matched the bank's ack",
            "sha256sum PAY_20251201.xml -> {v}",
            "BAI2 file checksum: {v}",
            "{v}  ACME_POSPAY_20251201.csv",
        ],
    ),
    (
        "export_md5",
        lambda r: {"v": rs(r, 32, HEX)},
        [
            "md5 of the TB export sent to auditors: {v}",
            'ETag "{v}" on s3 object tb_2025_11.csv',
            "Prüfsumme (MD5) der Lohndatei: {v}",
            "md5sum payroll_journal.csv = {v} (matches ADP download)",
        ],
    ),
    (
        "ssh_host_key_fingerprint",
        lambda r: {"v": "SHA256:" + rs(r, 43, B64)},
        [
            "bank sftp host key fingerprint {v} - verify before accepting",
            "ED25519 key fingerprint is {v}.",
            "known host for sftp.bank-connect.example-bank.com: {v}",
            "Fingerabdruck des SFTP-Hostschlüssels der Bank: {v}",
        ],
    ),
    (
        "pgp_public_key_block",
        lambda r: {
            "v": "-----BEGIN PGP PUBLIC KEY BLOCK-----\n\n"
            + b64lines(r, 400)
            + "\n="
            + rs(r, 4, B64)
            + "\n-----END PGP PUBLIC KEY BLOCK-----"
        },
        [
            "bank's public key, encrypt outgoing payment files with this:\n{v}",
            "our PUBLIC key, sent to the bank onboarding team:\n{v}",
            "{v}",
        ],
    ),
    (
        "x509_certificate_pem",
        lambda r: {"v": pem(r, "CERTIFICATE", 700)},
        [
            "ADP client cert (public half, the key lives in the vault):\n{v}",
            "bank's server certificate for pinning:\n{v}",
            "{v}",
        ],
    ),
    (
        "placeholder_token",
        lambda r: {
            "v": r.choice(
                [
                    "<your-token>",
                    "<STRIPE_SECRET_KEY>",
                    "YOUR_API_KEY_HERE",
                    "sk_live_xxxxxxxxxxxxxxxxxxxxxxxx",
                    "xxxx-xxxx-xxxx",
                    "<client_secret>",
                    "********",
                ]
            )
        },
        [
            "curl https://api.stripe.com/v1/charges -u {v}:",
            "set AVALARA_LICENSE_KEY={v} in your .env",
            "template for new hires: PLAID_SECRET={v}",
            "client_secret: {v}  # fill in from 1Password",
        ],
    ),
    (
        "masked_key_last4",
        lambda r: {"v": r.choice(["sk_live_", "rk_live_", "whsec_", ""]) + "****" + rs(r, 4)},
        [
            "Stripe dashboard shows the key as {v}, that's the one to roll",
            "key ending {v} was used in the failed request",
            "rotated; new key {v} (full value in 1Password)",
        ],
    ),
    (
        "env_var_reference",
        lambda r: {
            "v": r.choice(
                [
                    "${STRIPE_SECRET_KEY}",
                    "$PLAID_SECRET",
                    "${NS_TOKEN_SECRET}",
                    "%ZUORA_CLIENT_SECRET%",
                    "os.environ['ADP_CLIENT_SECRET']",
                    "{{ secrets.CHARGEBEE_API_KEY }}",
                ]
            )
        },
        [
            "the job reads the key from {v}, don't hardcode",
            "password: {v}",
            "curl -u {v}: https://api.stripe.com/v1/balance",
            "api_key = {v}",
        ],
    ),
    (
        "vault_path_reference",
        lambda r: {
            "v": r.choice(
                [
                    "secret/finance/netsuite/tba",
                    "kv/revops/stripe-live",
                    "op://Finance/Plaid prod/secret",
                    "arn:aws:secretsmanager:us-east-1:123456789012:secret:fin/adp-" + rs(r, 6),
                ]
            )
        },
        [
            "creds are in {v}",
            "vault kv get {v}",
            "pull the password from {v} - ask Sam for access",
            "Zugangsdaten liegen unter {v}",
        ],
    ),
    (
        "password_policy_text",
        lambda r: {"v": f"{r.choice([12, 14, 16])} characters"},
        [
            "policy: ERP passwords min {v}, rotate every 90 days, no reuse of last 5",
            "SOX ITGC: shared accounts need a vault entry, passwords at least {v}",
            "reminder: Workday ISU passwords must be {v} and not expire",
        ],
    ),
    (
        "default_changeme_placeholder",
        lambda r: {"v": r.choice(["changeme", "password", "admin", "CHANGE_ME", "TODO"])},
        [
            "local docker netsuite-mock: user admin password {v}",
            "DB_PASSWORD={v}  # dev compose only",
            "the seed script sets every test user to '{v}'",
        ],
    ),
    (
        "salesforce_record_id",
        lambda r: {"v": r.choice(["001", "006", "0Q0", "a0B"]) + rs(r, 15, A62)},
        [
            "opp {v} closed-won but no order in Zuora",
            "https://acme.lightning.force.com/lightning/r/Opportunity/{v}/view",
            "| {v} | Renewal FY26 | 84,000 | booked |",
            "Account {v} (Globex) needs a new billing contact",
        ],
    ),
    (
        "salesforce_consumer_key",
        lambda r: {"v": "3MVG9" + rs(r, 80, A62 + "._")},
        [
            "connected app consumer key (client id, not secret): {v}",
            "SF_CLIENT_ID={v}",
            "JWT bearer flow iss = {v}",
        ],
    ),
    (
        "recaptcha_site_key",
        lambda r: {"v": "6L" + rs(r, 38, A62 + "-_")},
        [
            "recaptcha site key on the billing portal signup: {v} (public)",
            'data-sitekey="{v}"',
            "RECAPTCHA_SITE_KEY={v}",
        ],
    ),
    (
        "avalara_account_id",
        lambda r: {"v": str(r.randrange(1100000000, 2099999999))},
        [
            "AvaTax account number {v}, company code ACME_US",
            "Avalara support case references account {v}",
            "avalara acct id {v} (license key is in the vault)",
        ],
    ),
    (
        "zuora_subscription_number",
        lambda r: {"v": "A-S" + str(r.randrange(10**7, 10**8))},
        [
            "amendment failed on {v}, term dates overlap",
            "customer wants {v} co-termed with the new one",
            "Suscripción {v} cancelada al final del periodo",
        ],
    ),
    (
        "adp_associate_id",
        lambda r: {"v": rs(r, 3, string.ascii_uppercase) + rs(r, 6, UP_DIG)},
        [
            "ADP associate id {v} missing from the GL mapping",
            "new hire {v} didn't flow to the payroll journal",
            "File number / AOID {v}",
        ],
    ),
    (
        "workday_wid",
        lambda r: {"v": rs(r, 32, HEX)},
        [
            "cost center WID {v} was inactivated, journal import fails",
            "Workday WID for the ledger account: {v}",
            '<wd:ID wd:type="WID">{v}</wd:ID>',
            "supervisory org WID {v} -> dept 410 mapping",
        ],
    ),
    (
        "chargebee_subscription_id",
        lambda r: {"v": rs(r, 16, A62)},
        [
            "chargebee sub {v} stuck in non_renewing",
            "https://acme.chargebee.com/d/subscriptions/{v}",
            "| {v} | Growth annual | active |",
            "Suscripción de Chargebee {v} en estado paused",
        ],
    ),
    (
        "gusto_company_uuid",
        lambda r: {"v": uuid4(r)},
        [
            "Gusto company uuid {v} (the Canadian entity is separate)",
            "GET /v1/companies/{v}/payrolls",
            "payroll run id {v} processed late",
        ],
    ),
    (
        "ebics_ini_letter_hash",
        lambda r: {"v": " ".join(rs(r, 2, HEXU) for _ in range(32))},
        [
            "EBICS INI-Brief Hashwert A006: {v}",
            "hash from the INI letter (compare with bank): {v}",
            "HIA letter X002 hash\n{v}",
        ],
    ),
    (
        "idempotency_key",
        lambda r: {"v": uuid4(r)},
        [
            "retry with the same Idempotency-Key: {v}",
            "curl https://api.stripe.com/v1/refunds -H 'Idempotency-Key: {v}' -u $STRIPE_SECRET_KEY:",
            "payout batch idempotency key {v}",
            "Idempotenzschlüssel für den Zahlungslauf: {v}",
        ],
    ),
    (
        "google_sheet_id",
        lambda r: {"v": "1" + rs(r, 43, B64U)},
        [
            "board pack lives in https://docs.google.com/spreadsheets/d/{v}/edit#gid=0",
            "SHEET_ID={v}",
            "Forecast v7 sheet id {v}",
            '=IMPORTRANGE("{v}", "Bookings!A1:F200")',
        ],
    ),
    (
        "google_oauth_client_id",
        lambda r: {
            "v": str(r.randrange(10**11, 10**12))
            + "-"
            + rs(r, 32, "abcdefghijklmnopqrstuvwxyz0123456789")
            + ".apps.googleusercontent.com"
        },
        [
            "OAuth client id for the Sheets add-on: {v}",
            "GOOGLE_CLIENT_ID={v}",
            "consent screen app client {v}",
        ],
    ),
    (
        "slack_channel_id",
        lambda r: {"v": "C0" + rs(r, 9, UP_DIG)},
        [
            "post close checklist to channel {v} (#fin-close)",
            "SLACK_CHANNEL={v}",
            "bot must be invited to {v}",
        ],
    ),
    (
        "docker_image_digest",
        lambda r: {"v": "sha256:" + rs(r, 64, HEX)},
        [
            "billing-worker image pinned to {v}",
            "docker pull ghcr.io/acme-saas/revrec@{v}",
            "rollback target digest {v}",
            "image: ghcr.io/acme-saas/billing-worker@{v}",
        ],
    ),
    (
        "revoked_stripe_key_stated_revoked",
        lambda r: {"v": "sk_live_" + rs(r, 24)},
        [
            "INCIDENT: {v} was pasted in #general; rolled in the dashboard at 10:02, REVOKED, no usage after",
            "old key {v} is revoked (expired immediately on roll) - keeping here only for the incident log",
        ],
    ),
    (
        "bcrypt_hash",
        lambda r: {"v": "$2b$12$" + rs(r, 53, A62 + "./")},
        [
            "fin-tools users table row for ap-bot has hash {v}",
            "password_hash = '{v}'",
            "stored hash only: {v}",
            "bcrypt output looks like {v} - that is a hash, not the password",
        ],
    ),
    (
        "swift_uetr",
        lambda r: {"v": uuid4(r)},
        [
            "gpi tracker UETR {v}, funds credited 09:41",
            "Wire stuck at intermediary, UETR {v}",
            "UETR de la transferencia: {v}",
        ],
    ),
    (
        "gl_account_and_po_numbers",
        lambda r: {"v": f"PO-{r.randrange(10000, 99999)}"},
        [
            "AWS bill coded to 6420 under {v}",
            "{v} approved by Jen, receive in NetSuite before paying",
            "| {v} | 6110 Software | 12,500.00 | open |",
        ],
    ),
    (
        "ssh_public_key",
        lambda r: {
            "v": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + rs(r, 43, B64) + " treasury-bot@acme"
        },
        [
            "public key to send to the bank for SFTP onboarding:\n{v}",
            "authorized_keys on the lockbox relay:\n{v}",
            "Öffentlicher Schlüssel für die Bank: {v}",
        ],
    ),
    (
        "stripe_connect_account_id",
        lambda r: {"v": "acct_1" + rs(r, 15)},
        [
            "reseller payouts go to connected account {v}",
            "Stripe-Account: {v} header needed for the partner invoices",
            "| partner | {v} | express | payouts enabled |",
        ],
    ),
    (
        "vat_number",
        lambda r: {"v": r.choice(["DE", "FR", "NL"]) + rs(r, 9, string.digits)},
        [
            "customer VAT ID {v} validated in VIES, reverse charge applies",
            "USt-IdNr. des Kunden: {v}",
            "Avalara exemption cert on file for {v}",
        ],
    ),
    (
        "netsuite_account_url",
        lambda r: {"v": f"https://{r.randrange(1000000, 9999999)}-sb1.app.netsuite.com"},
        [
            "sandbox UI: {v}/app/center/card.nl",
            "RESTlet host is {v} with app. swapped for restlets.api.",
            "sb login page {v}",
        ],
    ),
    (
        "stripe_signature_header",
        lambda r: {"v": f"t={r.randrange(1700000000, 1800000000)},v1={rs(r, 64, HEX)}"},
        [
            "signature check failed for header Stripe-Signature: {v} (clock skew)",
            "logged Stripe-Signature {v}",
            "sig header on the replayed event: {v}",
        ],
    ),
    (
        "redacted_connection_string",
        lambda r: {
            "v": "postgresql://billing_rw:[REDACTED]@billing-db.prod.acme.internal:5432/billing"
        },
        [
            "conn string (redacted): {v}",
            "DATABASE_URL={v}",
            "error log showed {v} - password was stripped by the logger",
        ],
    ),
    (
        "check_and_ach_trace_numbers",
        lambda r: {"v": str(r.randrange(10**14, 10**15))},
        [
            "ACH trace number {v} for the Nov payroll funding",
            "lockbox deposit trace {v}, 14 checks",
            "Rastreo ACH: {v}",
        ],
    ),
]


def corpus() -> list[dict]:
    r = random.Random(SEED)
    rows = []
    for label, kinds in (("secret", SECRET_KINDS), ("benign", BENIGN_KINDS)):
        for kind, gen, templates in kinds:
            for t in templates:
                d = gen(r)
                text = t.format(**d)
                assert d["v"] in text, (kind, t)
                rows.append({"label": label, "kind": kind, "text": text, "value": d["v"]})
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

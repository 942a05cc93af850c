"""Blind secret-detection corpus 32: a fintech startup's shared agent memory.

Eighteen months of a fintech startup's shared agent memory, the way an ordinary team's
memory reads: payments and banking integrations (Stripe, Adyen, Braintree, Checkout.com,
Plaid, TrueLayer, Wise, Marqeta, Unit, Modern Treasury, SWIFT/SEPA test portals, card
issuing sandboxes vs live), webhook signing secrets, HSM/KMS notes, PCI scoping, fraud
vendors (Sift, Sardine), KYC vendors (Onfido, Persona), accounting exports, on-call notes,
decisions and conventions. Look-alikes: publishable/public keys, test-mode keys clearly
marked as test, card test numbers, IBAN examples, BIC codes, merchant ids, idempotency
keys, payment intent ids, webhook endpoint ids, masked PANs, tokenised card references,
KMS key ARNs, redacted values, values in vault references.

Written blind on 2026-12-07: the author did not read the detector, its tests or any
earlier corpus.

Run: python blind_secrets_32.py [out.jsonl]   (JSONL to the path, or stdout)

Every random value is generated from random.Random(SEED); no real credential appears.

Kinds, secret: stripe_secret_key_live, stripe_restricted_key_live, stripe_webhook_secret,
stripe_connect_access_token, adyen_api_key, adyen_hmac_key, adyen_ws_user_password,
braintree_private_key, braintree_access_token, checkout_secret_key,
checkout_webhook_auth_key, plaid_secret, plaid_access_token, truelayer_client_secret,
wise_api_token, marqeta_admin_access_token, unit_api_token, modern_treasury_api_key,
sift_api_key, sardine_client_secret, onfido_api_token, persona_api_key, alloy_api_secret,
aws_access_key_pair, aws_secret_access_key, gcp_service_account_key, rsa_private_key,
openssh_private_key, pgp_private_key, ec_private_key_request_signing, postgres_url_password,
redis_url_password, jwt_hs256_secret, cloudhsm_crypto_user_password, kms_plaintext_data_key,
card_dek_hex, slack_webhook_url, pagerduty_routing_key, github_pat, gitlab_pat,
datadog_api_key, sendgrid_api_key, twilio_auth_token, npm_token, quickbooks_refresh_token,
netsuite_token_secret, bank_sftp_password, swift_portal_password, backoffice_session_cookie,
basic_auth_header, bearer_token_curl, okta_api_token, vault_token, compose_db_password,
mailgun_api_key, marqeta_webhook_password, rails_secret_key_base, fernet_key,
snowflake_password_dsn, google_oauth_client_secret, vault_unseal_key, totp_seed,
bank_portal_recovery_codes, pgp_key_passphrase.

Kinds, benign: stripe_publishable_key_live, stripe_publishable_key_test,
stripe_docs_example_key, stripe_key_placeholder, stripe_key_redacted_last4,
stripe_payment_intent_id, stripe_customer_id, stripe_webhook_endpoint_id, stripe_event_id,
stripe_account_id, stripe_request_id, stripe_signature_header_captured, idempotency_key,
test_card_number, masked_pan, tokenised_card_reference, iban_example, bic_code,
adyen_psp_reference, adyen_client_key, adyen_merchant_account, braintree_public_key_and_merchant,
braintree_tokenization_key, braintree_test_nonce, checkout_public_key, checkout_payment_id,
plaid_client_id, plaid_item_id, truelayer_client_id, wise_profile_and_transfer_id,
marqeta_card_token, card_bin_range, modern_treasury_payment_order_id, kms_key_arn,
kms_key_id_alias, kms_ciphertext_blob, cloudhsm_cluster_id, vault_kv_reference,
onepassword_reference, github_actions_secret_ref, secrets_manager_arn, env_var_name_only,
angle_bracket_placeholder, revoked_key_last4_only, sha256_file_digest, git_commit_sha,
docker_image_digest, sift_session_id, sardine_session_key, onfido_applicant_id,
persona_inquiry_id, pgp_public_key_block, ssh_public_key, x509_certificate,
jwks_public_modulus, password_policy_talk, sandbox_3ds_challenge_password,
token_other_sense, pagination_cursor_base64, sepa_end_to_end_id, swift_uetr,
aba_routing_test_account, apple_pay_merchant_identifier, sentry_dsn_public,
datadog_rum_client_token, quickbooks_realm_id, xero_tenant_id, netsuite_account_id,
pagerduty_ids, unit_ids, portal_username_only, ip_allowlist, npm_integrity_hash,
plaid_sandbox_public_login, accounting_export_batch_id.
"""

# ruff: noqa: E501
import base64
import json
import random
import string
import sys

SEED = 3232

ALNUM = string.ascii_letters + string.digits
LOWER_ALNUM = string.ascii_lowercase + string.digits
UPPER_ALNUM = string.ascii_uppercase + string.digits
HEX = "0123456789abcdef"
B64 = string.ascii_letters + string.digits + "+/"
B64URL = string.ascii_letters + string.digits + "-_"
B32 = string.ascii_uppercase + "234567"


def corpus() -> list[dict]:
    r = random.Random(SEED)

    def s(alpha: str, n: int) -> str:
        return "".join(r.choice(alpha) for _ in range(n))

    def hx(n: int) -> str:
        return s(HEX, n)

    def uid() -> str:
        h = hx(32)
        h = h[:12] + "4" + h[13:16] + r.choice("89ab") + h[17:]
        return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"

    def b64(nbytes: int) -> str:
        n = (nbytes + 2) // 3 * 4
        pad = (3 - nbytes % 3) % 3
        return s(B64, n - pad) + "=" * pad

    def pem_body(lines: int) -> str:
        return "\n".join(s(B64, 64) for _ in range(lines)) + "\n" + s(B64, 40) + "=="

    def pem(label: str, lines: int = 6) -> str:
        return f"-----BEGIN {label}-----\n{pem_body(lines)}\n-----END {label}-----"

    rows: list[dict] = []

    def add(label: str, kind: str, templates: list[str], gen) -> None:
        for t in templates:
            fixed = None
            if isinstance(t, tuple):
                t, fixed = t
            d = gen()
            text = t
            for k, v in d.items():
                text = text.replace("{" + k + "}", v)
            value = d.get("v", "") if fixed is None else fixed
            assert value in text, (kind, t)
            rows.append({"label": label, "kind": kind, "text": text, "value": value})

    S, B = "secret", "benign"

    # ------------------------------------------------------------------ secrets
    add(
        S,
        "stripe_secret_key_live",
        [
            "Stripe live secret for the payouts service (prod account): {v}\nOnly the ledger worker should load it.",
            "STRIPE_SECRET_KEY={v}\n# prod, copied from dashboard 2025-03-02 by dana",
            "note to self: the reconciliation script was failing because it still had the old key; new one is {v} — update the cron box too",
        ],
        lambda: {"v": "sk_live_" + s(ALNUM, 99)},
    )
    add(
        S,
        "stripe_restricted_key_live",
        [
            "Restricted key for the accounting export (read-only on balance txns, live): {v}",
            "finance asked for a rk for the Xero sync. Created `{v}` with Charges:read, Payouts:read.",
            "stripe:\n  mode: live\n  restricted_key: {v}\n  scopes: [refunds:write]",
        ],
        lambda: {"v": "rk_live_" + s(ALNUM, 99)},
    )
    add(
        S,
        "stripe_webhook_secret",
        [
            "Signing secret for we_ endpoint /hooks/stripe (prod): {v}",
            "STRIPE_WEBHOOK_SECRET={v}  # live endpoint, rotated after the March incident",
            'When verifying signatures in the Go handler use stripe.ConstructEvent(body, sig, "{v}") — TODO move to env',
        ],
        lambda: {"v": "whsec_" + s(ALNUM, 32)},
    )
    add(
        S,
        "stripe_connect_access_token",
        [
            "OAuth exchange for connected account acct_1Nx worked; access_token returned: {v} (livemode true). Store in vault!",
            "Connect platform: merchant Bakehouse Ltd's token is {v}, refresh via /oauth/token if it breaks.",
        ],
        lambda: {"v": "sk_live_" + s(ALNUM, 24)},
    )
    add(
        S,
        "adyen_api_key",
        [
            "Adyen LIVE API key (ws_user ws_318822@Company.FinchPay): {v}",
            "X-API-Key: {v}\nendpoint https://8f1e2c3d-finchpay-checkout-live.adyenpayments.com/checkout/v71/payments",
            'adyen:\n  environment: LIVE\n  api_key: "{v}"',
        ],
        lambda: {
            "v": "AQE"
            + s(ALNUM, 2)
            + "hmfx"
            + s(ALNUM, 40)
            + "=-"
            + s(ALNUM + "+/", 44)
            + "=-"
            + s(ALNUM, 12)
        },
    )
    add(
        S,
        "adyen_hmac_key",
        [
            "Adyen notification HMAC key for the live standard webhook: {v}",
            "ADYEN_HMAC_KEY={v}\n# generated in CA > Webhooks > Standard, prod",
            "hmac for adyen webhooks (prod merchant FinchPayEU) = {v}",
        ],
        lambda: {"v": s("0123456789ABCDEF", 64)},
    )
    add(
        S,
        "adyen_ws_user_password",
        [
            "Adyen ws user for legacy SOAP payouts: ws_payout@Company.FinchPay / password {v}",
            "basic auth for adyen payout api → user ws_772110@Company.FinchPay pass: {v}",
        ],
        lambda: {"v": s(ALNUM, 10) + r.choice("!#%&*") + s(ALNUM, 9)},
    )
    add(
        S,
        "braintree_private_key",
        [
            "Braintree production creds: merchant_id {m}, public_key {p}, private_key {v}",
            "BT_PRIVATE_KEY={v}\nBT_ENV=production",
            "braintree gateway config for the marketplace:\n  merchantId: {m}\n  privateKey: {v}",
        ],
        lambda: {"v": hx(32), "m": s(LOWER_ALNUM, 16), "p": s(LOWER_ALNUM, 16)},
    )
    add(
        S,
        "braintree_access_token",
        [
            "PayPal-via-Braintree access token for the SDK server side: {v}",
            "BRAINTREE_ACCESS_TOKEN={v}",
        ],
        lambda: {"v": "access_token$production$" + s(LOWER_ALNUM, 16) + "$" + hx(32)},
    )
    add(
        S,
        "checkout_secret_key",
        [
            "Checkout.com live secret key (NAS): {v} — processing channel pc_ for EU",
            "CKO_SECRET_KEY={v}\nCKO_ENV=production",
            "Authorization: Bearer {v}  (checkout.com prod, used in refunds cron)",
        ],
        lambda: {"v": "sk_" + s(LOWER_ALNUM, 26)},
    )
    add(
        S,
        "checkout_webhook_auth_key",
        [
            "Checkout.com webhook 'Authorization header key' we set on the prod workflow: {v}",
            "cko webhooks: signature key (prod) = {v}; check Cko-Signature HMAC-SHA256 against it",
        ],
        lambda: {"v": uid()},
    )
    add(
        S,
        "plaid_secret",
        [
            "Plaid production: client_id {c} secret {v}",
            "PLAID_SECRET={v}\nPLAID_ENV=production",
            "rotated plaid prod secret today, new value {v}. old one disabled in dashboard.",
        ],
        lambda: {"v": hx(30), "c": hx(24)},
    )
    add(
        S,
        "plaid_access_token",
        [
            "Access token for Item of test user (production, Chase): {v}",
            "Debugging balance fetch for customer 88213 — their plaid access_token is {v}",
            'curl -X POST https://production.plaid.com/accounts/balance/get -d \'{"access_token": "{v}"}\'',
        ],
        lambda: {"v": "access-production-" + uid()},
    )
    add(
        S,
        "truelayer_client_secret",
        [
            "TrueLayer live client_secret: {v}",
            "TL_CLIENT_SECRET={v}\nTL_CLIENT_ID=finchpay-4b2e91",
        ],
        lambda: {"v": uid()},
    )
    add(
        S,
        "wise_api_token",
        [
            "Wise business API token (full access, live) for treasury sweeps: {v}",
            'curl -H "Authorization: Bearer {v}" https://api.transferwise.com/v1/profiles',
            "WISE_API_TOKEN={v} # live profile 1837221",
        ],
        lambda: {"v": uid()},
    )
    add(
        S,
        "marqeta_admin_access_token",
        [
            "Marqeta PROD: application token {a}, admin access token {v}",
            "MQ_ADMIN_TOKEN={v}\nMQ_APP_TOKEN={a}\nMQ_BASE=https://finchpay-api.marqeta.com/v3",
        ],
        lambda: {"v": uid(), "a": uid()},
    )
    add(
        S,
        "unit_api_token",
        [
            "Unit org token (live, scopes customers accounts payments): {v}",
            "UNIT_TOKEN={v}",
        ],
        lambda: {"v": "v2.public." + s(B64URL, 260)},
    )
    add(
        S,
        "modern_treasury_api_key",
        [
            "Modern Treasury org id {o} / API key {v}",
            "MT_API_KEY={v}\nMT_ORG_ID={o}",
            "basic auth for MT is org_id:api_key → {o}:{v}",
        ],
        lambda: {"v": "live-" + s(ALNUM, 64), "o": uid()},
    )
    add(
        S,
        "sift_api_key",
        [
            "Sift production REST API key: {v} (account 60a1f)",
            "SIFT_API_KEY={v}",
        ],
        lambda: {"v": hx(16)},
    )
    add(
        S,
        "sardine_client_secret",
        [
            "Sardine prod creds → client id {c}, client secret {v}",
            "SARDINE_CLIENT_SECRET={v}",
        ],
        lambda: {"v": uid(), "c": uid()},
    )
    add(
        S,
        "onfido_api_token",
        [
            "Onfido live token: {v}",
            "Authorization: Token token={v}",
            "ONFIDO_API_TOKEN={v}  # EU region, live",
        ],
        lambda: {"v": "api_live." + s(B64URL, 11) + "." + s(B64URL, 32)},
    )
    add(
        S,
        "persona_api_key",
        [
            "Persona production API key for the KYC worker: {v}",
            "PERSONA_API_KEY={v}",
        ],
        lambda: {"v": "persona_production_" + uid()},
    )
    add(
        S,
        "alloy_api_secret",
        [
            "Alloy workflow token {t} with secret {v} (prod)",
            "ALLOY_SECRET={v}",
        ],
        lambda: {"v": s(ALNUM, 32), "t": s(ALNUM, 32)},
    )
    add(
        S,
        "aws_access_key_pair",
        [
            "ledger-exporter IAM user: AKIA{k} / {v}",
            "[finchpay-prod]\naws_access_key_id = AKIA{k}\naws_secret_access_key = {v}",
            "Temporary until SSO works: export AWS_ACCESS_KEY_ID=AKIA{k} AWS_SECRET_ACCESS_KEY={v}",
        ],
        lambda: {"v": s(ALNUM + "+/", 40), "k": s(UPPER_ALNUM, 16)},
    )
    add(
        S,
        "aws_secret_access_key",
        [
            "The secret access key for the s3 settlement-bucket writer is {v}",
            "aws_secret_access_key={v}",
        ],
        lambda: {"v": s(ALNUM + "+/", 40)},
    )
    add(
        S,
        "gcp_service_account_key",
        [
            'BigQuery finance export SA key json, private_key field:\n"private_key": "{v}"',
        ],
        lambda: {
            "v": "-----BEGIN PRIVATE KEY-----\\n"
            + s(B64, 64)
            + "\\n"
            + s(B64, 64)
            + "\\n"
            + s(B64, 30)
            + "==\\n-----END PRIVATE KEY-----\\n"
        },
    )
    add(
        S,
        "rsa_private_key",
        [
            "Client cert key for the SEPA bank H2H connection (prod):\n{v}",
            "mTLS key for Barclays sandbox→live cutover, paste into /etc/h2h/client.key:\n{v}",
        ],
        lambda: {"v": pem("RSA PRIVATE KEY", 4)},
    )
    add(
        S,
        "openssh_private_key",
        [
            "Deploy key for the SWIFT sftp drop (sftp.swift-bureau.example-bank.com):\n{v}",
            "id_ed25519 for the NACHA upload box:\n{v}",
        ],
        lambda: {
            "v": "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ"
            + s(B64, 22)
            + "\n"
            + s(B64, 70)
            + "\n"
            + s(B64, 70)
            + "\n"
            + s(B64, 30)
            + "=\n-----END OPENSSH PRIVATE KEY-----"
        },
    )
    add(
        S,
        "pgp_private_key",
        [
            "Our PGP secret key for decrypting bank statements (MT940) — keep off laptops:\n{v}",
        ],
        lambda: {"v": pem("PGP PRIVATE KEY BLOCK", 4)},
    )
    add(
        S,
        "ec_private_key_request_signing",
        [
            "TrueLayer request-signing key (kid 3f2a...):\n{v}",
            "Wise SCA signing private key used for /v3/profiles/*/balance-movements:\n{v}",
        ],
        lambda: {
            "v": "-----BEGIN EC PRIVATE KEY-----\n"
            + s(B64, 64)
            + "\n"
            + s(B64, 64)
            + "\n"
            + s(B64, 34)
            + "==\n-----END EC PRIVATE KEY-----"
        },
    )
    add(
        S,
        "postgres_url_password",
        [
            "ledger prod DSN: postgres://ledger_rw:{v}@ledger-prod.cluster-c9x.eu-west-1.rds.amazonaws.com:5432/ledger",
            "DATABASE_URL=postgresql://recon:{v}@10.20.4.11/recon?sslmode=require",
            'psql "host=pg-payments user=payments_admin password={v} dbname=payments"',
        ],
        lambda: {"v": s(ALNUM, 22)},
    )
    add(
        S,
        "redis_url_password",
        [
            "rate limiter redis: rediss://default:{v}@redis-prod-01.finch.internal:6380/0",
            "REDIS_URL=redis://:{v}@idem-cache:6379  (idempotency store, prod)",
        ],
        lambda: {"v": s(ALNUM, 28)},
    )
    add(
        S,
        "jwt_hs256_secret",
        [
            "Internal service-to-service JWT signing secret (HS256, prod): {v}",
            "JWT_SECRET={v}\n# shared by api-gateway and card-auth",
            "Backoffice tokens are signed with '{v}' — if we leak it anyone can mint admin tokens",
        ],
        lambda: {"v": s(ALNUM, 48)},
    )
    add(
        S,
        "cloudhsm_crypto_user_password",
        [
            "CloudHSM crypto user pin_svc password: {v}",
            "loginHSM -u CU -s pin_svc -p {v}",
            "HSM_PIN={v}  # CU for card PIN translation",
        ],
        lambda: {"v": s(ALNUM, 12) + r.choice("@#$") + s(ALNUM, 4)},
    )
    add(
        S,
        "kms_plaintext_data_key",
        [
            "GenerateDataKey output for the tokenisation vault — Plaintext: {v} (do NOT store, only the CiphertextBlob!) oops",
            "plaintext DEK for backfill job: {v}",
        ],
        lambda: {"v": b64(32)},
    )
    add(
        S,
        "card_dek_hex",
        [
            "PAN encryption key (AES-256) for the legacy card table: {v}",
            "CARD_DATA_KEY={v}",
        ],
        lambda: {"v": hx(64)},
    )
    add(
        S,
        "slack_webhook_url",
        [
            "#payments-alerts webhook: {v}",
            "ALERT_WEBHOOK={v}",
        ],
        lambda: {
            "v": "https://hooks.slack.com/services/T"
            + s(UPPER_ALNUM, 8)
            + "/B"
            + s(UPPER_ALNUM, 10)
            + "/"
            + s(ALNUM, 24)
        },
    )
    add(
        S,
        "pagerduty_routing_key",
        [
            "PagerDuty Events v2 routing key for the payouts service: {v}",
            "PD_ROUTING_KEY={v}",
        ],
        lambda: {"v": hx(32)},
    )
    add(
        S,
        "github_pat",
        [
            "Token for the release bot on finchpay org: {v}",
            "git clone https://x-access-token:{v}@github.com/finchpay/ledger.git",
            "GH_TOKEN={v}  # repo + workflow scope",
        ],
        lambda: {"v": "ghp_" + s(ALNUM, 36)},
    )
    add(
        S,
        "gitlab_pat",
        [
            "gitlab mirror PAT: {v}",
            "CI_PUSH_TOKEN={v}",
        ],
        lambda: {"v": "glpat-" + s(ALNUM + "-_", 20)},
    )
    add(
        S,
        "datadog_api_key",
        [
            "DD_API_KEY={v}",
            "datadog api key for the agent on the HSM bastion: {v}",
        ],
        lambda: {"v": hx(32)},
    )
    add(
        S,
        "sendgrid_api_key",
        [
            "SendGrid key for receipts & dunning emails: {v}",
            "SENDGRID_API_KEY={v}",
        ],
        lambda: {"v": "SG." + s(B64URL, 22) + "." + s(B64URL, 43)},
    )
    add(
        S,
        "twilio_auth_token",
        [
            "Twilio (OTP SMS) account AC{a} auth token {v}",
            "TWILIO_AUTH_TOKEN={v}",
        ],
        lambda: {"v": hx(32), "a": hx(32)},
    )
    add(
        S,
        "npm_token",
        [
            "//registry.npmjs.org/:_authToken={v}",
            "npm publish token for @finchpay/elements: {v}",
        ],
        lambda: {"v": "npm_" + s(ALNUM, 36)},
    )
    add(
        S,
        "quickbooks_refresh_token",
        [
            "QBO refresh token for realm 9130355 (valid 100 days): {v}",
            "QUICKBOOKS_REFRESH_TOKEN={v}",
        ],
        lambda: {"v": "AB11" + "".join(r.choice(string.digits) for _ in range(10)) + s(ALNUM, 36)},
    )
    add(
        S,
        "netsuite_token_secret",
        [
            "NetSuite TBA: consumer key {c}, consumer secret {v}",
            "NS_TOKEN_SECRET={v}",
        ],
        lambda: {"v": hx(64), "c": hx(64)},
    )
    add(
        S,
        "bank_sftp_password",
        [
            "SFTP to the sponsor bank (ach-files) user finchpay_ach pw: {v}",
            "sshpass -p '{v}' sftp finchpay@ftp.sponsorbank-h2h.com",
            "ACH sftp creds: finch_ach / {v}",
        ],
        lambda: {"v": s(ALNUM, 9) + r.choice("!$%^") + s(ALNUM, 5)},
    )
    add(
        S,
        "swift_portal_password",
        [
            "SWIFT test portal (MyStandards readiness) login: ops@finchpay.io / {v}",
            "SEPA test platform — user FINCHOPS, password {v}, certificate not needed in TEST",
        ],
        lambda: {
            "v": s(string.ascii_letters, 6) + s(string.digits, 4) + r.choice("!?#") + s(ALNUM, 3)
        },
    )
    add(
        S,
        "backoffice_session_cookie",
        [
            "For repro use my backoffice cookie: Cookie: bo_session={v}",
            "admin session for the dispute tool (still valid till Fri): session={v}",
        ],
        lambda: {"v": s(B64URL, 86)},
    )
    add(
        S,
        "basic_auth_header",
        [
            "curl -H 'Authorization: Basic {v}' https://recon.internal/api/runs",
            "the partner's callback sends Authorization: Basic {v} — that's our real prod cred",
        ],
        lambda: {"v": base64.b64encode(("recon_svc:" + s(ALNUM, 20)).encode()).decode()},
    )
    add(
        S,
        "bearer_token_curl",
        [
            'curl https://api.finchpay.io/v1/admin/payouts -H "Authorization: Bearer {v}"',
            "Ops API token (never expires!): {v}",
        ],
        lambda: {"v": "fp_live_" + s(ALNUM, 40)},
    )
    add(
        S,
        "okta_api_token",
        [
            "Okta API token for SCIM provisioning: {v}",
            "OKTA_API_TOKEN={v}",
        ],
        lambda: {"v": "00" + s(ALNUM + "-_", 40)},
    )
    add(
        S,
        "vault_token",
        [
            "root-ish vault token for the migration: {v}",
            "VAULT_TOKEN={v} vault kv get secret/payments/stripe",
        ],
        lambda: {"v": "hvs." + s(ALNUM + "_-", 90)},
    )
    add(
        S,
        "compose_db_password",
        [
            "docker-compose.prod.yml:\n  environment:\n    POSTGRES_PASSWORD: {v}",
            "MYSQL_ROOT_PASSWORD={v} on the old accounting box",
        ],
        lambda: {"v": s(ALNUM, 16)},
    )
    add(
        S,
        "mailgun_api_key",
        [
            "Mailgun key (statements domain): {v}",
            "MAILGUN_API_KEY={v}",
        ],
        lambda: {"v": "key-" + hx(32)},
    )
    add(
        S,
        "marqeta_webhook_password",
        [
            "Marqeta webhook config: url https://hooks.finchpay.io/marqeta, basic auth user mqhook, password {v}",
            "JIT funding endpoint auth — marqeta sends user jit_gw and secret {v}",
        ],
        lambda: {"v": s(ALNUM, 20) + r.choice("#%")},
    )
    add(
        S,
        "rails_secret_key_base",
        [
            "SECRET_KEY_BASE={v}",
            "legacy rails dashboard secret_key_base (prod): {v}",
        ],
        lambda: {"v": hx(128)},
    )
    add(
        S,
        "fernet_key",
        [
            "FERNET_KEY for encrypting bank tokens at rest: {v}",
            'Fernet(b"{v}") in oauth_store.py — that\'s the prod key',
        ],
        lambda: {"v": s(B64URL, 43) + "="},
    )
    add(
        S,
        "snowflake_password_dsn",
        [
            "snowflake://finance_loader:{v}@finchpay.eu-central-1/ANALYTICS/LEDGER?warehouse=EXPORT_WH",
            "SNOWFLAKE_PASSWORD={v}",
        ],
        lambda: {"v": s(ALNUM, 18)},
    )
    add(
        S,
        "google_oauth_client_secret",
        [
            "Google Workspace SSO client secret for backoffice: {v}",
            "GOOGLE_CLIENT_SECRET={v}",
        ],
        lambda: {"v": "GOCSPX-" + s(ALNUM + "-_", 28)},
    )
    add(
        S,
        "vault_unseal_key",
        [
            "Vault unseal key 2 of 5 (Marta's share): {v}",
            "Unseal Key 1: {v}",
        ],
        lambda: {"v": b64(33)},
    )
    add(
        S,
        "totp_seed",
        [
            "TOTP seed for the shared bank portal 2FA (so on-call can log in): {v}",
            "otpauth://totp/SponsorBank:treasury?secret={v}&issuer=SponsorBank",
        ],
        lambda: {"v": s(B32, 32)},
    )
    add(
        S,
        "bank_portal_recovery_codes",
        [
            "Recovery codes for treasury@ bank portal: {v} 7781-20431 5531-88120",
            "if the yubikey is lost, backup code {v} still works (unused)",
        ],
        lambda: {
            "v": "".join(r.choice(string.digits) for _ in range(4))
            + "-"
            + "".join(r.choice(string.digits) for _ in range(5))
        },
    )
    add(
        S,
        "pgp_key_passphrase",
        [
            "passphrase for the bank-statements PGP key: {v}",
            "gpg --batch --passphrase '{v}' -d statement_2025-06.mt940.gpg",
        ],
        lambda: {
            "v": "-".join(
                r.choice(
                    [
                        "copper",
                        "lantern",
                        "viaduct",
                        "orchid",
                        "tundra",
                        "ferrous",
                        "basalt",
                        "quill",
                        "marrow",
                        "ochre",
                    ]
                )
                for _ in range(4)
            )
            + str(r.randint(10, 99))
        },
    )

    # ------------------------------------------------------------------- benign
    add(
        B,
        "stripe_publishable_key_live",
        [
            "Frontend uses the live publishable key {v} — fine to ship in the bundle.",
            "NEXT_PUBLIC_STRIPE_PK={v}",
            "Stripe.js init: Stripe('{v}') on checkout.finchpay.io",
        ],
        lambda: {"v": "pk_live_" + s(ALNUM, 99)},
    )
    add(
        B,
        "stripe_publishable_key_test",
        [
            "Storybook uses the TEST publishable key {v}",
            "pk for test mode (sandbox only): {v}",
        ],
        lambda: {"v": "pk_test_" + s(ALNUM, 99)},
    )
    add(
        B,
        "stripe_docs_example_key",
        [
            "Snippet copied from Stripe's public docs uses their sample test key sk_test_4eC39HqLyjWDarjtT1zdp7dc — that's Stripe's documented example, not ours.",
            "Don't be alarmed by sk_test_4eC39HqLyjWDarjtT1zdp7dc in the README example: it's the key from Stripe's API reference, it belongs to a public demo account.",
        ],
        lambda: {"v": "sk_test_4eC39HqLyjWDarjtT1zdp7dc"},
    )
    add(
        B,
        "stripe_key_placeholder",
        [
            (
                "STRIPE_SECRET_KEY=sk_live_XXXXXXXXXXXXXXXXXXXXXXXX  # fill from vault at deploy",
                "sk_live_XXXXXXXXXXXXXXXXXXXXXXXX",
            ),
            (
                "Example .env for new devs:\nSTRIPE_SECRET_KEY=sk_live_your_key_here\nSTRIPE_WEBHOOK_SECRET=whsec_...",
                "sk_live_your_key_here",
            ),
            (
                "template: rk_live_<restricted-key-from-1password> (never commit the real one)",
                "rk_live_",
            ),
        ],
        lambda: {"v": "sk_live_"},
    )
    add(
        B,
        "stripe_key_redacted_last4",
        [
            "The compromised key was sk_live_…{v}; rolled and revoked 2025-08-11, new one lives in vault.",
            "Dashboard shows the active restricted key as rk_live_************************{v}",
            "Audit log: key ending {v} created by dana@, scope payouts:write",
        ],
        lambda: {"v": s(ALNUM, 4)},
    )
    add(
        B,
        "stripe_payment_intent_id",
        [
            "Customer complained about double charge, see {v} and the retry 2s later.",
            "pi to refund manually: {v} (amount 4200 EUR cents)",
            "stuck in requires_action: {v}",
        ],
        lambda: {"v": "pi_3" + s(ALNUM, 23)},
    )
    add(
        B,
        "stripe_customer_id",
        [
            "Merchant's Stripe customer is {v}; subscription sub_1P{x}",
            "cus id for the QA account: {v}",
        ],
        lambda: {"v": "cus_" + s(ALNUM, 14), "x": s(ALNUM, 22)},
    )
    add(
        B,
        "stripe_webhook_endpoint_id",
        [
            "Prod webhook endpoint id {v} (URL https://hooks.finchpay.io/stripe). Secret is in vault at payments/stripe/webhook.",
            "Disabled endpoint {v} after we moved to event destinations.",
        ],
        lambda: {"v": "we_1" + s(ALNUM, 23)},
    )
    add(
        B,
        "stripe_event_id",
        [
            "Replay event {v} with `stripe events resend` once the handler is fixed.",
            "Dedupe on event id (e.g. {v}), not on payload hash.",
        ],
        lambda: {"v": "evt_1" + s(ALNUM, 23)},
    )
    add(
        B,
        "stripe_account_id",
        [
            "Connected account {v} is restricted pending KYC docs.",
            "Platform account id: {v} (not a credential, appears in every webhook)",
        ],
        lambda: {"v": "acct_1" + s(ALNUM, 15)},
    )
    add(
        B,
        "stripe_request_id",
        [
            "Stripe support asked for the request id: {v}",
            "500 from Stripe at 14:02, Request-Id {v}",
        ],
        lambda: {"v": "req_" + s(ALNUM, 14)},
    )
    add(
        B,
        "stripe_signature_header_captured",
        [
            "Captured header from last month's failed delivery for the postmortem: Stripe-Signature: t=1722840112,v1={v} (timestamp long outside tolerance)",
            "Signature mismatch example (computed over the raw body of evt_1PQ...): v1={v}",
        ],
        lambda: {"v": hx(64)},
    )
    add(
        B,
        "idempotency_key",
        [
            "Convention: Idempotency-Key = payout uuid, e.g. {v}",
            "Retried transfer with the same idempotency key {v} — Stripe returned the cached response.",
            'idempotency_key: "{v}"  # per attempt, stored on the ledger row',
        ],
        lambda: {"v": uid()},
    )
    add(
        B,
        "test_card_number",
        [
            (
                "Test cards: 4242 4242 4242 4242 (success), 4000 0000 0000 9995 (insufficient funds), any CVC.",
                "4242 4242 4242 4242",
            ),
            ("3DS test: use 4000002760003184 in test mode, exp 12/34", "4000002760003184"),
            (
                "Adyen test Mastercard 5555 3412 4444 1115 with expiry 03/30 and CVC 737",
                "5555 3412 4444 1115",
            ),
        ],
        lambda: {"v": ""},
    )
    add(
        B,
        "masked_pan",
        [
            "Dispute on card {v}, merchant says chargeback reason 10.4.",
            "Logs must only show masked PAN like {v}; found one line with full PAN, scrubbed.",
        ],
        lambda: {
            "v": r.choice(["411111", "535522", "424242"])
            + "******"
            + "".join(r.choice(string.digits) for _ in range(4))
        },
    )
    add(
        B,
        "tokenised_card_reference",
        [
            "Saved card is referenced by {v}; we never see the PAN (PCI scope stays SAQ A).",
            "payment_method for test merchant: {v}",
            "Vault token for the card (tokenisation service, reversible only inside the CDE): {v}",
        ],
        lambda: {"v": r.choice(["pm_1", "tok_1"]) + s(ALNUM, 23)},
    )
    add(
        B,
        "iban_example",
        [
            (
                "Sample IBAN for SEPA CT tests: DE89 3704 0044 0532 0130 00 (the standard example from the spec)",
                "DE89 3704 0044 0532 0130 00",
            ),
            (
                "Validation unit test uses GB82WEST12345698765432 — the textbook IBAN.",
                "GB82WEST12345698765432",
            ),
        ],
        lambda: {"v": ""},
    )
    add(
        B,
        "bic_code",
        [
            "Counterparty BIC {v}; intermediary not needed for SEPA.",
            "pacs.008 DbtrAgt/FinInstnId/BICFI = {v}",
        ],
        lambda: {"v": r.choice(["DEUTDEFF", "COBADEFFXXX", "BARCGB22", "INGBNL2A", "BNPAFRPPXXX"])},
    )
    add(
        B,
        "adyen_psp_reference",
        [
            "Adyen pspReference {v} shows REFUSED (Not enough balance).",
            "Refund modification ref {v} for original payment 8816{x}",
        ],
        lambda: {
            "v": "".join(r.choice(string.ascii_uppercase + string.digits) for _ in range(16)),
            "x": "".join(r.choice(string.digits) for _ in range(12)),
        },
    )
    add(
        B,
        "adyen_client_key",
        [
            "Adyen client key for Drop-in (public, allowed origins configured): {v}",
            "clientKey: '{v}' in web checkout config",
        ],
        lambda: {"v": "live_" + s(UPPER_ALNUM, 32)},
    )
    add(
        B,
        "adyen_merchant_account",
        [
            "Adyen merchant accounts: FinchPayEU_ECOM, FinchPayUK_POS; company account {v}",
            "merchantAccount must be {v} for platform payouts",
        ],
        lambda: {
            "v": "FinchPay"
            + r.choice(["Ltd", "GmbH", "Platform"])
            + "_"
            + r.choice(["ECOM", "MKP", "POS"])
        },
    )
    add(
        B,
        "braintree_public_key_and_merchant",
        [
            "Braintree merchant id {m}, public key {v}; private key in vault payments/braintree",
            "BT public_key {v} (identifies the API key, useless alone)",
        ],
        lambda: {"v": s(LOWER_ALNUM, 16), "m": s(LOWER_ALNUM, 16)},
    )
    add(
        B,
        "braintree_tokenization_key",
        [
            "Braintree tokenization key for Drop-in (client side, public by design): {v}",
            "authorization: '{v}' in braintree.dropin.create",
        ],
        lambda: {"v": "production_" + s(LOWER_ALNUM, 8) + "_" + s(LOWER_ALNUM, 16)},
    )
    add(
        B,
        "braintree_test_nonce",
        [
            (
                "Sandbox nonces: fake-valid-nonce, fake-processor-declined-visa-nonce — documented by Braintree.",
                "fake-valid-nonce",
            ),
            (
                "use nonce 'fake-valid-visa-nonce' in the sandbox integration test",
                "fake-valid-visa-nonce",
            ),
        ],
        lambda: {"v": ""},
    )
    add(
        B,
        "checkout_public_key",
        [
            "Frames uses the Checkout.com public key {v}",
            "CKO_PUBLIC_KEY={v}  # safe for client",
        ],
        lambda: {"v": "pk_" + s(LOWER_ALNUM, 26)},
    )
    add(
        B,
        "checkout_payment_id",
        [
            "Checkout.com payment {v} captured twice? no — second was an auth reversal.",
            "action id act_{a} on payment {v}",
        ],
        lambda: {"v": "pay_" + s(LOWER_ALNUM, 26), "a": s(LOWER_ALNUM, 26)},
    )
    add(
        B,
        "plaid_client_id",
        [
            "Plaid client_id is {v} (the secret is separate, in vault)",
            "PLAID_CLIENT_ID={v}",
        ],
        lambda: {"v": hx(24)},
    )
    add(
        B,
        "plaid_item_id",
        [
            "Item {v} went into ITEM_LOGIN_REQUIRED; user must re-auth via update mode.",
            "webhook for item_id {v}: DEFAULT_UPDATE, 3 new txns",
        ],
        lambda: {"v": s(ALNUM, 37)},
    )
    add(
        B,
        "truelayer_client_id",
        [
            "TrueLayer client_id: {v} (sandbox prefix in the name, prod id differs)",
            "redirect uri registered for client {v}: https://app.finchpay.io/tl/callback",
        ],
        lambda: {"v": "finchpay-" + hx(6)},
    )
    add(
        B,
        "wise_profile_and_transfer_id",
        [
            "Wise profile {v}, transfer 9981{x} stuck in outgoing_payment_sent",
            "Wise business profile id = {v}",
        ],
        lambda: {
            "v": "".join(r.choice(string.digits) for _ in range(8)),
            "x": "".join(r.choice(string.digits) for _ in range(6)),
        },
    )
    add(
        B,
        "marqeta_card_token",
        [
            "Marqeta card token {v} (user token usr_{x}) — suspended after fraud flag.",
            "card_token in JIT request: {v}",
        ],
        lambda: {"v": uid(), "x": hx(12)},
    )
    add(
        B,
        "card_bin_range",
        [
            "Our issuing BIN is {v} (virtual debit); sandbox uses 111111.",
            "BIN range {v}0000-{v}9999 assigned by the sponsor bank",
        ],
        lambda: {"v": "4" + "".join(r.choice(string.digits) for _ in range(5))},
    )
    add(
        B,
        "modern_treasury_payment_order_id",
        [
            "MT payment order {v} returned R01 (insufficient funds).",
            "counterparty id {v} is the sponsor bank FBO account",
        ],
        lambda: {"v": uid()},
    )
    add(
        B,
        "kms_key_arn",
        [
            "Tokenisation CMK: {v}",
            "KMS_KEY_ARN={v}",
            "Key policy on {v} only allows the tokenizer role to Decrypt.",
        ],
        lambda: {
            "v": "arn:aws:kms:eu-west-1:"
            + "".join(r.choice(string.digits) for _ in range(12))
            + ":key/"
            + uid()
        },
    )
    add(
        B,
        "kms_key_id_alias",
        [
            "alias/finch-pan-dek -> key id {v} (rotation enabled yearly)",
            "kms key id {v} scheduled for deletion, 30-day window",
        ],
        lambda: {"v": uid()},
    )
    add(
        B,
        "kms_ciphertext_blob",
        [
            "Encrypted DEK stored next to the row (CiphertextBlob, useless without kms:Decrypt): {v}",
            "ciphertext of the data key from GenerateDataKey: {v}",
        ],
        lambda: {"v": "AQIDAHh" + s(B64, 150) + "=="},
    )
    add(
        B,
        "cloudhsm_cluster_id",
        [
            "CloudHSM cluster {v}, HSM hsm-{h} in eu-west-1b",
            "cluster id for PIN translation: {v}",
        ],
        lambda: {"v": "cluster-" + s(LOWER_ALNUM, 11), "h": s(LOWER_ALNUM, 11)},
    )
    add(
        B,
        "vault_kv_reference",
        [
            "Stripe live secret: vault kv get -field=secret_key {v}",
            "webhook secret lives at {v} (path only, ask #platform for access)",
        ],
        lambda: {
            "v": "secret/payments/" + r.choice(["stripe", "adyen", "plaid", "checkout"]) + "/prod"
        },
    )
    add(
        B,
        "onepassword_reference",
        [
            "Adyen HMAC key: {v}",
            "SWIFT portal password → {v}",
        ],
        lambda: {
            "v": "op://Payments-Prod/"
            + r.choice(["Adyen HMAC", "SWIFT Portal", "Bank SFTP"])
            + "/"
            + r.choice(["password", "credential"])
        },
    )
    add(
        B,
        "github_actions_secret_ref",
        [
            "deploy.yml: STRIPE_SECRET_KEY: {v}",
            "env:\n  PLAID_SECRET: ${{ secrets.PLAID_SECRET_PROD }}\n  MT_API_KEY: {v}",
        ],
        lambda: {"v": "${{ secrets." + r.choice(["STRIPE_SK_LIVE", "MT_API_KEY_PROD"]) + " }}"},
    )
    add(
        B,
        "secrets_manager_arn",
        [
            "SecretId {v} holds the Checkout.com sk; Lambda reads it at cold start.",
            "rotation lambda attached to {v}",
        ],
        lambda: {
            "v": "arn:aws:secretsmanager:eu-west-1:"
            + "".join(r.choice(string.digits) for _ in range(12))
            + ":secret:prod/cko/secret-key-"
            + s(ALNUM, 6)
        },
    )
    add(
        B,
        "env_var_name_only",
        [
            "Required env for payouts-worker: STRIPE_SECRET_KEY, ADYEN_API_KEY, ADYEN_HMAC_KEY, WISE_API_TOKEN (values come from vault)",
            "If STRIPE_WEBHOOK_SECRET is unset the handler 400s every event — check the task def.",
        ],
        lambda: {"v": ""},
    )
    add(
        B,
        "angle_bracket_placeholder",
        [
            "curl -u <org_id>:<api_key> https://app.moderntreasury.com/api/payment_orders",
            "Authorization: Bearer <WISE_TOKEN>  (get yours from the Wise settings page)",
            "ONFIDO_API_TOKEN=api_live.<id>.<secret>",
        ],
        lambda: {"v": ""},
    )
    add(
        B,
        "revoked_key_last4_only",
        [
            "Incident 2025-11-03: a Plaid secret ending in ...{v} was pasted in #eng; rotated within 20 min, old secret disabled.",
            "Sift key **** {v} revoked when Leo left.",
        ],
        lambda: {"v": hx(4)},
    )
    add(
        B,
        "sha256_file_digest",
        [
            "settlement_2025-10-31.csv sha256 {v} — matches bank's control file",
            "checksum of the NACHA file we sent: {v}",
        ],
        lambda: {"v": hx(64)},
    )
    add(
        B,
        "git_commit_sha",
        [
            "Double-refund bug fixed in {v}; deployed 16:40.",
            "revert {v} if the idempotency change misbehaves",
        ],
        lambda: {"v": hx(40)},
    )
    add(
        B,
        "docker_image_digest",
        [
            "card-auth pinned to image@sha256:{v}",
            "PCI evidence: deployed digest sha256:{v}",
        ],
        lambda: {"v": hx(64)},
    )
    add(
        B,
        "sift_session_id",
        [
            "Sift $session_id for the flagged signup: {v}",
            "score for user 55120 (session {v}) was 92 → blocked",
        ],
        lambda: {"v": s(LOWER_ALNUM, 20)},
    )
    add(
        B,
        "sardine_session_key",
        [
            "Sardine sessionKey generated client side per checkout: {v}",
            "device intel lookup by session key {v} showed emulator + VPN",
        ],
        lambda: {"v": uid()},
    )
    add(
        B,
        "onfido_applicant_id",
        [
            "Onfido applicant {v}, check c_{x} came back consider (document expired).",
            "applicant_id {v} – re-run facial similarity",
        ],
        lambda: {"v": uid(), "x": hx(8)},
    )
    add(
        B,
        "persona_inquiry_id",
        [
            "Persona inquiry {v} (template itmpl_{x}) stuck in pending.",
            "KYC for merchant 771 = inquiry {v}",
        ],
        lambda: {"v": "inq_" + s(ALNUM, 24), "x": s(ALNUM, 24)},
    )
    add(
        B,
        "pgp_public_key_block",
        [
            "Sponsor bank's PGP PUBLIC key (encrypt ACH files to them):\n{v}",
        ],
        lambda: {"v": pem("PGP PUBLIC KEY BLOCK", 4)},
    )
    add(
        B,
        "ssh_public_key",
        [
            "Give the bank our sftp public key: {v}",
            "authorized_keys on the recon box: {v}",
        ],
        lambda: {"v": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + s(B64, 43) + " ops@finchpay"},
    )
    add(
        B,
        "x509_certificate",
        [
            "Wise's public signing cert for webhook verification:\n{v}",
            "our client CERT (public half; key stays in the HSM) sent to the bank:\n{v}",
        ],
        lambda: {"v": pem("CERTIFICATE", 4)},
    )
    add(
        B,
        "jwks_public_modulus",
        [
            'JWKS for the card-auth service (public): {"kty":"RSA","kid":"ca-2025","e":"AQAB","n":"{v}"}',
        ],
        lambda: {"v": s(B64URL, 342)},
    )
    add(
        B,
        "password_policy_talk",
        [
            "Decision: bank portal passwords rotate every 90 days, stored only in 1Password vault 'Treasury'. Nobody pastes them in Slack.",
            "PCI 8.3.6 says min 12 chars for passwords on CDE systems; our Okta policy is 14.",
            "On-call: if the SWIFT portal password expired, ask Marta — she has the reset flow.",
        ],
        lambda: {"v": ""},
    )
    add(
        B,
        "sandbox_3ds_challenge_password",
        [
            (
                "Checkout.com sandbox 3DS challenge page asks for a password — it's the documented test one, Checkout1!",
                "Checkout1!",
            ),
            (
                "Adyen test 3DS2 challenge: enter 'password' as the one-time code (test env only)",
                "password",
            ),
        ],
        lambda: {"v": ""},
    )
    add(
        B,
        "token_other_sense",
        [
            "Design tokens for the card UI live in tokens.json (color.brand.primary etc).",
            "Tokenization ≠ encryption: the token maps to the PAN only inside the vault, so systems holding tokens are out of PCI scope.",
            "primary key on ledger_entries is (journal_id, line_no); partition key is booked_at.",
        ],
        lambda: {"v": ""},
    )
    add(
        B,
        "pagination_cursor_base64",
        [
            "Plaid /transactions/sync next_cursor: {v}",
            "resume the backfill from cursor {v}",
        ],
        lambda: {"v": b64(r.randint(40, 60))},
    )
    add(
        B,
        "sepa_end_to_end_id",
        [
            "SEPA CT EndToEndId {v} rejected with AC04 (closed account).",
            "pain.001 MsgId FINCH{x}, EndToEndId {v}",
        ],
        lambda: {
            "v": "E2E" + s(UPPER_ALNUM, 24),
            "x": "".join(r.choice(string.digits) for _ in range(14)),
        },
    )
    add(
        B,
        "swift_uetr",
        [
            "gpi tracker UETR {v} shows ACSP at the intermediary.",
            "MT103 for the Kenya payout, UETR {v}",
        ],
        lambda: {"v": uid()},
    )
    add(
        B,
        "aba_routing_test_account",
        [
            "ACH test bank account for Stripe test mode: routing 110000000, account {v}",
            "Use routing 110000000 / account {v} in test mode to simulate success",
        ],
        lambda: {"v": "000123456789"},
    )
    add(
        B,
        "apple_pay_merchant_identifier",
        [
            "Apple Pay merchant id {v}; domain verification file hosted at /.well-known/",
            "merchantIdentifier: '{v}'",
        ],
        lambda: {"v": "merchant.io.finchpay." + r.choice(["checkout", "wallet", "app"])},
    )
    add(
        B,
        "sentry_dsn_public",
        [
            "Browser Sentry DSN (public by design): https://{v}@o4506{x}.ingest.sentry.io/45071",
            "SENTRY_DSN=https://{v}@o4506{x}.ingest.sentry.io/88231 (frontend)",
        ],
        lambda: {"v": hx(32), "x": "".join(r.choice(string.digits) for _ in range(6))},
    )
    add(
        B,
        "datadog_rum_client_token",
        [
            "RUM client token (public, browser only): {v}",
            "datadogRum.init({ clientToken: '{v}', site: 'datadoghq.eu' })",
        ],
        lambda: {"v": "pub" + hx(32)},
    )
    add(
        B,
        "quickbooks_realm_id",
        [
            "QuickBooks company (realm) id {v}; export job posts journal entries nightly",
            "realmId={v} in the QBO sandbox",
        ],
        lambda: {"v": "".join(r.choice(string.digits) for _ in range(19))},
    )
    add(
        B,
        "xero_tenant_id",
        [
            "Xero-tenant-id: {v}",
            "Xero org for FinchPay UK: tenant {v}",
        ],
        lambda: {"v": uid()},
    )
    add(
        B,
        "netsuite_account_id",
        [
            "NetSuite account {v} (sandbox suffix), role id 1032",
            "netsuite realm {v}",
        ],
        lambda: {"v": "".join(r.choice(string.digits) for _ in range(7)) + "_SB1"},
    )
    add(
        B,
        "pagerduty_ids",
        [
            "Incident {v} (payout delays) resolved; service PXA9N2Q",
            "escalation policy {v} for the card-auth rota",
        ],
        lambda: {"v": "P" + s(UPPER_ALNUM, 6)},
    )
    add(
        B,
        "unit_ids",
        [
            "Unit customer {v}, deposit account 1029{x}",
            "Unit application {v} needs SSN re-check",
        ],
        lambda: {
            "v": "".join(r.choice(string.digits) for _ in range(6)),
            "x": "".join(r.choice(string.digits) for _ in range(5)),
        },
    )
    add(
        B,
        "portal_username_only",
        [
            "SWIFT test portal: https://test.swift-portal.example.net, user {v} — password in 1Password, not here.",
            "Sponsor bank sftp username is {v}; key-based auth, key in vault.",
        ],
        lambda: {"v": "finch_" + r.choice(["ops", "ach", "treasury"]) + str(r.randint(1, 9))},
    )
    add(
        B,
        "ip_allowlist",
        [
            "Adyen webhook source IPs to allow: {v}",
            "Bank H2H allowlist includes our NAT {v}",
        ],
        lambda: {"v": f"{r.randint(20, 220)}.{r.randint(0, 255)}.{r.randint(0, 255)}.0/24"},
    )
    add(
        B,
        "npm_integrity_hash",
        [
            "lockfile integrity for @stripe/stripe-js: sha512-{v}",
            "integrity sha512-{v} mismatch after registry mirror change",
        ],
        lambda: {"v": s(B64, 86) + "=="},
    )

    # --------------------------------------------- more phrasings, same kinds
    add(
        S,
        "stripe_secret_key_live",
        [
            "2025-01-14 on-call: payouts 401'd; prod Stripe key in the task def was stale. Hotfixed with {v}, Jonas to move it into SSM.",
            "Stripe-Key-Prod: {v}",
        ],
        lambda: {"v": "sk_live_" + s(ALNUM, 24)},
    )
    add(
        S,
        "stripe_webhook_secret",
        [
            "Connect webhook (live, account events) signing secret → {v}",
        ],
        lambda: {"v": "whsec_" + s(ALNUM, 32)},
    )
    add(
        S,
        "adyen_hmac_key",
        [
            "hmacKey for the Adyen balance platform notifications, LIVE: {v}",
        ],
        lambda: {"v": s("0123456789ABCDEF", 64)},
    )
    add(
        S,
        "braintree_access_token",
        [
            "braintree.BraintreeGateway(access_token='{v}')  # marketplace prod",
        ],
        lambda: {"v": "access_token$production$" + s(LOWER_ALNUM, 16) + "$" + hx(32)},
    )
    add(
        S,
        "checkout_webhook_auth_key",
        [
            "Webhook auth key for the Checkout.com LIVE workflow 'all-payments': {v}",
        ],
        lambda: {"v": uid()},
    )
    add(
        S,
        "truelayer_client_secret",
        [
            "truelayer payouts prod → client_id finchpay-9d01c2, client_secret {v}",
        ],
        lambda: {"v": uid()},
    )
    add(
        S,
        "marqeta_admin_access_token",
        [
            "curl -u {a}:{v} https://finchpay-api.marqeta.com/v3/cards  (prod, admin)",
        ],
        lambda: {"v": uid(), "a": uid()},
    )
    add(
        S,
        "unit_api_token",
        [
            "Authorization: Bearer {v}\nhost: api.unit.co — that's the LIVE org token, not sandbox. Revoke after testing.",
        ],
        lambda: {"v": "v2.public." + s(B64URL, 240)},
    )
    add(
        S,
        "sift_api_key",
        [
            'sift.Client(api_key="{v}", account_id="5f1a...")  # production',
            "Sift prod key {v} — sandbox key is different",
        ],
        lambda: {"v": hx(16)},
    )
    add(
        S,
        "sardine_client_secret",
        [
            "curl -u 'fp-prod-client:{v}' https://api.sardine.ai/v1/customers",
        ],
        lambda: {"v": uid()},
    )
    add(
        S,
        "persona_api_key",
        [
            "Authorization: Bearer {v}\nPersona-Version: 2023-01-05",
        ],
        lambda: {"v": "persona_production_" + uid()},
    )
    add(
        S,
        "alloy_api_secret",
        [
            "alloy prod basic auth: {t}:{v}",
        ],
        lambda: {"v": s(ALNUM, 32), "t": s(ALNUM, 32)},
    )
    add(
        S,
        "aws_secret_access_key",
        [
            "treasury-s3 bot creds (key id in the ticket), secret = {v}",
        ],
        lambda: {"v": s(ALNUM + "+/", 40)},
    )
    add(
        S,
        "gcp_service_account_key",
        [
            "SA for Looker finance exports, PEM pulled out of the json:\n{v}",
        ],
        lambda: {"v": pem("PRIVATE KEY", 4)},
    )
    add(
        S,
        "pgp_private_key",
        [
            "Export of the signing subkey for pain.001 files (armored):\n{v}",
        ],
        lambda: {"v": pem("PGP PRIVATE KEY BLOCK", 4)},
    )
    add(
        S,
        "openssh_private_key",
        [
            "ssh key for jump host to the CDE (ops only):\n{v}",
        ],
        lambda: {
            "v": "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ"
            + s(B64, 22)
            + "\n"
            + s(B64, 70)
            + "\n"
            + s(B64, 44)
            + "\n-----END OPENSSH PRIVATE KEY-----"
        },
    )
    add(
        S,
        "redis_url_password",
        [
            "requirepass {v}  # redis.conf on the session cache, prod",
        ],
        lambda: {"v": s(ALNUM, 32)},
    )
    add(
        S,
        "kms_plaintext_data_key",
        [
            "Recovered the DEK for the Q3 export by calling kms decrypt; base64 plaintext {v} — using it to re-encrypt, then wipe this note",
        ],
        lambda: {"v": b64(32)},
    )
    add(
        S,
        "card_dek_hex",
        [
            "zone master key component 1 (ZMK, double-length) from the key ceremony: {v}",
        ],
        lambda: {"v": s("0123456789ABCDEF", 32)},
    )
    add(
        S,
        "slack_webhook_url",
        [
            'curl -X POST -d \'{"text":"payout batch done"}\' {v}',
        ],
        lambda: {
            "v": "https://hooks.slack.com/services/T"
            + s(UPPER_ALNUM, 8)
            + "/B"
            + s(UPPER_ALNUM, 10)
            + "/"
            + s(ALNUM, 24)
        },
    )
    add(
        S,
        "datadog_api_key",
        [
            "dd agent config api_key: {v} with app key {a}",
        ],
        lambda: {"v": hx(32), "a": hx(40)},
    )
    add(
        S,
        "sendgrid_api_key",
        [
            "sg.SendGridAPIClient('{v}')",
        ],
        lambda: {"v": "SG." + s(B64URL, 22) + "." + s(B64URL, 43)},
    )
    add(
        S,
        "twilio_auth_token",
        [
            "Verify service for card activation: Client('AC{a}', '{v}')",
        ],
        lambda: {"v": hx(32), "a": hx(32)},
    )
    add(
        S,
        "quickbooks_refresh_token",
        [
            "intuit oauth playground gave us refresh_token={v} for the prod company — paste into the export job config",
        ],
        lambda: {"v": "AB11" + "".join(r.choice(string.digits) for _ in range(10)) + s(ALNUM, 36)},
    )
    add(
        S,
        "netsuite_token_secret",
        [
            "NetSuite access token {t} / token secret {v} (role: Finance Integration)",
        ],
        lambda: {"v": hx(64), "t": hx(64)},
    )
    add(
        S,
        "swift_portal_password",
        [
            "Alliance Lite2 operator 'finch.ops2' — pwd {v} (expires Mar)",
        ],
        lambda: {
            "v": s(string.ascii_letters, 7) + s(string.digits, 3) + r.choice("!?#") + s(ALNUM, 2)
        },
    )
    add(
        S,
        "backoffice_session_cookie",
        [
            "Stripe dashboard wouldn't let the bot in so I grabbed my session cookie: __Host-session={v}",
        ],
        lambda: {"v": s(B64URL, 64)},
    )
    add(
        S,
        "okta_api_token",
        [
            "Authorization: SSWS {v}",
        ],
        lambda: {"v": "00" + s(ALNUM + "-_", 40)},
    )
    add(
        S,
        "vault_token",
        [
            "Token for the payouts app role (ttl 768h): {v}",
        ],
        lambda: {"v": "hvs." + s(ALNUM + "_-", 24)},
    )
    add(
        S,
        "mailgun_api_key",
        [
            "api:{v} is the basic auth for mailgun statements domain",
        ],
        lambda: {"v": "key-" + hx(32)},
    )
    add(
        S,
        "fernet_key",
        [
            "ENCRYPTION_KEY={v}  # encrypts plaid access tokens in the db",
        ],
        lambda: {"v": s(B64URL, 43) + "="},
    )
    add(
        S,
        "google_oauth_client_secret",
        [
            'client_secret.json for the Gmail receipts ingester has "client_secret": "{v}"',
        ],
        lambda: {"v": "GOCSPX-" + s(ALNUM + "-_", 28)},
    )
    add(
        S,
        "totp_seed",
        [
            "Wise 2FA authenticator secret for treasury@: {v} (scan as manual entry)",
        ],
        lambda: {"v": s(B32, 16)},
    )
    add(
        S,
        "pgp_key_passphrase",
        [
            "The bank key's passphrase is {v}; we keep the key on the sftp box.",
        ],
        lambda: {
            "v": "-".join(
                r.choice(["walrus", "sepia", "granite", "plinth", "harbor", "cobalt", "thistle"])
                for _ in range(3)
            )
            + "!"
            + str(r.randint(100, 999))
        },
    )
    add(
        S,
        "compose_db_password",
        [
            "kubectl create secret generic ledger-db --from-literal=password={v} -n payments",
        ],
        lambda: {"v": s(ALNUM, 20)},
    )
    add(
        S,
        "jwt_hs256_secret",
        [
            'jwt.encode(claims, "{v}", algorithm="HS256")  # card-auth prod',
        ],
        lambda: {"v": s(ALNUM, 40)},
    )
    add(
        S,
        "bearer_token_curl",
        [
            "token for the Unit sandbox is easy to find but THIS is the internal ops admin one: {v}",
        ],
        lambda: {"v": "fp_live_" + s(ALNUM, 40)},
    )
    add(
        S,
        "bank_portal_recovery_codes",
        [
            "Modern Treasury 2FA recovery code (unused, for treasury@): {v}",
        ],
        lambda: {"v": s(LOWER_ALNUM, 5) + "-" + s(LOWER_ALNUM, 5)},
    )

    add(
        B,
        "stripe_publishable_key_live",
        [
            'Checkout page HTML contains data-key="{v}" — expected, pk is public.',
        ],
        lambda: {"v": "pk_live_" + s(ALNUM, 99)},
    )
    add(
        B,
        "stripe_publishable_key_test",
        [
            "STRIPE_PUBLISHABLE_KEY_TEST={v}",
        ],
        lambda: {"v": "pk_test_" + s(ALNUM, 99)},
    )
    add(
        B,
        "stripe_docs_example_key",
        [
            "Stripe's docs sample 'pk_test_TYooMQauvdEDq54NiTphI7jx' is the one in every tutorial; it's their public example.",
        ],
        lambda: {"v": "pk_test_TYooMQauvdEDq54NiTphI7jx"},
    )
    add(
        B,
        "stripe_key_redacted_last4",
        [
            "whsec_••••••••••••••••••••••••{v} (shown masked in dashboard; real value in vault)",
        ],
        lambda: {"v": s(ALNUM, 4)},
    )
    add(
        B,
        "stripe_payment_intent_id",
        [
            "payment_intent={v}&amount_to_capture=1999",
        ],
        lambda: {"v": "pi_3" + s(ALNUM, 23)},
    )
    add(
        B,
        "stripe_webhook_endpoint_id",
        [
            "stripe webhook_endpoints update {v} --enabled-events charge.dispute.created",
        ],
        lambda: {"v": "we_1" + s(ALNUM, 23)},
    )
    add(
        B,
        "stripe_event_id",
        [
            "Handled twice: {v}. Added unique index on processed_events.event_id.",
        ],
        lambda: {"v": "evt_1" + s(ALNUM, 23)},
    )
    add(
        B,
        "stripe_account_id",
        [
            "Stripe-Account: {v} header for acting on behalf of the merchant",
        ],
        lambda: {"v": "acct_1" + s(ALNUM, 15)},
    )
    add(
        B,
        "stripe_signature_header_captured",
        [
            "HMAC we computed for the fixture payload in tests/fixtures/charge_succeeded.json: {v} (test secret, fixture only)",
        ],
        lambda: {"v": hx(64)},
    )
    add(
        B,
        "masked_pan",
        [
            "Receipt prints •••• {v} only.",
        ],
        lambda: {"v": "".join(r.choice(string.digits) for _ in range(4))},
    )
    add(
        B,
        "tokenised_card_reference",
        [
            "Braintree payment method token {v} attached to customer 41123",
        ],
        lambda: {"v": s(LOWER_ALNUM, 7)},
    )
    add(
        B,
        "iban_example",
        [
            "Placeholder IBAN shown in the onboarding form: FR76 3000 6000 0112 3456 7890 189",
        ],
        lambda: {"v": "FR76 3000 6000 0112 3456 7890 189"},
    )
    add(
        B,
        "bic_code",
        [
            "BIC lookup: {v} resolves to a German bank; SEPA reachable",
        ],
        lambda: {"v": r.choice(["DEUTDEFF", "COBADEFFXXX", "MARKDEFF"])},
    )
    add(
        B,
        "adyen_psp_reference",
        [
            "Adyen chargeback notification for originalReference {v}, reason 4837",
        ],
        lambda: {"v": s(UPPER_ALNUM, 16)},
    )
    add(
        B,
        "adyen_client_key",
        [
            "ADYEN_CLIENT_KEY={v} (test env, public)",
        ],
        lambda: {"v": "test_" + s(UPPER_ALNUM, 32)},
    )
    add(
        B,
        "braintree_tokenization_key",
        [
            "sandbox tokenization key {v} for the QA app",
        ],
        lambda: {"v": "sandbox_" + s(LOWER_ALNUM, 8) + "_" + s(LOWER_ALNUM, 16)},
    )
    add(
        B,
        "checkout_public_key",
        [
            "Checkout.com sandbox public key for Frames demo: {v}",
        ],
        lambda: {"v": "pk_sbox_" + s(LOWER_ALNUM, 26)},
    )
    add(
        B,
        "checkout_payment_id",
        [
            "GET /payments/{v}/actions shows Capture + Refund",
        ],
        lambda: {"v": "pay_" + s(LOWER_ALNUM, 26)},
    )
    add(
        B,
        "plaid_client_id",
        [
            "plaid link config: client_name 'FinchPay', client_id {v}, products [auth, transactions]",
        ],
        lambda: {"v": hx(24)},
    )
    add(
        B,
        "plaid_item_id",
        [
            "ITEM_ERROR for {v}: INSTITUTION_DOWN (Chase). Auto-retry in 1h.",
        ],
        lambda: {"v": s(ALNUM, 37)},
    )
    add(
        B,
        "marqeta_card_token",
        [
            "Marqeta sandbox user token {v}; card product token 'finch-virtual-debit'",
        ],
        lambda: {"v": uid()},
    )
    add(
        B,
        "modern_treasury_payment_order_id",
        [
            "expected_payment {v} reconciled against the incoming wire",
        ],
        lambda: {"v": uid()},
    )
    add(
        B,
        "kms_key_arn",
        [
            "aws kms encrypt --key-id {v} --plaintext fileb://dek.bin",
        ],
        lambda: {
            "v": "arn:aws:kms:us-east-1:"
            + "".join(r.choice(string.digits) for _ in range(12))
            + ":key/mrk-"
            + hx(32)
        },
    )
    add(
        B,
        "kms_ciphertext_blob",
        [
            "encrypted_dek column example (base64 ciphertext, wrapped by KMS): {v}",
        ],
        lambda: {"v": "AQIBAHg" + s(B64, 160) + "=="},
    )
    add(
        B,
        "vault_kv_reference",
        [
            'stripe_key: "{v}"  # resolved by vault-agent at runtime',
        ],
        lambda: {"v": "vault:secret/data/payments/stripe#sk_live"},
    )
    add(
        B,
        "onepassword_reference",
        [
            'op read "{v}" | pbcopy',
        ],
        lambda: {"v": "op://Treasury/Wise API/token"},
    )
    add(
        B,
        "secrets_manager_arn",
        [
            "aws secretsmanager get-secret-value --secret-id {v} (needs break-glass role)",
        ],
        lambda: {"v": "prod/plaid/secret"},
    )
    add(
        B,
        "env_var_name_only",
        [
            "renamed ADYEN_WS_PASSWORD to ADYEN_API_KEY in all services; the legacy var is now ignored.",
        ],
        lambda: {"v": ""},
    )
    add(
        B,
        "angle_bracket_placeholder",
        [
            "sftp -i <path-to-key> finch_ach@<bank-host>; password auth disabled",
        ],
        lambda: {"v": ""},
    )
    add(
        B,
        "revoked_key_last4_only",
        [
            "GitHub secret scanning alert: ghp_…{v} in old commit — token deleted by owner, alert closed.",
        ],
        lambda: {"v": s(ALNUM, 4)},
    )
    add(
        B,
        "sha256_file_digest",
        [
            "Hash of the PCI AOC PDF we sent to Adyen: {v}",
        ],
        lambda: {"v": hx(64)},
    )
    add(
        B,
        "git_commit_sha",
        [
            "webhook signature verification landed in {v} (short {x})",
        ],
        lambda: {"v": hx(40), "x": hx(7)},
    )
    add(
        B,
        "sift_session_id",
        [
            "$user_id usr_{v} has 3 chargebacks in Sift; label as fraud",
        ],
        lambda: {"v": s(LOWER_ALNUM, 16)},
    )
    add(
        B,
        "onfido_applicant_id",
        [
            "Onfido workflow run {v} — manual review by compliance",
        ],
        lambda: {"v": uid()},
    )
    add(
        B,
        "persona_inquiry_id",
        [
            "Persona account act_{v} merged with duplicate",
        ],
        lambda: {"v": s(ALNUM, 24)},
    )
    add(
        B,
        "ssh_public_key",
        [
            "bank asked for RSA; sent {v}",
        ],
        lambda: {"v": "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ" + s(B64, 300) + " h2h@finchpay"},
    )
    add(
        B,
        "x509_certificate",
        [
            "Apple Pay merchant identity cert (public part only) for domain validation:\n{v}",
        ],
        lambda: {"v": pem("CERTIFICATE", 4)},
    )
    add(
        B,
        "jwks_public_modulus",
        [
            'TrueLayer public signing key JWK we uploaded (x/y only, no d): {"kty":"EC","crv":"P-521","x":"{v}","y":"{y}"}',
        ],
        lambda: {"v": s(B64URL, 88), "y": s(B64URL, 88)},
    )
    add(
        B,
        "password_policy_talk",
        [
            "Reminder: the Marqeta webhook password was rotated Tuesday; the new one is only in Vault (payments/marqeta/webhook).",
        ],
        lambda: {"v": ""},
    )
    add(
        B,
        "token_other_sense",
        [
            "Payment tokens from Apple Pay (DPANs) are network tokens, not our secrets — they're scoped to the device.",
            "The LLM context limit is 200k tokens; chunk the reconciliation report.",
        ],
        lambda: {"v": ""},
    )
    add(
        B,
        "pagination_cursor_base64",
        [
            "Modern Treasury after_cursor={v}",
        ],
        lambda: {"v": s(B64URL, 48)},
    )
    add(
        B,
        "sepa_end_to_end_id",
        [
            "SEPA mandate reference (UMR) {v} for the direct debit",
        ],
        lambda: {"v": "FINCH-MNDT-" + s(UPPER_ALNUM, 12)},
    )
    add(
        B,
        "swift_uetr",
        [
            "camt.054 entry with UETR {v} matched to invoice INV-2025-0931",
        ],
        lambda: {"v": uid()},
    )
    add(
        B,
        "plaid_sandbox_public_login",
        [
            "Plaid sandbox creds are user_good / pass_good — public sandbox test login, not ours.",
        ],
        lambda: {"v": "pass_good"},
    )
    add(
        B,
        "sentry_dsn_public",
        [
            "sentry-cli sourcemaps: project finch-web, DSN key {v} (public DSN key, not the auth token)",
        ],
        lambda: {"v": hx(32)},
    )
    add(
        B,
        "xero_tenant_id",
        [
            "Xero connection id {v} (disconnect via /connections)",
        ],
        lambda: {"v": uid()},
    )
    add(
        B,
        "pagerduty_ids",
        [
            "PD schedule {v} = payments primary; handoff Mondays 10:00",
        ],
        lambda: {"v": "P" + s(UPPER_ALNUM, 6)},
    )
    add(
        B,
        "portal_username_only",
        [
            "Adyen CA users: {v}, admin@finchpay (2FA on both)",
        ],
        lambda: {
            "v": "ws_" + "".join(r.choice(string.digits) for _ in range(6)) + "@Company.FinchPay"
        },
    )
    add(
        B,
        "ip_allowlist",
        [
            "Stripe webhook IPs are published at stripe.com/files/ips/ips_webhooks.json; we pin {v}",
        ],
        lambda: {"v": f"3.18.{r.randint(0, 255)}.{r.randint(0, 255)}"},
    )
    add(
        B,
        "docker_image_digest",
        [
            "rollback target: ledger@sha256:{v}",
        ],
        lambda: {"v": hx(64)},
    )
    add(
        B,
        "card_bin_range",
        [
            "IIN {v} (8-digit BIN) registered with Visa for the new program",
        ],
        lambda: {"v": "4" + "".join(r.choice(string.digits) for _ in range(7))},
    )
    add(
        B,
        "accounting_export_batch_id",
        [
            "QBO journal export batch {v} posted 412 lines",
        ],
        lambda: {"v": "JE-" + "".join(r.choice(string.digits) for _ in range(8))},
    )
    add(
        B,
        "idempotency_key",
        [
            "Adyen idempotency-key header {v} reused on retry after the 502",
        ],
        lambda: {
            "v": "payout-" + "".join(r.choice(string.digits) for _ in range(8)) + "-attempt-2"
        },
    )
    add(
        B,
        "stripe_customer_id",
        [
            "Test mode customer {v} has the 4000 0025 0000 3155 card attached",
        ],
        lambda: {"v": "cus_" + s(ALNUM, 14)},
    )

    for row in rows:
        assert row["value"] in row["text"], row
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

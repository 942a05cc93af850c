# ruff: noqa: E501
"""Blind secrets corpus 26: SaaS integration and automation engineers.

Brief: notes kept by integration / automation engineers (Zapier, Make and n8n style
flows, iPaaS connectors, webhooks and their signing secrets, OAuth client credentials
and refresh tokens, Salesforce, HubSpot, Zendesk, Intercom, Jira, Shopify apps,
QuickBooks / Xero, Google Workspace service accounts, Microsoft Graph) on how each
connection authenticates, plus hard look-alikes: connection ids, webhook ids,
org / tenant / instance ids, public OAuth client ids, redacted or example tokens,
HMAC signatures of payloads.

Written blind on 2026-12-06: the author did not read the detector, its tests or any
earlier corpus.

Run:
    python benchmarks/data/blind_secrets/blind_secrets_26.py /tmp/blind26.jsonl
    (without an argument the JSONL goes to stdout)

Every random value is generated from random.Random(SEED); no real credential is in here.

Kinds, secret:
    slack_webhook_url, slack_bot_token, slack_signing_secret, stripe_webhook_secret,
    stripe_secret_key, stripe_restricted_key, shopify_admin_token, shopify_client_secret,
    shopify_custom_app_token, shopify_private_app_password, hubspot_private_app_token,
    hubspot_client_secret, salesforce_consumer_secret, salesforce_refresh_token,
    salesforce_session_id, salesforce_security_token, zendesk_api_token,
    zendesk_oauth_secret, intercom_access_token, atlassian_api_token, jira_basic_auth,
    quickbooks_client_secret, quickbooks_refresh_token, intuit_webhook_verifier,
    xero_client_secret, xero_refresh_token, xero_webhook_key, gcp_service_account_key,
    google_oauth_client_secret, google_refresh_token, google_access_token,
    azure_client_secret, ms_refresh_token, n8n_api_key, n8n_encryption_key,
    make_api_token, github_webhook_secret, github_pat, github_app_private_key,
    twilio_auth_token, sendgrid_api_key, mailchimp_api_key, airtable_pat,
    notion_integration_secret, asana_pat, linear_api_key, pipedrive_api_token,
    trello_token, discord_webhook_url, teams_webhook_url, basic_auth_url_password,
    client_credentials_curl, live_bearer_jwt, dropbox_access_token, pagerduty_api_token,
    datadog_api_key, aws_secret_access_key, postgres_url_password, zoom_webhook_secret,
    okta_api_token, gitlab_pat, netsuite_token_secret, azure_storage_account_key,
    typeform_token, clickup_token, openai_api_key, svix_webhook_secret,
    sftp_password, openssh_private_key, mongodb_uri_password
Kinds, benign:
    n8n_credential_ref, n8n_workflow_id, make_connection_id, zapier_zap_id,
    salesforce_org_id, salesforce_consumer_key, salesforce_record_id, hubspot_portal_id,
    hubspot_client_id, google_oauth_client_id, gcp_private_key_id, gcp_sa_client_id,
    azure_tenant_id, azure_app_id, azure_secret_id, azure_cert_thumbprint,
    shopify_api_key_public, shopify_webhook_gid, shopify_host_param, stripe_publishable_key,
    stripe_webhook_endpoint_id, stripe_object_ids, shopify_hmac_header,
    stripe_signature_header, github_signature_header, slack_signature_header,
    hubspot_signature_header, zendesk_webhook_id, jira_cloud_id, atlassian_account_id,
    intercom_app_id, xero_tenant_id, quickbooks_realm_id, redacted_token,
    placeholder_token, vault_reference, ci_secret_reference, env_var_name_only,
    git_commit_sha, image_digest, discord_public_key, jwks_kid, request_id,
    pkce_code_challenge, oauth_state_param, idempotency_key, github_delivery_id,
    twilio_account_sid, sendgrid_key_id, mailchimp_audience_id, airtable_ids,
    notion_database_id, sheets_spreadsheet_id, drive_file_id, graph_delta_link,
    graph_subscription_id, pagination_cursor, unsigned_jwt_claims, token_sha256_digest,
    aws_access_key_id_alone, okta_client_id, slack_public_ids, github_app_client_id,
    ssh_public_key, sri_integrity_hash, password_policy_talk, key_other_sense,
    rotation_talk, webhook_test_vector_digest, revoked_token_fragment
"""

import base64
import hashlib
import hmac
import json
import random
import string
import sys
import uuid

SEED = 526026

LOW = string.ascii_lowercase
UP = string.ascii_uppercase
DIG = string.digits
HEX = "0123456789abcdef"
B62 = string.ascii_letters + string.digits
B64U = B62 + "-_"
B64 = B62 + "+/"


def corpus() -> list[dict]:
    r = random.Random(SEED)

    def s(alpha: str, n: int) -> str:
        return "".join(r.choice(alpha) for _ in range(n))

    def hx(n: int) -> str:
        return s(HEX, n)

    def uid() -> str:
        return str(uuid.UUID(int=r.getrandbits(128), version=4))

    def num(n: int) -> str:
        return str(r.randint(1, 9)) + s(DIG, n - 1)

    def b64bytes(n: int) -> str:
        return base64.b64encode(bytes(r.getrandbits(8) for _ in range(n))).decode()

    def b64url_bytes(n: int) -> str:
        raw = bytes(r.getrandbits(8) for _ in range(n))
        return base64.urlsafe_b64encode(raw).decode().rstrip("=")

    def jwt(claims: dict, signed: bool = True) -> str:
        h = base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT"}').decode().rstrip("=")
        p = base64.urlsafe_b64encode(json.dumps(claims).encode()).decode().rstrip("=")
        out = h + "." + p
        if signed:
            out += "." + b64url_bytes(32)
        return out

    def pem(label: str, nbytes: int) -> str:
        body = b64bytes(nbytes)
        lines = [body[i : i + 64] for i in range(0, len(body), 64)]
        return f"-----BEGIN {label}-----\n" + "\n".join(lines) + f"\n-----END {label}-----"

    def azure_secret() -> str:
        return s(B62, 3) + r.choice(DIG) + "Q~" + s(B62 + "_~.-", 34)

    # ------------------------------------------------------------------ secrets
    # each entry: kind, generator, templates ({v} = the secret, {u}/{n}/{h} = fillers)
    secret_specs = [
        (
            "slack_webhook_url",
            lambda: (
                f"https://hooks.slack.com/services/T{s(UP + DIG, 9)}/B{s(UP + DIG, 10)}/{s(B62, 24)}"
            ),
            [
                "Zap 'New HubSpot deal -> #sales-wins' posts to {v}",
                "n8n Slack node replaced by plain HTTP Request; target URL:\n{v}\n(no auth header needed, the URL is the auth)",
                "alerts channel incoming webhook = {v} — used by the Make scenario 'Failed invoices'",
            ],
        ),
        (
            "slack_bot_token",
            lambda: f"xoxb-{num(12)}-{num(13)}-{s(B62, 24)}",
            [
                "Slack app 'OpsBot' bot token {v}, scopes chat:write, channels:read",
                "SLACK_BOT_TOKEN={v}",
                "n8n cred 'Slack (prod)': Access Token -> {v}",
            ],
        ),
        (
            "slack_signing_secret",
            lambda: hx(32),
            [
                "Slack signing secret for the slash-command endpoint: {v} (verify v0 base string with it)",
                "SLACK_SIGNING_SECRET={v}",
                "slash cmd /ticket -> lambda. Signing Secret from Basic Information page: {v}",
            ],
        ),
        (
            "stripe_webhook_secret",
            lambda: "whsec_" + s(B62, 32),
            [
                "Stripe endpoint for invoice.paid -> n8n; signing secret {v}",
                "STRIPE_WEBHOOK_SECRET={v}  # prod endpoint, not the CLI one",
                "webhook verify kept failing bc I used the test secret. prod one is {v}",
            ],
        ),
        (
            "stripe_secret_key",
            lambda: "sk_live_" + s(B62, 99),
            [
                "Stripe restricted access wasn't enough for refunds so the Zap uses the full key: {v}",
                "export STRIPE_API_KEY={v}",
                "Make > Stripe connection 'billing-live' authenticated with {v}",
            ],
        ),
        (
            "stripe_restricted_key",
            lambda: "rk_live_" + s(B62, 99),
            [
                "Restricted key for the Xero sync (read charges, read payouts): {v}",
                "stripe rk for zapier — {v} — only customers:read + invoices:read",
                "STRIPE_RK_REPORTING={v}",
            ],
        ),
        (
            "shopify_admin_token",
            lambda: "shpat_" + hx(32),
            [
                "Shopify custom app 'ERP bridge' Admin API access token: {v} (shown once!)",
                "curl -H 'X-Shopify-Access-Token: {v}' https://acme-store.myshopify.com/admin/api/2024-10/orders.json",
                "n8n Shopify cred -> Access Token {v}, shop subdomain acme-store",
            ],
        ),
        (
            "shopify_client_secret",
            lambda: "shpss_" + hx(32),
            [
                "Public app API secret key (also the webhook HMAC key): {v}",
                "SHOPIFY_API_SECRET={v}",
                "Partner dashboard > App setup > Client secret = {v}; rotate before launch",
            ],
        ),
        (
            "shopify_custom_app_token",
            lambda: "shpca_" + hx(32),
            [
                "merchant-installed custom app token {v} for warehouse sync",
                "Shopify token (custom app, admin scopes read_inventory): {v}",
                "Stored in Make as 'Shopify - Acme custom': {v}",
            ],
        ),
        (
            "shopify_private_app_password",
            lambda: "shppa_" + hx(32),
            [
                "old private app on the legacy store still uses password {v} over basic auth",
                "legacy shop: api key is the public bit, password is {v}",
                "SHOPIFY_PRIVATE_APP_PASSWORD={v}",
            ],
        ),
        (
            "hubspot_private_app_token",
            lambda: "pat-na1-" + uid(),
            [
                "HubSpot private app 'Zendesk sync' token: {v}",
                "Authorization: Bearer {v}   (HubSpot CRM v3, scopes crm.objects.contacts.read)",
                "HUBSPOT_ACCESS_TOKEN={v}",
            ],
        ),
        (
            "hubspot_client_secret",
            lambda: uid(),
            [
                "HubSpot public app: client id is fine to share, client secret {v} is not",
                "HUBSPOT_CLIENT_SECRET={v}  # also used to compute X-HubSpot-Signature-v3",
                "hubspot dev portal > Auth tab > Client secret: {v}",
            ],
        ),
        (
            "salesforce_consumer_secret",
            lambda: s(UP + DIG, 64),
            [
                "Connected App 'Integration User' consumer secret: {v}",
                "SF_CLIENT_SECRET={v}",
                "client_credentials flow on the SF connected app. secret = {v}",
            ],
        ),
        (
            "salesforce_refresh_token",
            lambda: "5Aep861" + s(B62 + ".", 80),
            [
                "Salesforce refresh token for integration@acme.com: {v}",
                "SF_REFRESH_TOKEN={v}",
                "refresh_token from the web-server flow (refresh policy: valid until revoked) -> {v}",
            ],
        ),
        (
            "salesforce_session_id",
            lambda: f"00D{s(B62, 12)}!{s(B62 + '.', 96)}",
            [
                "grabbed a session id from the debug log to repro the Apex call: {v}",
                "Authorization: Bearer {v}",
                "sfdx force:org:display gave access token {v} (sandbox uat)",
            ],
        ),
        (
            "salesforce_security_token",
            lambda: s(B62, 24),
            [
                "SF login for the Informatica job: integration@acme.com / pw Harbor!2291 + security token {v}",
                "Salesforce security token (append to password for SOAP login): {v}",
                "SF_SECURITY_TOKEN={v}",
            ],
        ),
        (
            "zendesk_api_token",
            lambda: s(B62, 40),
            [
                "Zendesk API token for agent integrations@acme.com/token: {v}",
                "ZENDESK_API_TOKEN={v}",
                "curl -u support-bot@acme.com/token:{v} https://acme.zendesk.com/api/v2/tickets.json",
            ],
        ),
        (
            "zendesk_oauth_secret",
            lambda: hx(64),
            [
                "Zendesk OAuth client 'hubspot_bridge' secret: {v}",
                "ZD_OAUTH_CLIENT_SECRET={v}",
                "zendesk oauth client (unique id acme_sync) — secret {v}",
            ],
        ),
        (
            "intercom_access_token",
            lambda: base64.b64encode(f"tok:{uid()}:1:0".encode()).decode(),
            [
                "Intercom access token from Developer Hub: {v}",
                "INTERCOM_TOKEN={v}",
                "Authorization: Bearer {v}  (Intercom-Version: 2.11)",
            ],
        ),
        (
            "atlassian_api_token",
            lambda: "ATATT3xFfGF0" + s(B64U, 170) + "=" + s(UP + DIG, 8),
            [
                "Jira Cloud API token for automation@acme.com: {v}",
                "JIRA_API_TOKEN={v}",
                "n8n Jira SW Cloud cred: email automation@acme.com, token {v}",
            ],
        ),
        (
            "jira_basic_auth",
            lambda: base64.b64encode(f"jira-bot@acme.com:{s(B62, 24)}".encode()).decode(),
            [
                "Authorization: Basic {v}",
                "Make HTTP module header -> Authorization = Basic {v}",
                "jira basic header (email:token already base64d): {v}",
            ],
        ),
        (
            "quickbooks_client_secret",
            lambda: s(B62, 40),
            [
                "Intuit app (production keys) client secret: {v}",
                "QBO_CLIENT_SECRET={v}",
                "QuickBooks Online connector, prod: Client Secret {v}",
            ],
        ),
        (
            "quickbooks_refresh_token",
            lambda: "AB11" + num(9) + s(B62, 37),
            [
                "QBO refresh token (100 day window, rotates on use): {v}",
                "QBO_REFRESH_TOKEN={v}",
                "latest refresh_token after the 3am rotation = {v}",
            ],
        ),
        (
            "intuit_webhook_verifier",
            lambda: uid(),
            [
                "Intuit webhooks verifier token {v} — HMAC key for intuit-signature",
                "QBO_WEBHOOK_VERIFIER_TOKEN={v}",
                "QuickBooks webhook verifier: {v}",
            ],
        ),
        (
            "xero_client_secret",
            lambda: s(B64U, 48),
            [
                "Xero app 'Acme AR sync' client secret: {v}",
                "XERO_CLIENT_SECRET={v}",
                "xero custom connection (client_credentials) secret -> {v}",
            ],
        ),
        (
            "xero_refresh_token",
            lambda: hx(64),
            [
                "Xero refresh_token (60 days, single use): {v}",
                "XERO_REFRESH_TOKEN={v}",
                "after reconnecting the Xero org the new refresh token is {v}",
            ],
        ),
        (
            "xero_webhook_key",
            lambda: s(B64, 86) + "==",
            [
                "Xero webhooks key (for x-xero-signature): {v}",
                "XERO_WEBHOOK_KEY={v}",
                "webhook key from the Xero developer portal -> {v}",
            ],
        ),
        (
            "gcp_service_account_key",
            lambda: pem("PRIVATE KEY", 630),
            [
                '"type": "service_account", "client_email": "sheets-sync@acme-int.iam.gserviceaccount.com",\n"private_key": "{v}"',
                "service account for domain-wide delegation (Gmail read):\n{v}",
                "workspace-dwd key, paste into n8n Google Service Account cred:\n{v}",
            ],
        ),
        (
            "google_oauth_client_secret",
            lambda: "GOCSPX-" + s(B64U, 28),
            [
                "Google OAuth client (web) secret: {v}",
                "GOOGLE_CLIENT_SECRET={v}",
                'client_secret.json -> "client_secret": "{v}"',
            ],
        ),
        (
            "google_refresh_token",
            lambda: "1//0" + s(B64U, 99),
            [
                "refresh token for calendar-bot@acme.com (offline access): {v}",
                "GOOGLE_REFRESH_TOKEN={v}",
                "oauth playground gave refresh_token {v} — used by the Gmail trigger",
            ],
        ),
        (
            "google_access_token",
            lambda: "ya29." + s(B64U, 160),
            [
                "Authorization: Bearer {v}",
                "access token for the Drive API test (1h): {v}",
                "gcloud auth print-access-token -> {v}",
            ],
        ),
        (
            "azure_client_secret",
            azure_secret,
            [
                "Entra app 'graph-mail-reader' client secret value: {v} (expires 2027-06)",
                "AZURE_CLIENT_SECRET={v}",
                "Graph client credentials: tenant contoso, secret {v}",
            ],
        ),
        (
            "ms_refresh_token",
            lambda: "0.A" + s(B64U, 300),
            [
                "MS Graph delegated refresh token for shared mailbox flow: {v}",
                "MS_REFRESH_TOKEN={v}",
                "saved refresh_token from device code login: {v}",
            ],
        ),
        (
            "n8n_api_key",
            lambda: jwt({"sub": uid(), "iss": "n8n", "aud": "public-api", "iat": 1764000000}),
            [
                "n8n public API key (X-N8N-API-KEY): {v}",
                "N8N_API_KEY={v}",
                "curl -H 'X-N8N-API-KEY: {v}' https://n8n.acme.io/api/v1/workflows",
            ],
        ),
        (
            "n8n_encryption_key",
            lambda: s(B62, 32),
            [
                "N8N_ENCRYPTION_KEY={v}  # lose this and every stored credential is unreadable",
                "n8n instance encryption key (from ~/.n8n/config): {v}",
                "migrating n8n to k8s: set encryptionKey to {v}",
            ],
        ),
        (
            "make_api_token",
            lambda: uid(),
            [
                "Make API token (scenarios:read, scenarios:run): {v}",
                "Authorization: Token {v}",
                "MAKE_API_TOKEN={v}",
            ],
        ),
        (
            "github_webhook_secret",
            lambda: s(B62, 40),
            [
                "GitHub repo webhook secret (X-Hub-Signature-256 key): {v}",
                "GH_WEBHOOK_SECRET={v}",
                "webhook -> n8n, content type json, secret {v}",
            ],
        ),
        (
            "github_pat",
            lambda: "ghp_" + s(B62, 36),
            [
                "PAT for the Jira<->GitHub sync bot: {v}",
                "GITHUB_TOKEN={v}",
                "Zapier GitHub app uses a classic token: {v}",
            ],
        ),
        (
            "github_app_private_key",
            lambda: pem("RSA PRIVATE KEY", 1190),
            [
                "GitHub App 'acme-issue-bridge' private key:\n{v}",
                "app id 812334, installation 48812211, key:\n{v}",
                'GH_APP_PRIVATE_KEY="{v}"',
            ],
        ),
        (
            "twilio_auth_token",
            lambda: hx(32),
            [
                "Twilio AC{h} auth token {v}",
                "TWILIO_AUTH_TOKEN={v}",
                "SMS step in the Zap: account SID AC{h}, auth token {v}",
            ],
        ),
        (
            "sendgrid_api_key",
            lambda: f"SG.{s(B64U, 22)}.{s(B64U, 43)}",
            [
                "SendGrid key for transactional mail from n8n: {v}",
                "SENDGRID_API_KEY={v}",
                "smtp relay: user apikey, password {v}",
            ],
        ),
        (
            "mailchimp_api_key",
            lambda: hx(32) + "-us" + str(r.randint(2, 21)),
            [
                "Mailchimp API key for audience sync: {v}",
                "MAILCHIMP_API_KEY={v}",
                "HubSpot -> Mailchimp zap key {v}",
            ],
        ),
        (
            "airtable_pat",
            lambda: "pat" + s(B62, 14) + "." + hx(64),
            [
                "Airtable PAT (data.records:read/write on base Ops): {v}",
                "AIRTABLE_TOKEN={v}",
                "Make Airtable connection re-auth with {v}",
            ],
        ),
        (
            "notion_integration_secret",
            lambda: "ntn_" + s(DIG, 11) + s(B62, 35),
            [
                "Notion internal integration secret: {v}",
                "NOTION_TOKEN={v}",
                "Notion 'Roadmap sync' integration -> {v}",
            ],
        ),
        (
            "asana_pat",
            lambda: f"2/{num(16)}/{num(16)}:{hx(32)}",
            [
                "Asana PAT for the intake form flow: {v}",
                "ASANA_PAT={v}",
                "Authorization: Bearer {v} (asana)",
            ],
        ),
        (
            "linear_api_key",
            lambda: "lin_api_" + s(B62, 40),
            [
                "Linear personal API key used by the Intercom->Linear bridge: {v}",
                "LINEAR_API_KEY={v}",
                "linear key {v}",
            ],
        ),
        (
            "pipedrive_api_token",
            lambda: hx(40),
            [
                "Pipedrive api_token for sales ops: {v}",
                "GET https://acme.pipedrive.com/api/v1/deals?api_token={v}",
                "PIPEDRIVE_API_TOKEN={v}",
            ],
        ),
        (
            "trello_token",
            lambda: "ATTA" + hx(64) + s(UP + DIG, 8),
            [
                "Trello token (never expires) for the board sync: {v}",
                "TRELLO_TOKEN={v}",
                "trello: key is public, token={v}",
            ],
        ),
        (
            "discord_webhook_url",
            lambda: f"https://discord.com/api/webhooks/{num(19)}/{s(B64U, 68)}",
            [
                "community alerts -> {v}",
                "DISCORD_WEBHOOK={v}",
                "Zap posts new Shopify orders to Discord via {v}",
            ],
        ),
        (
            "teams_webhook_url",
            lambda: (
                f"https://acme.webhook.office.com/webhookb2/{uid()}@{uid()}/IncomingWebhook/{hx(32)}/{uid()}/V2{s(B64U, 43)}"
            ),
            [
                "Teams incoming webhook for #it-alerts: {v}",
                "TEAMS_WEBHOOK_URL={v}",
                "Power Automate replacement; posting cards to {v}",
            ],
        ),
        (
            "basic_auth_url_password",
            lambda: s(B62, 18),
            [
                "Make HTTP module calls https://svc-sync:{v}@erp.acme.internal/api/orders",
                "legacy SOAP endpoint https://integration:{v}@soap.acme.com/ws",
                "n8n webhook node basic auth: user n8nhook / pass {v}",
            ],
        ),
        (
            "client_credentials_curl",
            lambda: s(B64U, 40),
            [
                "curl -X POST https://login.acme.io/oauth/token -d grant_type=client_credentials -d client_id=erp-sync -d client_secret={v}",
                "token call for the Workato connector: client_id=wk_bridge&client_secret={v}&scope=orders",
                "OAuth2 (client creds) in Make: secret = {v}",
            ],
        ),
        (
            "live_bearer_jwt",
            lambda: jwt({"sub": "svc-integration", "scope": "orders:write", "exp": 1893456000}),
            [
                "service token (exp 2030) for the orders API: {v}",
                "Authorization: Bearer {v}",
                "API_BEARER={v}",
            ],
        ),
        (
            "dropbox_access_token",
            lambda: "sl." + s(B64U, 138),
            [
                "Dropbox token for the invoice PDF export: {v}",
                "DROPBOX_TOKEN={v}",
                "dropbox short-lived token pasted into the scenario: {v}",
            ],
        ),
        (
            "pagerduty_api_token",
            lambda: "u+" + s(B64U, 18),
            [
                "PagerDuty REST API token (user) for the Jira bridge: {v}",
                "PAGERDUTY_TOKEN={v}",
                "Authorization: Token token={v}",
            ],
        ),
        (
            "datadog_api_key",
            lambda: hx(32),
            [
                "Datadog API key for the n8n log forwarder: {v}",
                "DD_API_KEY={v}",
                "DD-API-KEY: {v}",
            ],
        ),
        (
            "aws_secret_access_key",
            lambda: s(B62 + "+/", 40),
            [
                "S3 export user AKIA{H}: secret {v}",
                "AWS_SECRET_ACCESS_KEY={v}",
                "Make S3 module: access key AKIA{H}, secret key {v}",
            ],
        ),
        (
            "postgres_url_password",
            lambda: s(B62, 20),
            [
                "DB_POSTGRESDB_PASSWORD={v}",
                "n8n db: postgres://n8n:{v}@pg.acme.internal:5432/n8n",
                "Airbyte source Postgres user airbyte_ro password {v}",
            ],
        ),
        (
            "zoom_webhook_secret",
            lambda: s(B64U, 22),
            [
                "Zoom app secret token (event notifications): {v}",
                "ZOOM_WEBHOOK_SECRET_TOKEN={v}",
                "zoom endpoint.url_validation uses secret token {v}",
            ],
        ),
        (
            "okta_api_token",
            lambda: "00" + s(B64U, 40),
            [
                "Okta API token (SSWS) for user provisioning flow: {v}",
                "Authorization: SSWS {v}",
                "OKTA_API_TOKEN={v}",
            ],
        ),
        (
            "gitlab_pat",
            lambda: "glpat-" + s(B64U, 20),
            [
                "GitLab PAT for the Jira DVCS connector: {v}",
                "GITLAB_TOKEN={v}",
                "gitlab token (api scope) {v}",
            ],
        ),
        (
            "netsuite_token_secret",
            lambda: hx(64),
            [
                "NetSuite TBA: token id {H64}, token secret {v}",
                "NS_TOKEN_SECRET={v}",
                "Celigo NetSuite connection token secret: {v}",
            ],
        ),
        (
            "azure_storage_account_key",
            lambda: b64bytes(64),
            [
                "DefaultEndpointsProtocol=https;AccountName=acmeintegr;AccountKey={v};EndpointSuffix=core.windows.net",
                "storage key1 for Logic Apps blob trigger: {v}",
                "AZURE_STORAGE_KEY={v}",
            ],
        ),
        (
            "typeform_token",
            lambda: "tfp_" + s(B62, 44) + "_" + s(B62, 14),
            [
                "Typeform personal token for the lead capture zap: {v}",
                "TYPEFORM_TOKEN={v}",
                "typeform -> hubspot via n8n, token {v}",
            ],
        ),
        (
            "clickup_token",
            lambda: f"pk_{num(8)}_{s(UP + DIG, 32)}",
            [
                "ClickUp personal token: {v}",
                "CLICKUP_API_TOKEN={v}",
                "Authorization: {v}  (clickup wants no Bearer prefix)",
            ],
        ),
        (
            "openai_api_key",
            lambda: "sk-proj-" + s(B64U, 156),
            [
                "OpenAI key used by the ticket summariser step in the Zendesk flow: {v}",
                "OPENAI_API_KEY={v}",
                "n8n OpenAI credential -> {v}",
            ],
        ),
        (
            "svix_webhook_secret",
            lambda: "whsec_" + b64bytes(24),
            [
                "Svix endpoint signing secret (Clerk user.created): {v}",
                "CLERK_WEBHOOK_SECRET={v}",
                "Resend webhook signing secret {v}",
            ],
        ),
        (
            "sftp_password",
            lambda: s(B62 + "!#%", 16),
            [
                "Bank SFTP drop (sftp.bank.example:22) user acme_ar, password {v}",
                "sftp creds for the EDI partner: edi_acme / {v}",
                "MoveIt transfer password: {v}",
            ],
        ),
        (
            "openssh_private_key",
            lambda: pem("OPENSSH PRIVATE KEY", 300),
            [
                "SFTP key for the payroll export:\n{v}",
                "n8n SSH cred private key:\n{v}",
                "edi partner key (passwordless):\n{v}",
            ],
        ),
        (
            "mongodb_uri_password",
            lambda: s(B62, 22),
            [
                "MONGO_URL=mongodb+srv://etl:{v}@cluster0.ab12c.mongodb.net/orders",
                "Mongo connection for the order log: user etl password {v}",
                "mongodb://appsmith:{v}@mongo-1:27017/appsmith?authSource=admin",
            ],
        ),
    ]

    # ------------------------------------------------------------------ benign
    def hmac_hex() -> str:
        return hmac.new(
            bytes(r.getrandbits(8) for _ in range(16)), b"payload", hashlib.sha256
        ).hexdigest()

    benign_specs = [
        (
            "n8n_credential_ref",
            lambda: s(B62, 16),
            [
                '"credentials": {"hubspotAppToken": {"id": "{v}", "name": "HubSpot prod"}}',
                "n8n credential id {v} = 'Zendesk (support@)'; secret lives in the n8n DB, not here",
                "workflow export references credential {v} (Salesforce OAuth2) — ids only, no values",
            ],
        ),
        (
            "n8n_workflow_id",
            lambda: s(B62, 16),
            [
                "n8n workflow id {v} is the Shopify -> QuickBooks invoice sync",
                "execute via /api/v1/workflows/{v}/activate (needs the API key from vault)",
                "error workflow set to {v}",
            ],
        ),
        (
            "make_connection_id",
            lambda: num(7),
            [
                "Make connection #{v} (Xero - Acme Ltd) needs reauth every 30 days",
                "scenario 3321045 uses connection {v} for HubSpot",
                "Make: __IMTCONN__ = {v}",
            ],
        ),
        (
            "zapier_zap_id",
            lambda: num(9),
            [
                "Zap {v} 'Typeform -> HubSpot' paused after the rate limit",
                "zapier.com/editor/{v}/published — owner is ops@",
                "zap id {v}, task history shows 429s from Zendesk",
            ],
        ),
        (
            "salesforce_org_id",
            lambda: "00D" + s(B62, 15),
            [
                "Prod org id {v}, sandbox uat is a different one",
                "Salesforce Organization ID: {v}",
                "SF_ORG_ID={v}  # not a secret, used to pick the right connection",
            ],
        ),
        (
            "salesforce_consumer_key",
            lambda: "3MVG9" + s(B62 + "._", 80),
            [
                "Connected App consumer key (client_id, public): {v}",
                "SF_CLIENT_ID={v}",
                "the JWT bearer flow uses iss = {v}; the private key is in Vault",
            ],
        ),
        (
            "salesforce_record_id",
            lambda: "001" + s(B62, 15),
            [
                "Test Account record {v} — use it for the HubSpot company sync",
                "bad sync: Opportunity 006{x} linked to Account {v}",
                "External id mapping: account {v} <-> hubspot company 18822311",
            ],
        ),
        (
            "hubspot_portal_id",
            lambda: num(8),
            [
                "HubSpot portal (hub) id {v} — prod; sandbox is another",
                "hs tracking script //js.hs-scripts.com/{v}.js",
                "hubId {v} shows up in every webhook event",
            ],
        ),
        (
            "hubspot_client_id",
            lambda: uid(),
            [
                "HubSpot app client id (public, in the install URL): {v}",
                "install link: https://app.hubspot.com/oauth/authorize?client_id={v}&scope=crm.objects.contacts.read&redirect_uri=https://int.acme.io/cb",
                "HUBSPOT_CLIENT_ID={v}",
            ],
        ),
        (
            "google_oauth_client_id",
            lambda: f"{num(12)}-{s(LOW + DIG, 32)}.apps.googleusercontent.com",
            [
                "Google OAuth client id: {v}",
                "GOOGLE_CLIENT_ID={v}",
                'Sign-in button data-client_id="{v}"',
            ],
        ),
        (
            "gcp_private_key_id",
            lambda: hx(40),
            [
                '"private_key_id": "{v}" — that is the key id we revoke in IAM, key itself is not in this note',
                "SA key id {v} rotated; old key deleted in console",
                "service account sheets-sync has one active key: {v} (id only)",
            ],
        ),
        (
            "gcp_sa_client_id",
            lambda: "1" + s(DIG, 20),
            [
                "domain-wide delegation: add client ID {v} with scope gmail.readonly in Admin console",
                "SA unique id {v}",
                '"client_id": "{v}"',
            ],
        ),
        (
            "azure_tenant_id",
            lambda: uid(),
            [
                "Entra tenant id {v} (contoso.onmicrosoft.com)",
                "AZURE_TENANT_ID={v}",
                "token endpoint https://login.microsoftonline.com/{v}/oauth2/v2.0/token",
            ],
        ),
        (
            "azure_app_id",
            lambda: uid(),
            [
                "Application (client) ID {v} for graph-mail-reader",
                "AZURE_CLIENT_ID={v}",
                "admin consent link: https://login.microsoftonline.com/common/adminconsent?client_id={v}",
            ],
        ),
        (
            "azure_secret_id",
            lambda: uid(),
            [
                "Certificates & secrets: Secret ID {v} (that's the id, not the value)",
                "deleted client secret with secret id {v} after rotation",
                "keyId {v} in the app manifest passwordCredentials",
            ],
        ),
        (
            "azure_cert_thumbprint",
            lambda: s("0123456789ABCDEF", 40),
            [
                "Graph app now uses a cert; thumbprint {v}",
                "x5t for cert auth comes from thumbprint {v}",
                "CERT_THUMBPRINT={v}",
            ],
        ),
        (
            "shopify_api_key_public",
            lambda: hx(32),
            [
                "Shopify app API key (= client_id, App Bridge exposes it in the browser): {v}",
                "SHOPIFY_API_KEY={v}  # public; the shpss_ secret is in 1Password",
                'shopify.app.toml: client_id = "{v}"',
            ],
        ),
        (
            "shopify_webhook_gid",
            lambda: num(13),
            [
                "webhook subscription gid://shopify/WebhookSubscription/{v} (orders/create)",
                "deleted webhook {v} via webhookSubscriptionDelete",
                "X-Shopify-Webhook-Id seen in logs: {x}; subscription {v}",
            ],
        ),
        (
            "shopify_host_param",
            lambda: (
                base64.b64encode(f"admin.shopify.com/store/{s(LOW, 8)}".encode())
                .decode()
                .rstrip("=")
            ),
            [
                "embedded app loads with host={v} (just base64 of the admin URL)",
                "the host param {v} decodes to admin.shopify.com/store/...",
                'App Bridge config host: "{v}"',
            ],
        ),
        (
            "stripe_publishable_key",
            lambda: "pk_live_" + s(B62, 99),
            [
                "Stripe publishable key for checkout page: {v}",
                "NEXT_PUBLIC_STRIPE_KEY={v}",
                "Stripe.js init with {v} (publishable, safe in the bundle)",
            ],
        ),
        (
            "stripe_webhook_endpoint_id",
            lambda: "we_" + s(B62, 24),
            [
                "Stripe webhook endpoint {v} -> https://n8n.acme.io/webhook/stripe",
                "disabled endpoint {v} after the migration",
                "endpoint id {v}; signing secret is in the vault",
            ],
        ),
        (
            "stripe_object_ids",
            lambda: "evt_" + s(B62, 24),
            [
                "replay event {v} from the dashboard to re-trigger the invoice flow",
                "failed delivery for {v} (invoice.payment_failed), cus_{x}",
                "stripe events resend {v}",
            ],
        ),
        (
            "shopify_hmac_header",
            lambda: b64bytes(32),
            [
                "X-Shopify-Hmac-Sha256: {v}",
                "orders/create delivery had hmac {v} and our computed one differed -> body was re-serialized",
                "logged header hmac={v} (signature of the payload, not the key)",
            ],
        ),
        (
            "stripe_signature_header",
            lambda: hmac_hex(),
            [
                "Stripe-Signature: t=1765012345,v1={v}",
                "sig header from failing delivery: t=1765019911,v1={v} — tolerance issue, clock skew",
                "v1 signature {v} didn't match; raw body had been parsed by express.json()",
            ],
        ),
        (
            "github_signature_header",
            lambda: hmac_hex(),
            [
                "X-Hub-Signature-256: sha256={v}",
                "delivery 72d3 failed signature check, header sha256={v}",
                "recomputed HMAC of the push payload = {v}, matches header",
            ],
        ),
        (
            "slack_signature_header",
            lambda: hmac_hex(),
            [
                "X-Slack-Signature: v0={v}",
                "slash command req: X-Slack-Request-Timestamp 1765011122, sig v0={v}",
                "Slack sig mismatch, got v0={v} — we were hashing the decoded body",
            ],
        ),
        (
            "hubspot_signature_header",
            lambda: b64bytes(32),
            [
                "X-HubSpot-Signature-v3: {v}",
                "hubspot v3 signature on contact.creation event: {v}",
                "computed base64 HMAC {v} for method+uri+body+timestamp, matches",
            ],
        ),
        (
            "zendesk_webhook_id",
            lambda: "01" + s("0123456789ABCDEFGHJKMNPQRSTVWXYZ", 24),
            [
                "Zendesk webhook {v} (ticket.created -> n8n)",
                "x-zendesk-webhook-id: {v}",
                "trigger 'Notify Slack' points at webhook {v}",
            ],
        ),
        (
            "jira_cloud_id",
            lambda: uid(),
            [
                "Jira cloudId {v}; API base https://api.atlassian.com/ex/jira/{v}/rest/api/3",
                "acme.atlassian.net tenant_info cloudId = {v}",
                "JIRA_CLOUD_ID={v}",
            ],
        ),
        (
            "atlassian_account_id",
            lambda: "712020:" + uid(),
            [
                "assign to automation user accountId {v}",
                "Jira webhook actor accountId {v}",
                "reporter {v} for auto-created bugs",
            ],
        ),
        (
            "intercom_app_id",
            lambda: s(LOW + DIG, 8),
            [
                "Intercom workspace id (app_id) {v}",
                'window.intercomSettings = { app_id: "{v}" }',
                "INTERCOM_APP_ID={v}",
            ],
        ),
        (
            "xero_tenant_id",
            lambda: uid(),
            [
                "xero-tenant-id: {v} (Acme Ltd NZ)",
                "GET /connections returned tenantId {v}",
                "XERO_TENANT_ID={v}",
            ],
        ),
        (
            "quickbooks_realm_id",
            lambda: num(19),
            [
                "QBO company (realmId) {v} — prod books",
                "https://quickbooks.api.intuit.com/v3/company/{v}/invoice",
                "QBO_REALM_ID={v}",
            ],
        ),
        (
            "redacted_token",
            lambda: r.choice(["shpat_", "xoxb-", "pat-na1-", "ghp_", "sk_live_"]) + "****" + hx(4),
            [
                "token in logs shows as {v}, good, the redaction works",
                "current key (masked in the dashboard): {v}",
                "rotated; new one ends in {x4} ({v})",
            ],
        ),
        (
            "placeholder_token",
            lambda: r.choice(
                [
                    "shpat_" + "x" * 32,
                    "sk_live_" + "X" * 24,
                    "xoxb-000000000000-0000000000000-" + "x" * 24,
                    "ghp_" + "0" * 36,
                    "pat-na1-00000000-0000-0000-0000-000000000000",
                ]
            ),
            [
                "README example: export TOKEN={v}  # replace with your own",
                "the docs sample uses {v} as a placeholder",
                "template .env.example: API_TOKEN={v}",
            ],
        ),
        (
            "vault_reference",
            lambda: (
                "op://Integrations/"
                + r.choice(["Zendesk", "HubSpot", "Xero", "Shopify"])
                + "/"
                + r.choice(["api_token", "client_secret", "refresh_token"])
            ),
            [
                "token pulled at runtime from {v}",
                'ZENDESK_API_TOKEN="{v}"  (1Password CLI resolves it)',
                "secret ref: {v} — do not paste the value anywhere",
            ],
        ),
        (
            "ci_secret_reference",
            lambda: (
                "${{ secrets."
                + r.choice(
                    [
                        "SHOPIFY_API_SECRET",
                        "HUBSPOT_TOKEN",
                        "XERO_CLIENT_SECRET",
                        "SF_REFRESH_TOKEN",
                    ]
                )
                + " }}"
            ),
            [
                "deploy job passes {v} to the container",
                "env:\n  TOKEN: {v}",
                "in n8n: {{$credentials.apiKey}} ; in GH actions: {v}",
            ],
        ),
        (
            "env_var_name_only",
            lambda: r.choice(
                [
                    "QBO_CLIENT_SECRET",
                    "SLACK_SIGNING_SECRET",
                    "N8N_ENCRYPTION_KEY",
                    "INTERCOM_TOKEN",
                ]
            ),
            [
                "{v} is set in Doppler (project integrations, config prd)",
                "missing {v} in staging; ask Priya to add it to the vault",
                "app reads {v} from env at boot; value never logged",
            ],
        ),
        (
            "git_commit_sha",
            lambda: hx(40),
            [
                "HubSpot webhook fix landed in {v}",
                "revert {v} — it broke Xero token refresh",
                "deployed connector build {v} to prod",
            ],
        ),
        (
            "image_digest",
            lambda: "sha256:" + hx(64),
            [
                "n8n image pinned to n8nio/n8n@{v}",
                "rolled back to digest {v}",
                "airbyte worker image {v}",
            ],
        ),
        (
            "discord_public_key",
            lambda: hx(64),
            [
                "Discord app PUBLIC KEY (ed25519, for verifying interactions): {v}",
                "DISCORD_PUBLIC_KEY={v}",
                "interactions endpoint verifies with public key {v}",
            ],
        ),
        (
            "jwks_kid",
            lambda: b64url_bytes(32),
            [
                "Entra JWKS kid {v} rotated overnight; our cache refetched",
                "id_token header kid={v}",
                "pinning to kid {v} was a mistake, use the jwks_uri",
            ],
        ),
        (
            "request_id",
            lambda: uid(),
            [
                "Graph 503, request-id {v}, client-request-id sent to MS support",
                "X-Request-Id: {v} (HubSpot 429)",
                "intuit_tid {v} for the failed invoice create",
            ],
        ),
        (
            "pkce_code_challenge",
            lambda: b64url_bytes(32),
            [
                "authorize URL had code_challenge={v}&code_challenge_method=S256",
                "PKCE challenge {v} (sha256 of the verifier, safe to log)",
                "Airtable OAuth debug: challenge {v}",
            ],
        ),
        (
            "oauth_state_param",
            lambda: s(B64U, 32),
            [
                "callback logged ?code=<redacted>&state={v}",
                "state mismatch: expected {v} — cookie lost across subdomains",
                "csrf state {v} (one-time, already consumed)",
            ],
        ),
        (
            "idempotency_key",
            lambda: uid(),
            [
                "Idempotency-Key: {v} on the Stripe refund retry",
                "Xero Idempotency-Key {v} prevented duplicate invoice",
                "retry with same idempotency key {v}",
            ],
        ),
        (
            "github_delivery_id",
            lambda: uid(),
            [
                "X-GitHub-Delivery: {v} — redeliver from the hook settings page",
                "delivery {v} returned 502 from n8n",
                "redelivered {v} after fixing the signature check",
            ],
        ),
        (
            "twilio_account_sid",
            lambda: "AC" + hx(32),
            [
                "Twilio account SID {v} (identifier; auth token is in vault)",
                "TWILIO_ACCOUNT_SID={v}",
                "messages posted to /2010-04-01/Accounts/{v}/Messages.json",
            ],
        ),
        (
            "sendgrid_key_id",
            lambda: s(B64U, 22),
            [
                "SendGrid API key id {v} (the listing shows ids only)",
                "deleted sendgrid key with id {v}",
                "key 'n8n-transactional' id {v}",
            ],
        ),
        (
            "mailchimp_audience_id",
            lambda: hx(10),
            [
                "Mailchimp audience (list) id {v}",
                "POST /3.0/lists/{v}/members",
                "newsletter list_id={v}",
            ],
        ),
        (
            "airtable_ids",
            lambda: "app" + s(B62, 14),
            [
                "Airtable base {v}, table tbl{x14}",
                "https://airtable.com/{v}/tbl{x14}/viw{x14}",
                "AIRTABLE_BASE_ID={v}",
            ],
        ),
        (
            "notion_database_id",
            lambda: hx(32),
            [
                "Notion roadmap database id {v}",
                "https://www.notion.so/acme/{v}?v={x32}",
                "NOTION_DB_ID={v}",
            ],
        ),
        (
            "sheets_spreadsheet_id",
            lambda: "1" + s(B64U, 43),
            [
                "Lead log sheet: https://docs.google.com/spreadsheets/d/{v}/edit",
                "SHEET_ID={v}",
                "Google Sheets node spreadsheetId {v}, tab 'raw'",
            ],
        ),
        (
            "drive_file_id",
            lambda: "1" + s(B64U, 32),
            [
                "invoice template doc id {v}",
                "Drive folder {v} shared with the service account",
                "https://drive.google.com/file/d/{v}/view",
            ],
        ),
        (
            "graph_delta_link",
            lambda: s(B64U, 90),
            [
                "@odata.deltaLink: https://graph.microsoft.com/v1.0/users/delta?$deltatoken={v}",
                "saved deltatoken {v} so the next run only pulls changes",
                "nextLink ...messages?$skiptoken={v}",
            ],
        ),
        (
            "graph_subscription_id",
            lambda: uid(),
            [
                "Graph subscription {v} on /users/ops@contoso.com/messages, expires in 3 days",
                "renew subscription {v} via PATCH",
                "change notification subscriptionId {v}",
            ],
        ),
        (
            "pagination_cursor",
            lambda: b64bytes(36),
            [
                "Intercom conversations starting_after={v}",
                "resume HubSpot export from after={v}",
                "Zendesk cursor page[after]={v}",
            ],
        ),
        (
            "unsigned_jwt_claims",
            lambda: jwt(
                {
                    "iss": "https://login.microsoftonline.com/",
                    "aud": "00000003-0000-0000-c000-000000000000",
                    "roles": ["Mail.Read"],
                },
                signed=False,
            ),
            [
                "decoded header.payload only (signature stripped) to check roles: {v}",
                "claims part of the token, no signature: {v}",
                "JWT without the third segment for the bug report: {v}",
            ],
        ),
        (
            "token_sha256_digest",
            lambda: hashlib.sha256(s(B62, 40).encode()).hexdigest(),
            [
                "we store sha256(api_key) = {v} to look keys up, never the key",
                "fingerprint of the revoked Zendesk token: sha256 {v}",
                "token_hash column {v}",
            ],
        ),
        (
            "aws_access_key_id_alone",
            lambda: "AKIA" + s(UP + "234567", 16),
            [
                "S3 export IAM user access key id {v}; the secret half is in Secrets Manager",
                "CloudTrail shows calls from key id {v}",
                "aws_access_key_id = {v}  # secret omitted on purpose",
            ],
        ),
        (
            "okta_client_id",
            lambda: "0oa" + s(B62, 17),
            [
                "Okta OIDC app client id {v} (SPA, PKCE, no secret)",
                "OKTA_CLIENT_ID={v}",
                "okta app {v} assigned to Integrations group",
            ],
        ),
        (
            "slack_public_ids",
            lambda: f"{num(12)}.{num(13)}",
            [
                "Slack app client id {v} (public, goes in the Add to Slack button)",
                "SLACK_CLIENT_ID={v}",
                "oauth/v2/authorize?client_id={v}&scope=chat:write",
            ],
        ),
        (
            "github_app_client_id",
            lambda: "Iv1." + hx(16),
            [
                "GitHub App client id {v}",
                "GH_APP_CLIENT_ID={v}",
                "device flow: client_id={v}",
            ],
        ),
        (
            "ssh_public_key",
            lambda: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + s(B64, 43),
            [
                "add to partner SFTP authorized_keys: {v} edi@acme",
                "our public key for the bank: {v}",
                "deploy key (read-only) {v}",
            ],
        ),
        (
            "sri_integrity_hash",
            lambda: "sha384-" + b64bytes(48),
            [
                '<script src="https://js.intercomcdn.com/shim.js" integrity="{v}">',
                "pinned widget integrity {v}",
                "SRI for the chat widget: {v}",
            ],
        ),
        (
            "password_policy_talk",
            lambda: "",
            [
                "Zendesk agents must use SSO now; password login disabled for everyone but the owner {n}",
                "note {n}: integration users get a 32-char generated password, stored only in vault",
                "QBO kicks the session if the password changes — reconnect app after reset (ticket {n})",
            ],
        ),
        (
            "key_other_sense",
            lambda: r.choice(["OPS", "FIN", "CRM", "SUP"]) + "-" + num(4),
            [
                "Jira issue key {v} tracks the HubSpot dedupe rule",
                "primary key for the sync table is (tenant_id, external_id); see {v}",
                "the 'token' field in the Typeform payload is the response token, see {v}",
            ],
        ),
        (
            "rotation_talk",
            lambda: "",
            [
                "rotated the Shopify client secret today (#{n}); webhooks verified with the new one after redeploy",
                "Xero refresh tokens are single-use: if two workers refresh at once one gets invalid_grant ({n})",
                "Salesforce refresh token policy set to 'expire if not used for 90 days' — case {n}",
            ],
        ),
        (
            "webhook_test_vector_digest",
            lambda: hmac.new(b"test_secret", s(LOW, 12).encode(), hashlib.sha256).hexdigest(),
            [
                "unit test: HMAC-SHA256(key='test_secret', body) must equal {v}",
                "expected digest for fixture payload: {v}",
                "signature in the docs example: {v}",
            ],
        ),
        (
            "revoked_token_fragment",
            lambda: "xoxb-…" + s(B62, 4),
            [
                "revoked the leaked Slack token ending {v} — only the last 4 kept for the incident log",
                "incident {n}: token {v} (truncated) revoked and reissued",
                "audit: prefix+last4 of the old bot token {v}, revoked",
            ],
        ),
    ]

    rows: list[dict] = []

    def fill(t: str, v: str) -> str:
        return (
            t.replace("{h}", hx(32))
            .replace("{H64}", hx(64))
            .replace("{H}", s(UP + "234567", 16))
            .replace("{x4}", hx(4))
            .replace("{x14}", s(B62, 14))
            .replace("{x32}", hx(32))
            .replace("{x}", s(B62, 15))
            .replace("{n}", num(5))
            .replace("{v}", v)
        )

    for label, specs in (("secret", secret_specs), ("benign", benign_specs)):
        for kind, gen, templates in specs:
            for t in templates:
                v = gen()
                text = fill(t, v)
                rows.append({"label": label, "kind": kind, "text": text, "value": v})

    for row in rows:
        assert row["value"] in row["text"], row
    return rows


def main() -> None:
    lines = "".join(json.dumps(row) + "\n" for row in corpus())
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w", encoding="utf-8") as out:
            out.write(lines)
    else:
        sys.stdout.write(lines)


if __name__ == "__main__":
    main()

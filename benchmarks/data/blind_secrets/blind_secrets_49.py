# ruff: noqa: E501
"""Blind secret-detector corpus 49: a retail company's data and analytics team.

Brief: notebooks, BI tools (Tableau, Looker, Power BI, Metabase, Superset), warehouses
and lakes (Snowflake, BigQuery, Redshift, Databricks), dbt and Airflow, reverse ETL and
CDPs, marketing and ads APIs, SFTP drops from partners, Excel and Google Sheets
connectors, service accounts and key-pair auth, and the many ids, hashes, query ids
and dataset names that look like keys.

Written blind on 2026-12-07: the author did not read the detector, its tests or any
earlier corpus.

Run: python blind_secrets_49.py [out.jsonl]   (JSONL to the path, or to stdout)

Every value is generated from random.Random(SEED); none is a real credential.

Kinds, secret: snowflake_password, snowflake_private_key_pem,
snowflake_key_passphrase, bigquery_sa_private_key, redshift_jdbc_password,
databricks_pat, databricks_oauth_secret, dbt_cloud_token, airflow_conn_uri,
airflow_fernet_key, airflow_webserver_secret, tableau_pat_secret,
looker_client_secret, looker_access_token, powerbi_client_secret, metabase_api_key,
metabase_embedding_secret, superset_secret_key, flask_session_cookie,
segment_public_api_token, braze_rest_key, google_ads_refresh_token,
google_oauth_access_token, google_oauth_client_secret, meta_ads_access_token,
tiktok_ads_access_token, amazon_lwa_client_secret, amazon_lwa_refresh_token,
sftp_password, sftp_openssh_private_key, aws_secret_access_key,
azure_storage_account_key, azure_sas_signature, gcs_hmac_secret,
slack_webhook_url, slack_bot_token, github_pat, github_fine_grained_pat,
shopify_admin_token, shopify_app_secret, stripe_secret_key,
stripe_restricted_key, klaviyo_private_key, mailchimp_api_key, sendgrid_api_key,
hubspot_private_app_token, salesforce_security_token, postgres_url_password,
mongodb_srv_password, fivetran_api_secret, npm_token, pypi_token, openai_api_key,
anthropic_api_key, datadog_api_key, kaggle_api_key, gitlab_pat, twilio_auth_token,
odbc_connection_pwd, jupyter_server_token, mixpanel_sa_secret, amplitude_secret_key,
age_secret_key, pgpass_line, redis_url_password, basic_auth_url,
confluent_api_secret, jump_host_password.

Kinds, benign: snowflake_query_id, bigquery_job_id, bigquery_table_ref,
gcp_private_key_id, snowflake_rsa_public_key, snowflake_pubkey_fingerprint,
databricks_cluster_id, databricks_workspace_url, dbt_node_checksum, dbt_cloud_job_id,
airflow_run_id, airflow_conn_redacted, tableau_pat_name, tableau_workbook_luid,
looker_client_id, looker_query_slug, powerbi_tenant_guid, powerbi_dataset_id,
superset_placeholder_key, stripe_publishable_key, klaviyo_public_site_id,
google_ads_customer_id, meta_ad_account_id, ga4_measurement_id, gtm_container_id,
sftp_host_fingerprint, ssh_public_key, aws_documented_example_key, aws_role_arn,
s3_etag, git_commit_sha, partner_file_sha256, vault_reference, env_var_reference,
masked_key, angle_placeholder, x_filled_example, password_column_talk,
nlp_token_talk, surrogate_key_md5, idempotency_key, hashed_email_match,
request_uuid, trace_id, docker_digest, npm_integrity, google_sheet_id,
google_oauth_client_id, fivetran_connector_id, rotation_talk, password_policy,
keypair_howto, snowflake_account_locator, gcs_crc32c, stripe_object_ids,
shopify_gid, shopify_webhook_hmac_header, x509_certificate, pgp_public_key,
azure_blob_url_no_sas, sas_sig_redacted, test_card_number, sendgrid_template_id,
twilio_account_sid, slack_channel_ids, mailchimp_audience_id, base64_config_blob,
jwks_modulus, metabase_card_ids, secret_word_other_sense.
"""

import json
import random
import string
import sys

SEED = 4949

AN = string.ascii_letters + string.digits
UP = string.ascii_uppercase + string.digits
HEX = "0123456789abcdef"
B64 = string.ascii_letters + string.digits + "+/"
URL = string.ascii_letters + string.digits + "-_"
B32 = "023456789acdefghjklmnpqrstuvwxyz"


def corpus() -> list[dict]:
    r = random.Random(SEED)

    def s(alpha, n):
        return "".join(r.choice(alpha) for _ in range(n))

    def uuid():
        h = s(HEX, 32)
        return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"

    def pem(label, body_len=1620):
        body = s(B64, body_len)
        lines = [body[i : i + 64] for i in range(0, len(body), 64)]
        return f"-----BEGIN {label}-----\n" + "\n".join(lines) + f"\n-----END {label}-----"

    def pw():
        return s(string.ascii_letters, 5) + r.choice("!#%*@$") + s(AN, 6) + s(string.digits, 2)

    def b64pad(n):
        return s(B64, n) + "="

    secret = [
        (
            "snowflake_password",
            pw,
            [
                "profiles.yml for the retail_analytics target:\n  user: DBT_PROD\n  password: {v}\n  role: TRANSFORMER",
                "snowsql -a ab12345.eu-west-1 -u LOADER_SVC, pw is {v} (works as of today)",
                "Reminder: the SNOWFLAKE_PASSWORD for the Tableau extract user is {v}",
            ],
        ),
        (
            "snowflake_private_key_pem",
            lambda: pem("PRIVATE KEY"),
            [
                "rsa_key.p8 for SVC_LOOKER key-pair auth:\n{v}",
                "Pasted the unencrypted key so the notebook can connect:\n{v}",
            ],
        ),
        (
            "snowflake_key_passphrase",
            pw,
            [
                "private_key_passphrase for rsa_key_enc.p8 (dbt prod) = {v}",
                "The encrypted p8 for FIVETRAN_USER opens with passphrase {v}",
                "PRIVATE_KEY_PASSPHRASE={v}  # airflow snowflake conn extra",
            ],
        ),
        (
            "bigquery_sa_private_key",
            lambda: pem("PRIVATE KEY", 1580).replace("\n", "\\n"),
            [
                'sa-bq-loader.json: "private_key": "{v}"',
                'Looker BigQuery connection, the JSON key field private_key was "{v}"',
            ],
        ),
        (
            "redshift_jdbc_password",
            pw,
            [
                "jdbc:redshift://retail-dw.c9xk2.us-east-1.redshift.amazonaws.com:5439/prod?user=bi_reader&password={v}",
                "Redshift admin awsuser / {v} - needed for the VACUUM job",
                "Power BI gateway -> Redshift: login analyst_ro, password {v}",
            ],
        ),
        (
            "databricks_pat",
            lambda: "dapi" + s(HEX, 32),
            [
                "DATABRICKS_TOKEN={v}",
                "databricks configure --token -> host https://adb-4471.11.azuredatabricks.net, token {v}",
                "Job cluster uses PAT {v} (mine, expires in 90d)",
            ],
        ),
        (
            "databricks_oauth_secret",
            lambda: "dose" + s(HEX, 32),
            [
                "SP 'airflow-dbx' client secret: {v}",
                "DATABRICKS_CLIENT_SECRET={v}\nDATABRICKS_CLIENT_ID is the app id from the account console",
            ],
        ),
        (
            "dbt_cloud_token",
            lambda: "dbtc_" + s(URL, 56),
            [
                "dbt Cloud service token (job admin) for the Airflow trigger: {v}",
                "export DBT_CLOUD_API_TOKEN={v}",
                "Authorization: Token {v}  -> POST /api/v2/accounts/7731/jobs/51/run/",
            ],
        ),
        (
            "airflow_conn_uri",
            lambda: pw(),
            [
                "AIRFLOW_CONN_WAREHOUSE='postgres://etl_user:{v}@dw-prod.internal:5432/retail'",
                "airflow connections add sftp_nielsen --conn-uri 'sftp://retail_drop:{v}@sftp.partner.example.net:22'",
            ],
        ),
        (
            "airflow_fernet_key",
            lambda: s(URL, 43) + "=",
            [
                "AIRFLOW__CORE__FERNET_KEY={v}",
                "fernet_key in airflow.cfg (prod): {v} - needed to decrypt existing connections",
                "If we rebuild the scheduler keep the Fernet key: {v}",
            ],
        ),
        (
            "airflow_webserver_secret",
            lambda: s(HEX, 48),
            [
                "AIRFLOW__WEBSERVER__SECRET_KEY={v}",
                "[webserver]\nsecret_key = {v}",
            ],
        ),
        (
            "tableau_pat_secret",
            lambda: s(B64, 22) + "==:" + s(AN, 32),
            [
                "Tableau PAT name ci-publisher, secret {v}",
                "tabcmd login --token-name extract-refresh --token-value {v}",
                "TABLEAU_PAT_SECRET={v}",
            ],
        ),
        (
            "looker_client_secret",
            lambda: s(AN, 24),
            [
                "looker.ini\n[Looker]\nbase_url=https://retail.cloud.looker.com\nclient_id=Wq7Rk2mP9xZt4bN8cVyL\nclient_secret={v}",
                "LOOKERSDK_CLIENT_SECRET={v}",
                "API3 creds for the lookml-ci user: secret is {v}",
            ],
        ),
        (
            "looker_access_token",
            lambda: s(AN, 40),
            [
                "curl -H 'Authorization: token {v}' https://retail.cloud.looker.com/api/4.0/dashboards/812",
                "Got a Looker access_token from /login: {v} (valid one hour)",
            ],
        ),
        (
            "powerbi_client_secret",
            lambda: s(AN, 3) + "8Q~" + s(AN + "~._-", 34),
            [
                "Power BI embed app (Entra app reg pbi-embed-retail) client secret: {v}",
                "AZURE_CLIENT_SECRET={v}",
                "PBI service principal secret value {v} (secret ID is a different guid, don't mix them up)",
            ],
        ),
        (
            "metabase_api_key",
            lambda: "mb_" + s(B64, 43) + "=",
            [
                "Metabase API key for the sync script: x-api-key: {v}",
                "MB_API_KEY={v}",
            ],
        ),
        (
            "metabase_embedding_secret",
            lambda: s(HEX, 64),
            [
                "MB_EMBEDDING_SECRET_KEY={v}",
                "Metabase embedding secret (signs the dashboard JWTs in the storefront): {v}",
                "The static embed signing key in Admin > Embedding is {v}",
            ],
        ),
        (
            "superset_secret_key",
            lambda: s(B64, 42),
            [
                "superset_config.py\nSECRET_KEY = '{v}'",
                "SUPERSET_SECRET_KEY={v}",
            ],
        ),
        (
            "flask_session_cookie",
            lambda: "eyJ" + s(URL, 38) + "." + s(URL, 6) + "." + s(URL, 27),
            [
                "Superset session cookie from my browser so the agent can call the API: session={v}",
                "Cookie: session={v}",
            ],
        ),
        (
            "segment_public_api_token",
            lambda: "sgp_" + s(AN, 64),
            [
                "Segment Public API token (workspace owner) {v}",
                "SEGMENT_PAPI_TOKEN={v}",
            ],
        ),
        (
            "braze_rest_key",
            uuid,
            [
                "Braze REST API key (users.track + campaigns.trigger scopes): {v}",
                "BRAZE_API_KEY={v}\nBRAZE_REST_ENDPOINT=https://rest.iad-03.braze.com",
            ],
        ),
        (
            "google_ads_refresh_token",
            lambda: "1//0" + s(URL, 99),
            [
                "google-ads.yaml\ndeveloper_token: {dev}\nrefresh_token: {v}",
                "Refresh token for ads-reporting@ OAuth consent: {v}",
            ],
        ),
        (
            "google_oauth_access_token",
            lambda: "ya29.a0" + s(URL, 150),
            [
                "Authorization: Bearer {v}",
                "gcloud auth print-access-token gave {v} - paste into the BigQuery REST call",
            ],
        ),
        (
            "google_oauth_client_secret",
            lambda: "GOCSPX-" + s(URL, 28),
            [
                "Sheets connector OAuth client: client_secret {v}",
                '{{"installed":{{"client_id":"618204933512-q3kfv8.apps.googleusercontent.com","client_secret":"{v}"}}}}',
                "GOOGLE_CLIENT_SECRET={v}",
            ],
        ),
        (
            "meta_ads_access_token",
            lambda: "EAAG" + s(AN, 180),
            [
                "Meta Marketing API system user token (ads_read, ads_management): {v}",
                "FB_ACCESS_TOKEN={v}",
                "graph.facebook.com/v19.0/act_1187/insights?access_token={v}",
            ],
        ),
        (
            "tiktok_ads_access_token",
            lambda: s(HEX, 40),
            [
                "TikTok Business API Access-Token header: {v}",
                "tiktok ads long-lived access_token={v}",
            ],
        ),
        (
            "amazon_lwa_client_secret",
            lambda: "amzn1.oa2-cs.v1." + s(HEX, 64),
            [
                "Amazon Ads LWA client secret {v}",
                "LWA_CLIENT_SECRET={v}",
            ],
        ),
        (
            "amazon_lwa_refresh_token",
            lambda: "Atzr|IwEB" + s(URL, 200),
            [
                "Amazon Ads refresh_token: {v}",
                "SP-API refresh token for the Vendor Central app {v}",
            ],
        ),
        (
            "sftp_password",
            pw,
            [
                "Nielsen SFTP drop: host sftp.nielsen-retail.example, user acme_drop, password {v}",
                "Partner SFTP (Circana weekly POS): login acme_pos / {v}",
                "sshpass -p '{v}' sftp -P 2222 acme@files.syndigo.example",
            ],
        ),
        (
            "sftp_openssh_private_key",
            lambda: pem("OPENSSH PRIVATE KEY", 380).replace(
                "KEY-----\n", "KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA", 1
            ),
            [
                "id_ed25519 for the Kroger 84.51 SFTP drop:\n{v}",
                "Private key the Airflow SFTPOperator uses (conn sftp_partner):\n{v}",
            ],
        ),
        (
            "aws_secret_access_key",
            lambda: s(AN + "/+", 40),
            [
                "aws_access_key_id = AKIA" + "{kid}" + "\naws_secret_access_key = {v}",
                "Redshift COPY creds: CREDENTIALS 'aws_access_key_id=AKIA{kid};aws_secret_access_key={v}'",
                "AWS_SECRET_ACCESS_KEY={v}",
            ],
        ),
        (
            "azure_storage_account_key",
            lambda: s(B64, 86) + "==",
            [
                "DefaultEndpointsProtocol=https;AccountName=retaillakeprod;AccountKey={v};EndpointSuffix=core.windows.net",
                "ADLS key1 for retaillakeprod: {v}",
            ],
        ),
        (
            "azure_sas_signature",
            lambda: s(AN + "%", 43) + "%3D",
            [
                "https://retaillakeprod.blob.core.windows.net/drops/pos.csv?sv=2022-11-02&ss=b&srt=co&sp=rl&se=2027-03-01T00:00:00Z&sig={v}",
                "SAS for the partner upload container (write, 6 months): sp=cw&sig={v}",
            ],
        ),
        (
            "gcs_hmac_secret",
            lambda: s(B64, 40),
            [
                "GCS HMAC key for the S3-compatible sync: access GOOG1E" + "{gid}" + " secret {v}",
                "gsutil boto config: gs_secret_access_key = {v}",
            ],
        ),
        (
            "slack_webhook_url",
            lambda: (
                "https://hooks.slack.com/services/T0"
                + s(UP, 8)
                + "/B0"
                + s(UP, 8)
                + "/"
                + s(AN, 24)
            ),
            [
                "dbt failure alerts go to {v}",
                "SLACK_WEBHOOK_URL={v}",
                "Airflow on_failure_callback posts to #data-alerts via {v}",
            ],
        ),
        (
            "slack_bot_token",
            lambda: "xoxb-" + s(string.digits, 12) + "-" + s(string.digits, 13) + "-" + s(AN, 24),
            [
                "SLACK_BOT_TOKEN={v}",
                "datahub-bot token {v} (chat:write, files:write)",
            ],
        ),
        (
            "github_pat",
            lambda: "ghp_" + s(AN, 36),
            [
                "dbt deps needs private package access: git+https://{v}@github.com/acme-retail/dbt-utils-internal.git",
                "GH token for the lookml deploy action {v}",
            ],
        ),
        (
            "github_fine_grained_pat",
            lambda: "github_pat_11" + s(UP, 20) + "_" + s(AN, 59),
            [
                "fine-grained PAT (repo: analytics-dbt, contents rw) {v}",
                "GITHUB_TOKEN={v}",
            ],
        ),
        (
            "shopify_admin_token",
            lambda: "shpat_" + s(HEX, 32),
            [
                "Shopify Admin API token for the orders extract: X-Shopify-Access-Token: {v}",
                "SHOPIFY_ACCESS_TOKEN={v}  # acme-store.myshopify.com",
                "custom app 'warehouse-sync' admin token {v}",
            ],
        ),
        (
            "shopify_app_secret",
            lambda: "shpss_" + s(HEX, 32),
            [
                "Shopify app API secret key (verifies webhooks) {v}",
                "SHOPIFY_API_SECRET={v}",
            ],
        ),
        (
            "stripe_secret_key",
            lambda: "sk_live_51" + s(AN, 97),
            [
                "STRIPE_SECRET_KEY={v}",
                "stripe payouts backfill used {v} (read only would have been better)",
            ],
        ),
        (
            "stripe_restricted_key",
            lambda: "rk_live_51" + s(AN, 97),
            [
                "Restricted key for the revenue dashboard (charges: read): {v}",
                "Fivetran Stripe connector key {v}",
            ],
        ),
        (
            "klaviyo_private_key",
            lambda: "pk_" + s(HEX, 34),
            [
                "Klaviyo private API key (full access) {v}",
                "Authorization: Klaviyo-API-Key {v}",
                "KLAVIYO_PRIVATE_KEY={v}",
            ],
        ),
        (
            "mailchimp_api_key",
            lambda: s(HEX, 32) + "-us21",
            [
                "Mailchimp API key {v}",
                "MAILCHIMP_KEY={v}  (dc us21)",
            ],
        ),
        (
            "sendgrid_api_key",
            lambda: "SG." + s(URL, 22) + "." + s(URL, 43),
            [
                "SENDGRID_API_KEY={v}",
                "report mailer sends through sendgrid with {v}",
            ],
        ),
        (
            "hubspot_private_app_token",
            lambda: "pat-na1-" + uuid(),
            [
                "HubSpot private app token (crm.objects.contacts.write) {v}",
                "Hightouch -> HubSpot destination auth: {v}",
            ],
        ),
        (
            "salesforce_security_token",
            lambda: s(AN, 25),
            [
                "Salesforce integration user: integration@acme-retail.com / Spring2026!x + security token {v}",
                "SF_SECURITY_TOKEN={v}",
            ],
        ),
        (
            "postgres_url_password",
            pw,
            [
                "DATABASE_URL=postgresql://metabase_app:{v}@mb-db.prod.internal:5432/metabase",
                "Superset metadata DB: postgresql+psycopg2://superset:{v}@10.20.4.11/superset",
            ],
        ),
        (
            "mongodb_srv_password",
            pw,
            [
                "loyalty events source: mongodb+srv://reader:{v}@loyalty.x7kq2.mongodb.net/events",
                "MONGO_URI=mongodb+srv://airbyte:{v}@cluster0.ab3cd.mongodb.net",
            ],
        ),
        (
            "fivetran_api_secret",
            lambda: s(AN, 32),
            [
                "Fivetran API key 7Hn2QkLm9PzR4tWx, secret {v}",
                "FIVETRAN_API_SECRET={v}",
            ],
        ),
        (
            "npm_token",
            lambda: "npm_" + s(AN, 36),
            [
                "//registry.npmjs.org/:_authToken={v}",
                "NPM_TOKEN={v} (publishes @acme-retail/tracking-snippet)",
            ],
        ),
        (
            "pypi_token",
            lambda: "pypi-AgEIcHlwaS5vcmc" + s(URL, 140),
            [
                "PyPI upload token for acme-dq-checks: {v}",
                "[pypi]\nusername = __token__\npassword = {v}",
            ],
        ),
        (
            "openai_api_key",
            lambda: "sk-proj-" + s(URL, 74) + "T3BlbkFJ" + s(URL, 74),
            [
                "OPENAI_API_KEY={v}",
                "the product-description classifier notebook uses {v}",
            ],
        ),
        (
            "anthropic_api_key",
            lambda: "sk-ant-api03-" + s(URL, 93) + "AA",
            [
                "ANTHROPIC_API_KEY={v}",
                "review-summary job key: {v}",
            ],
        ),
        (
            "datadog_api_key",
            lambda: s(HEX, 32),
            [
                "DD_API_KEY={v}",
                "Datadog API key for airflow statsd -> {v}",
            ],
        ),
        (
            "kaggle_api_key",
            lambda: s(HEX, 32),
            [
                '~/.kaggle/kaggle.json {{"username":"acme-ds","key":"{v}"}}',
                "KAGGLE_KEY={v}",
            ],
        ),
        (
            "gitlab_pat",
            lambda: "glpat-" + s(URL, 20),
            [
                "GitLab token for the analytics mirror {v}",
                "CI_PUSH_TOKEN={v}",
            ],
        ),
        (
            "twilio_auth_token",
            lambda: s(HEX, 32),
            [
                "Twilio auth token (SMS receipts) {v}",
                "TWILIO_AUTH_TOKEN={v}",
            ],
        ),
        (
            "odbc_connection_pwd",
            pw,
            [
                "Excel Power Query ODBC: Driver={{SnowflakeDSIIDriver}};Server=ab12345.snowflakecomputing.com;UID=EXCEL_RO;PWD={v}",
                "Sheets add-on connection string Server=sql-retail.database.windows.net;Database=finance;User Id=xl_reader;Password={v};",
            ],
        ),
        (
            "jupyter_server_token",
            lambda: s(HEX, 48),
            [
                "Shared JupyterHub notebook: http://10.30.1.8:8888/lab?token={v}",
                "jupyter server list -> http://localhost:8888/?token={v} :: /home/ds",
            ],
        ),
        (
            "mixpanel_sa_secret",
            lambda: s(AN, 32),
            [
                "Mixpanel service account etl.5c1a2b.mp-service-account secret {v}",
                "MIXPANEL_SA_SECRET={v}",
            ],
        ),
        (
            "amplitude_secret_key",
            lambda: s(HEX, 32),
            [
                "Amplitude export API: api key 3f9c... is fine to share, secret key is {v}",
                "AMPLITUDE_SECRET_KEY={v}",
            ],
        ),
        (
            "age_secret_key",
            lambda: "AGE-SECRET-KEY-1" + s(B32.upper(), 58),
            [
                "sops age key for the dbt secrets repo: {v}",
                "# created: 2026-11-02\n# public key: age1qz...\n{v}",
            ],
        ),
        (
            "pgpass_line",
            pw,
            [
                "~/.pgpass\nredshift-prod.internal:5439:retail:dq_runner:{v}",
                "added to .pgpass: dw-replica:5432:*:readonly_bi:{v}",
            ],
        ),
        (
            "redis_url_password",
            lambda: s(AN, 32),
            [
                "Airflow celery broker: redis://:{v}@redis-airflow.internal:6379/0",
                "REDIS_URL=rediss://default:{v}@feature-cache.retail.example:6380",
            ],
        ),
        (
            "basic_auth_url",
            pw,
            [
                "Internal Metabase behind nginx basic auth: https://analyst:{v}@metabase.acme-retail.internal",
                "Superset health probe uses https://probe:{v}@bi.acme-retail.internal/health",
            ],
        ),
        (
            "confluent_api_secret",
            lambda: s(AN + "+/", 64),
            [
                "Confluent Cloud clickstream cluster: key VQ3K7ZP2MXNR4TLA secret {v}",
                "sasl.jaas.config=... username='VQ3K7ZP2MXNR4TLA' password='{v}';",
            ],
        ),
        (
            "jump_host_password",
            pw,
            [
                "bastion for the on-prem POS db: ssh dsteam@bastion.stores.internal, pw {v}",
                "Store-ops SQL Server via jump box, root password on the box is {v}",
            ],
        ),
    ]

    def fp():
        return "SHA256:" + s(B64, 43)

    benign = [
        (
            "snowflake_query_id",
            lambda: "01b" + s(HEX, 5) + "-0" + s(HEX, 3) + "-" + s(HEX, 4) + "-0000-" + s(HEX, 12),
            [
                "Slow dashboard query: Snowflake query id {v}, spilled 40GB to remote",
                "RESULT_SCAN('{v}') to reuse the orders dedupe result",
                "query_id {v} is the one that took the warehouse to 4XL",
            ],
        ),
        (
            "bigquery_job_id",
            lambda: "bquxjob_" + s(HEX, 8) + "_" + s(HEX, 11),
            [
                "BQ job {v} failed with resourcesExceeded",
                "bq show -j retail-prod:US.{v}",
                "Cost spike traced to job {v} (full scan of events_*)",
            ],
        ),
        (
            "bigquery_table_ref",
            lambda: (
                "retail-prod-"
                + s(string.digits, 6)
                + ".analytics_"
                + s(string.digits, 9)
                + ".events_20261201"
            ),
            [
                "GA4 export lands in {v}",
                "SELECT count(*) FROM `{v}` -> 1.8M rows",
            ],
        ),
        (
            "gcp_private_key_id",
            lambda: s(HEX, 40),
            [
                "Rotated the bq-loader key; the new private_key_id is {v} (key itself stays in Secret Manager)",
                "Audit: service account sa-looker@retail-prod.iam has one active key, id {v}",
            ],
        ),
        (
            "snowflake_rsa_public_key",
            lambda: "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA" + s(B64, 348) + "IDAQAB",
            [
                "ALTER USER SVC_LOOKER SET RSA_PUBLIC_KEY='{v}';",
                "public half registered for DBT_PROD: {v}",
            ],
        ),
        (
            "snowflake_pubkey_fingerprint",
            fp,
            [
                "DESC USER DBT_PROD shows RSA_PUBLIC_KEY_FP={v}",
                "Key-pair check: local rsa_key.pub fingerprint {v} matches Snowflake",
            ],
        ),
        (
            "databricks_cluster_id",
            lambda: (
                "1"
                + s(string.digits, 3)
                + "-"
                + s(string.digits, 6)
                + "-"
                + s(string.ascii_lowercase + string.digits, 8)
            ),
            [
                "Attach the notebook to cluster {v} (shared, DBR 15.4)",
                "cluster_id: {v}  # in databricks.yml job spec",
            ],
        ),
        (
            "databricks_workspace_url",
            lambda: (
                "https://adb-"
                + s(string.digits, 16)
                + "."
                + s(string.digits, 2)
                + ".azuredatabricks.net"
            ),
            [
                "Prod workspace is {v}; auth is via the SP, not PATs",
                "DATABRICKS_HOST={v}",
            ],
        ),
        (
            "dbt_node_checksum",
            lambda: s(HEX, 64),
            [
                'manifest.json: model.retail.fct_orders checksum {{"name":"sha256","checksum":"{v}"}}',
                "state:modified picked up stg_pos because its checksum changed to {v}",
            ],
        ),
        (
            "dbt_cloud_job_id",
            lambda: s(string.digits, 6),
            [
                "dbt Cloud nightly job id {v}, account 7731, env 20455",
                "Rerun dbt Cloud run {v} from failure",
            ],
        ),
        (
            "airflow_run_id",
            lambda: "scheduled__2026-12-0" + s("123456", 1) + "T0" + s("12345", 1) + ":00:00+00:00",
            [
                "clear task load_pos for run_id {v}",
                "DAG retail_daily, {v} stuck in queued",
            ],
        ),
        (
            "airflow_conn_redacted",
            lambda: "***",
            [
                "airflow connections get warehouse -> postgres://etl_user:{v}@dw-prod.internal:5432/retail (masked)",
                "The task log shows password={v} so masking works",
            ],
        ),
        (
            "tableau_pat_name",
            lambda: "ci-publisher-" + s(string.digits, 4),
            [
                "Tableau PAT name {v}; the secret half is in 1Password 'Tableau CI'",
                "Extract refresh uses token name {v} (value injected by the runner)",
            ],
        ),
        (
            "tableau_workbook_luid",
            uuid,
            [
                "Weekly Sales workbook luid {v}",
                "GET /api/3.22/sites/retail/workbooks/{v}/views",
            ],
        ),
        (
            "looker_client_id",
            lambda: s(AN, 20),
            [
                "LOOKERSDK_CLIENT_ID={v}  (secret comes from Vault)",
                "Looker API3 client_id {v} belongs to lookml-ci",
            ],
        ),
        (
            "looker_query_slug",
            lambda: s(AN, 22),
            [
                "Explore link: https://retail.cloud.looker.com/x/{v}",
                "Looker qid={v} for the margin by region explore",
            ],
        ),
        (
            "powerbi_tenant_guid",
            uuid,
            [
                "Power BI tenant id {v}",
                "AZURE_TENANT_ID={v}",
            ],
        ),
        (
            "powerbi_dataset_id",
            uuid,
            [
                "Refresh dataset {v} in workspace Retail Finance",
                "POST groups/.../datasets/{v}/refreshes returned 202",
            ],
        ),
        (
            "superset_placeholder_key",
            lambda: "CHANGE_ME_TO_A_COMPLEX_RANDOM_SECRET",
            [
                "superset_config.py still has SECRET_KEY = '{v}' in the docker example; prod overrides from env",
                "Template default {v} - never deploy with it",
            ],
        ),
        (
            "stripe_publishable_key",
            lambda: "pk_live_51" + s(AN, 97),
            [
                "Checkout page loads Stripe.js with publishable key {v}",
                "STRIPE_PUBLISHABLE_KEY={v}  # public, shipped in the storefront bundle",
            ],
        ),
        (
            "klaviyo_public_site_id",
            lambda: s(UP, 6),
            [
                "Klaviyo onsite snippet: klaviyo.js?company_id={v}",
                "Klaviyo public API key / site id {v} (fine in browser)",
            ],
        ),
        (
            "google_ads_customer_id",
            lambda: f"{r.randint(100, 999)}-{r.randint(100, 999)}-{r.randint(1000, 9999)}",
            [
                "Google Ads MCC {v}, child accounts under it",
                "login-customer-id: {v}",
            ],
        ),
        (
            "meta_ad_account_id",
            lambda: "act_" + s(string.digits, 16),
            [
                "Meta ad account {v} is the US prospecting account",
                "pixel 1187 + ad account {v} for the CAPI test",
            ],
        ),
        (
            "ga4_measurement_id",
            lambda: "G-" + s(UP, 10),
            [
                "GA4 stream measurement id {v}",
                "gtag('config', '{v}');",
            ],
        ),
        (
            "gtm_container_id",
            lambda: "GTM-" + s(UP, 7),
            [
                "Container {v} published v142",
                "GTM container id {v} on the checkout pages",
            ],
        ),
        (
            "sftp_host_fingerprint",
            fp,
            [
                "Nielsen SFTP host key ED25519 {v} - verify before accepting",
                "known_hosts check: partner server presents {v}",
            ],
        ),
        (
            "ssh_public_key",
            lambda: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + s(B64, 43) + " airflow@etl-01",
            [
                "Sent Circana our public key for the drop: {v}",
                "authorized_keys on the bastion: {v}",
            ],
        ),
        (
            "aws_documented_example_key",
            lambda: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            [
                "From the AWS docs example: aws_secret_access_key = {v} (AKIAIOSFODNN7EXAMPLE)",
                "Our README sample config uses AWS's placeholder {v}",
            ],
        ),
        (
            "aws_role_arn",
            lambda: "arn:aws:iam::" + s(string.digits, 12) + ":role/RedshiftCopyRole",
            [
                "COPY ... IAM_ROLE '{v}' so no keys in SQL",
                "Snowflake storage integration trusts {v}",
            ],
        ),
        (
            "s3_etag",
            lambda: s(HEX, 32),
            [
                's3://acme-partner-drops/circana/pos_2026w48.csv.gz ETag "{v}"',
                "Compare ETag {v} with last week's to skip re-loading",
            ],
        ),
        (
            "git_commit_sha",
            lambda: s(HEX, 40),
            [
                "dbt prod deployed at commit {v}",
                "LookML validation broke in {v}; revert that",
            ],
        ),
        (
            "partner_file_sha256",
            lambda: s(HEX, 64),
            [
                "Syndigo manifest: items_full.csv sha256 {v}",
                "sha256sum store_inventory_20261206.parquet -> {v}",
            ],
        ),
        (
            "vault_reference",
            lambda: "vault:secret/data/analytics/snowflake#dbt_prod_password",
            [
                "profiles.yml password is pulled from {v}",
                "Don't inline it, reference {v}",
            ],
        ),
        (
            "env_var_reference",
            lambda: "{{ env_var('SNOWFLAKE_PRIVATE_KEY_PASSPHRASE') }}",
            [
                'private_key_passphrase: "{v}"',
                "In profiles.yml we use {v} so CI injects it",
            ],
        ),
        (
            "masked_key",
            lambda: "shpat_" + "*" * 24 + s(HEX, 4),
            [
                "Shopify token shown in admin as {v}; full value only in Secret Manager",
                "Old token {v} was revoked on 2026-11-30",
            ],
        ),
        (
            "angle_placeholder",
            lambda: "<YOUR_DATABRICKS_PAT>",
            [
                "README snippet: export DATABRICKS_TOKEN={v}",
                "replace {v} with your own token from User Settings",
            ],
        ),
        (
            "x_filled_example",
            lambda: "dapi" + "x" * 32,
            [
                "Example config in the onboarding doc: token = {v}",
                "token format looks like {v}",
            ],
        ),
        (
            "password_column_talk",
            lambda: "password_reset_requested_at",
            [
                "dim_customer drops password_hash; keep {v} for the churn model",
                "Column {v} is a timestamp, not sensitive",
            ],
        ),
        (
            "nlp_token_talk",
            lambda: "max_tokens=512",
            [
                "Product-title tokenizer: truncate at {v}, vocab 32k",
                "Search query embeddings: {v}, token counts logged per row",
            ],
        ),
        (
            "surrogate_key_md5",
            lambda: s(HEX, 32),
            [
                "dbt_utils.generate_surrogate_key(['order_id','line_no']) -> {v}",
                "order_line_sk {v} appears twice in fct_order_lines",
            ],
        ),
        (
            "idempotency_key",
            uuid,
            [
                "Reverse ETL retried with Idempotency-Key {v}",
                "Census sync batch {v} applied once",
            ],
        ),
        (
            "hashed_email_match",
            lambda: s(HEX, 64),
            [
                "Customer Match upload uses sha256(lower(email)), e.g. {v}",
                "hashed_email {v} matched in the Meta audience",
            ],
        ),
        (
            "request_uuid",
            uuid,
            [
                "Looker API x-request-id {v} returned 429",
                "Hightouch sync run {v} partial failure",
            ],
        ),
        (
            "trace_id",
            lambda: s(HEX, 32),
            [
                "Datadog trace {v} shows the Metabase query waiting on Snowflake",
                "traceparent 00-{v}-" + "00f067aa0ba902b7-01",
            ],
        ),
        (
            "docker_digest",
            lambda: "sha256:" + s(HEX, 64),
            [
                "airflow image pinned to apache/airflow@{v}",
                "superset prod image digest {v}",
            ],
        ),
        (
            "npm_integrity",
            lambda: "sha512-" + s(B64, 86) + "==",
            [
                "package-lock: @acme-retail/tracking-snippet integrity {v}",
                "integrity {v} mismatched after re-publish",
            ],
        ),
        (
            "google_sheet_id",
            lambda: "1" + s(URL, 43),
            [
                "Merch planning sheet https://docs.google.com/spreadsheets/d/{v}/edit#gid=0",
                "Sheets connector reads spreadsheetId {v} range 'Targets!A1:F'",
            ],
        ),
        (
            "google_oauth_client_id",
            lambda: (
                s(string.digits, 12)
                + "-"
                + s(string.ascii_lowercase + string.digits, 32)
                + ".apps.googleusercontent.com"
            ),
            [
                "Sheets add-on OAuth client id {v} (secret lives in Secret Manager)",
                "GOOGLE_CLIENT_ID={v}",
            ],
        ),
        (
            "fivetran_connector_id",
            lambda: (
                r.choice(["handsome", "quietly", "wobbly", "tender"])
                + "_"
                + r.choice(["tricky", "azure", "harbor", "pillow"])
            ),
            [
                "Fivetran Shopify connector id {v} paused",
                "resync connector {v} after the schema change",
            ],
        ),
        (
            "rotation_talk",
            lambda: "",
            [
                "Rotated the Snowflake key pair for DBT_PROD today; RSA_PUBLIC_KEY_2 set, old key unset after CI went green.",
                "TODO: move the Tableau PAT secret out of the runner env and into Vault; nothing to paste here.",
            ],
        ),
        (
            "password_policy",
            lambda: "",
            [
                "Snowflake password policy for humans: min 14 chars, 90 day max age, MFA required; service users are key-pair only.",
                "Excel workbook protection password is not security, just a lock against accidental edits; don't rely on it.",
            ],
        ),
        (
            "keypair_howto",
            lambda: (
                "openssl genrsa 2048 | openssl pkcs8 -topk8 -v2 des3 -inform PEM -out rsa_key.p8"
            ),
            [
                "Key-pair setup: {v} then openssl rsa -in rsa_key.p8 -pubout -out rsa_key.pub",
                "Steps I ran (key file not shared): {v}",
            ],
        ),
        (
            "snowflake_account_locator",
            lambda: s(string.ascii_lowercase, 2) + s(string.digits, 5) + ".eu-west-1",
            [
                "Snowflake account locator {v}, org ACMERETAIL",
                "SNOWFLAKE_ACCOUNT={v}",
            ],
        ),
        (
            "gcs_crc32c",
            lambda: s(B64, 6) + "==",
            [
                "gs://acme-drops/ipsos/panel.csv crc32c {v}",
                "gsutil hash shows crc32c {v}, md5 differs",
            ],
        ),
        (
            "stripe_object_ids",
            lambda: "cus_" + s(AN, 14),
            [
                "Refund dispute for customer {v}, charge ch_3PKq",
                "Stripe customer {v} has two subscriptions",
            ],
        ),
        (
            "shopify_gid",
            lambda: "gid://shopify/Product/" + s(string.digits, 13),
            [
                "Variant missing in dim_product: {v}",
                "GraphQL node {v} returned null",
            ],
        ),
        (
            "shopify_webhook_hmac_header",
            lambda: s(B64, 43) + "=",
            [
                "Webhook failed verification: X-Shopify-Hmac-Sha256: {v}",
                "Incoming orders/create header hmac {v} did not match our digest",
            ],
        ),
        (
            "x509_certificate",
            lambda: pem("CERTIFICATE", 900),
            [
                "SFTP server cert from the partner:\n{v}",
                "CA cert for the Redshift SSL connection:\n{v}",
            ],
        ),
        (
            "pgp_public_key",
            lambda: pem("PGP PUBLIC KEY BLOCK", 640),
            [
                "Encrypt the weekly extract to Nielsen's public key:\n{v}",
                "Partner's public key for the PGP-encrypted drop:\n{v}",
            ],
        ),
        (
            "azure_blob_url_no_sas",
            lambda: (
                "https://retaillakeprod.blob.core.windows.net/curated/sales/year=2026/"
                + s(HEX, 8)
                + ".parquet"
            ),
            [
                "File path only, access via managed identity: {v}",
                "Power BI reads {v} through the gateway identity",
            ],
        ),
        (
            "sas_sig_redacted",
            lambda: "sig=REDACTED",
            [
                "Log line: GET /drops/pos.csv?sv=2022-11-02&sp=rl&{v} 403",
                "Storage logs keep {v} instead of the signature",
            ],
        ),
        (
            "test_card_number",
            lambda: "4242424242424242",
            [
                "Checkout funnel test orders use Stripe test card {v}",
                "Filter out test orders paid with {v} in stg_payments",
            ],
        ),
        (
            "sendgrid_template_id",
            lambda: "d-" + s(HEX, 32),
            [
                "Weekly KPI email template {v}",
                "SendGrid dynamic template {v} v7",
            ],
        ),
        (
            "twilio_account_sid",
            lambda: "AC" + s(HEX, 32),
            [
                "Twilio account SID {v} (auth token kept in Vault)",
                "SMS cost report groups by account_sid {v}",
            ],
        ),
        (
            "slack_channel_ids",
            lambda: "C0" + s(UP, 9),
            [
                "Post dbt alerts to channel {v}",
                "#data-alerts is {v}",
            ],
        ),
        (
            "mailchimp_audience_id",
            lambda: s(HEX, 10),
            [
                "Mailchimp audience/list id {v}",
                "sync segment to list {v}",
            ],
        ),
        (
            "base64_config_blob",
            lambda: "eyJkYXNoYm9hcmQiOjEyLCJ0aGVtZSI6ImRhcmsifQ==",
            [
                'Superset URL state param {v} is just {{"dashboard":12,"theme":"dark"}}',
                "native_filters_key decodes to plain json: {v}",
            ],
        ),
        (
            "jwks_modulus",
            lambda: s(URL, 342),
            [
                'Okta JWKS public key "n": "{v}", "e": "AQAB"',
                "Looker SSO IdP signing cert modulus (public) {v}",
            ],
        ),
        (
            "metabase_card_ids",
            lambda: "/question/" + s(string.digits, 4) + "-weekly-gmv-by-store",
            [
                "Metabase card {v} is the source for the exec email",
                "Broken: {v} after the column rename",
            ],
        ),
        (
            "secret_word_other_sense",
            lambda: "",
            [
                "Secret Santa budget is $25, spreadsheet in the team drive.",
                "The 'secret sauce' of the markdown model is the elasticity prior per category.",
            ],
        ),
    ]

    extra = {
        "snowflake_password": ["Snowflake: konto ANALYST_BOT, hasło {v} (do dashboardu sprzedaży)"],
        "databricks_oauth_secret": ["databricks auth: client secret for sp-dlt-pipelines -> {v}"],
        "airflow_conn_uri": [
            "conn mysql_store_ops in the UI is mysql://ops_reader:{v}@store-ops-db:3306/ops"
        ],
        "looker_access_token": ["LOOKER_ACCESS_TOKEN={v}"],
        "metabase_api_key": ["Metabase key for Hex notebook syncing cards: {v}"],
        "sftp_password": ["SFTP_PASSWORD={v}\nSFTP_HOST=drop.dunnhumby.example"],
        "stripe_secret_key": ['notebook cell 3: stripe.api_key = "{v}"'],
        "sendgrid_api_key": ["sg key (mail.send only) = {v}"],
        "hubspot_private_app_token": ["HUBSPOT_TOKEN={v}"],
        "datadog_api_key": ["datadog-agent.yaml -> api_key: {v}"],
        "gcs_hmac_secret": ["GCS_HMAC_SECRET={v}"],
        "tiktok_ads_access_token": ["TIKTOK_ACCESS_TOKEN={v}"],
        "snowflake_query_id": [],
        "bigquery_table_ref": ["dataset id looks scary but it's just {v}"],
        "gcp_private_key_id": ["private_key_id: {v}  (the id, not the key; JSON file deleted)"],
        "snowflake_rsa_public_key": ["rsa_key.pub contents (safe to share): {v}"],
        "snowflake_pubkey_fingerprint": ["RSA_PUBLIC_KEY_2_FP = {v} after rotation"],
        "databricks_cluster_id": ["Spark UI for {v} shows skew on store_id"],
        "databricks_workspace_url": ["Bookmark: {v}/#job/8812"],
        "dbt_node_checksum": ["seed raw_store_regions checksum {v} unchanged"],
        "dbt_cloud_job_id": ["DBT_CLOUD_JOB_ID={v}"],
        "airflow_run_id": ["backfill created {v}"],
        "tableau_pat_name": ["TABLEAU_PAT_NAME={v}"],
        "tableau_workbook_luid": ["datasource luid {v} is the certified Orders source"],
        "looker_client_id": ["client_id={v} (paired secret rotated, not here)"],
        "looker_query_slug": ["Short link slug {v} for the holiday readout"],
        "powerbi_tenant_guid": ["tenantId {v} appears in the Entra sign-in logs"],
        "powerbi_dataset_id": ["semantic model id {v}"],
        "stripe_publishable_key": ["Publishable (pk_live) key in the checkout HTML: {v}"],
        "klaviyo_public_site_id": ["KLAVIYO_SITE_ID={v}"],
        "google_ads_customer_id": ["customer_id {v} spend dropped 30%"],
        "meta_ad_account_id": ["Insights pulled for {v} through the system user in Vault"],
        "ga4_measurement_id": ["Data stream {v} (web) on acme-retail.com"],
        "gtm_container_id": ["server-side container {v}"],
        "sftp_host_fingerprint": ["ssh-keyscan fingerprint {v} recorded in the runbook"],
        "ssh_public_key": ["id_ed25519.pub: {v}"],
        "aws_role_arn": ["AWS_ROLE_ARN={v} (OIDC from the runner, no static keys)"],
        "s3_etag": ["multipart ETag base {v}"],
        "git_commit_sha": ["git checkout {v} to reproduce the old margin number"],
        "partner_file_sha256": ["SHA256({v}) verified for the Nielsen drop"],
        "vault_reference": [
            "vault kv get -field=dbt_prod_password secret/analytics/snowflake -> used by {v}"
        ],
        "env_var_reference": ["Jinja in the sources yml: {v}"],
        "masked_key": ["Shopify app page: Admin API access token {v} (reveal once only)"],
        "angle_placeholder": ["token: {v}  # fill in locally, never commit"],
        "x_filled_example": ["Lint rule example string {v} should not match a real token"],
        "surrogate_key_md5": ["customer_sk = md5(customer_id) e.g. {v}"],
        "idempotency_key": ["idempotency_key column value {v} in the sync log"],
        "hashed_email_match": ["Segment trait email_sha256 = {v}"],
        "request_uuid": ["Metabase error id {v}"],
        "trace_id": ["Trace-Id {v} in the Airflow worker log"],
        "docker_digest": ["dbt-snowflake image {v}"],
        "google_sheet_id": ["SHEET_ID={v}"],
        "google_oauth_client_id": ["OAuth consent client {v}"],
        "snowflake_account_locator": ["account: {v}  # profiles.yml, password via env"],
        "gcs_crc32c": ["x-goog-hash: crc32c={v}"],
        "shopify_gid": ["order {v} imported twice"],
        "x509_certificate": ["Public cert uploaded to the Tableau SAML config:\n{v}"],
        "test_card_number": ["Test PAN {v}, exp 12/34, CVC 123 - Stripe test mode only"],
        "sendgrid_template_id": ["SENDGRID_TEMPLATE_ID={v}"],
        "twilio_account_sid": ["TWILIO_ACCOUNT_SID={v}"],
        "slack_channel_ids": ["SLACK_CHANNEL={v}"],
        "mailchimp_audience_id": ["MAILCHIMP_LIST_ID={v}"],
        "jwks_modulus": ["JWKS n value for the IdP (public): {v}"],
        "metabase_card_ids": ["see {v} for the pivot"],
        "airflow_conn_redacted": [
            'Airflow UI shows the extra field as {{"private_key_passphrase": "{v}"}}'
        ],
        "password_column_talk": ["GDPR: {v} is fine to keep, the hash column is already dropped"],
        "nlp_token_talk": ["Embedding job: {v}, batch 64, the key column is sku_id"],
        "bigquery_job_id": [],
    }
    for kinds in (secret, benign):
        for kind, _gen, templates in kinds:
            templates.extend(extra.get(kind, []))

    rows = []
    kid = s(UP, 16)
    gid = s(UP, 24)
    dev = s(URL, 22)
    for label, kinds in (("secret", secret), ("benign", benign)):
        for kind, gen, templates in kinds:
            for t in templates:
                v = gen()
                text = t.replace("{kid}", kid).replace("{gid}", gid).replace("{dev}", dev)
                text = text.replace("{{", "\x00").replace("}}", "\x01")
                text = text.replace("{v}", v).replace("\x00", "{").replace("\x01", "}")
                assert v in text, (kind, t)
                rows.append({"label": label, "kind": kind, "text": text, "value": v})
    return rows


def main():
    lines = "".join(json.dumps(row) + "\n" for row in corpus())
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w") as out:
            out.write(lines)
    else:
        sys.stdout.write(lines)


if __name__ == "__main__":
    main()

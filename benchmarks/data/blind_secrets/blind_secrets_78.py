# ruff: noqa: E501, UP031
"""Blind secret-detector corpus 78: quantitative trading infrastructure.

Brief: memory notes of a quant trading firm's infra team (FIX sessions, market-data feeds and colo, broker and prime-broker APIs, Bloomberg and Refinitiv, risk systems, research clusters and notebooks, compliance archiving) holding live secrets or look-alikes.

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Run: python blind_secrets_78.py [out.jsonl]

Kinds, secret: fix_logon_password_tag554, fix_new_password_tag925, quickfix_cfg_password, fix_rawdata_password_tag96, bloomberg_beap_client_secret, refinitiv_rdp_password, refinitiv_app_key_with_password, ibkr_tws_password, alpaca_secret_key, binance_api_secret, oanda_v20_token, polygon_api_key, databento_api_key, aws_secret_access_key, postgres_url_password, kdb_hopen_password, redis_password, kafka_sasl_password, mssql_connection_string_password, jupyter_token_url, databricks_pat, github_pat_classic, github_pat_fine_grained, gitlab_pat, slack_bot_token, slack_webhook_url, datadog_api_key, openssh_private_key, rsa_private_key_pem, gcp_service_account_key_json, azure_storage_account_key, vault_token, ldap_bind_password, compliance_archive_sftp_password, vendor_ftp_url_password, colo_bmc_password, network_device_password, ipsec_preshared_key, totp_seed_base32, artifactory_api_key, grafana_service_account_token, broker_api_jwt_bearer, basic_auth_header, smtp_password, mongodb_url_password, openai_api_key, huggingface_token, prose_password_no_keyword, snowflake_password
Kinds, benign: fix_clordid, fix_password_masked, fix_checksum_and_seqnum, fix_comp_ids, git_commit_sha, docker_image_digest, uuid_request_id, bloomberg_figi, isin_code, lei_code, refinitiv_machine_id_username, aws_access_key_id_alone, aws_documented_example_key, aws_documented_example_key_id, placeholder_token, placeholder_changeme, placeholder_xxxx, env_var_reference, env_var_reference_python, vault_path_reference, redacted_value, masked_key_last4, ssh_public_key, ssh_host_fingerprint, x509_certificate_pem, tls_cert_sha1_fingerprint, pgp_fingerprint, recaptcha_site_key, password_policy_text, bcrypt_hash, file_sha256_checksum, file_md5_checksum, exec_id, kafka_consumer_group, slack_channel_id, aws_arn_account_id, ibkr_public_demo_login, k8s_secret_key_ref, azure_client_id_public, mac_address, multicast_group_feed, bloomberg_terminal_uuid, jwt_io_documented_example, base64_nonsecret_config, ptp_clock_identity, jupyter_kernel_id, request_signature_hex, revoked_github_pat_stated_revoked, rotated_password_no_value, order_book_checksum, empty_password_field, quote_and_trade_ids, cusip_sedol_ref, order_nonce_timestamp, kdb_handle_no_password, used_otp_code
"""

import base64
import json
import random
import string
import sys

SEED = 7878

ALNUM = string.ascii_letters + string.digits
UPNUM = string.ascii_uppercase + string.digits
LOWNUM = string.ascii_lowercase + string.digits
HEX = "0123456789abcdef"
B64 = string.ascii_letters + string.digits + "+/"
B64URL = string.ascii_letters + string.digits + "-_"
B32 = string.ascii_uppercase + "234567"
WORDS = [
    "Wombat",
    "Gamma",
    "Sharpe",
    "Falcon",
    "Tiger",
    "Hedge",
    "Alpha",
    "Delta",
    "Brenta",
    "Kestrel",
    "Mercury",
    "Bollinger",
    "Orca",
    "Phoenix",
    "Quant",
    "Sigma",
    "Cobalt",
    "Lambda",
    "Zephyr",
    "Mustang",
]
SYMS = "!#$%&*@?^"


def s(r, n, alpha=ALNUM):
    return "".join(r.choice(alpha) for _ in range(n))


def human_pw(r):
    w = r.choice(WORDS)
    if r.random() < 0.5:
        w = w.lower()
    d = str(r.randint(1, 9999))
    sym = r.choice(SYMS)
    form = r.randint(0, 3)
    if form == 0:
        return w + d + sym
    if form == 1:
        return w + sym + d
    if form == 2:
        return sym + w + d
    return w + r.choice(WORDS).lower() + d + sym


def gen_pw(r, n=None):
    n = n or r.randint(16, 24)
    alpha = ALNUM + "!#%*-_+=."
    while True:
        p = s(r, n, alpha)
        if (
            any(c.isdigit() for c in p)
            and any(c.isupper() for c in p)
            and any(c in "!#%*-_+=." for c in p)
        ):
            return p


def pw_any(r):
    return human_pw(r) if r.random() < 0.5 else gen_pw(r)


def pem_body(r, lines=8):
    out = [s(r, 64, B64) for _ in range(lines - 1)]
    out.append(s(r, r.randint(20, 60), B64) + "=")
    return "\n".join(out)


def b64_of(raw):
    return base64.b64encode(raw.encode()).decode()


# ---------------------------------------------------------------- secrets
def g_fix554(r):
    return pw_any(r)


def g_beap_secret(r):
    return s(r, 64, HEX)


def g_refinitiv_appkey(r):
    return s(r, 40, HEX)


def g_alpaca_secret(r):
    return s(r, 40, ALNUM)


def g_binance(r):
    return s(r, 64, ALNUM)


def g_oanda(r):
    return s(r, 32, HEX) + "-" + s(r, 32, HEX)


def g_polygon(r):
    return s(r, 32, ALNUM)


def g_databento(r):
    return "db-" + s(r, 29, ALNUM)


def g_aws_secret(r):
    return s(r, 40, B64)


def g_jupyter(r):
    return s(r, 48, HEX)


def g_databricks(r):
    return "dapi" + s(r, 32, HEX)


def g_ghp(r):
    return "ghp_" + s(r, 36, ALNUM)


def g_ghfg(r):
    return "github_pat_11" + s(r, 20, UPNUM) + "_" + s(r, 59, ALNUM)


def g_glpat(r):
    return "glpat-" + s(r, 20, ALNUM + "-_")


def g_xoxb(r):
    return (
        "xoxb-"
        + str(r.randint(10**10, 10**12))
        + "-"
        + str(r.randint(10**12, 10**13))
        + "-"
        + s(r, 24, ALNUM)
    )


def g_slack_hook(r):
    return (
        "https://hooks.slack.com/services/T"
        + s(r, 8, UPNUM)
        + "/B"
        + s(r, 10, UPNUM)
        + "/"
        + s(r, 24, ALNUM)
    )


def g_dd(r):
    return s(r, 32, HEX)


def g_openssh(r):
    return "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n" + pem_body(
        r, 4
    )


def g_rsa(r):
    return "MIIEow" + s(r, 58, B64) + "\n" + pem_body(r, 10)


def g_gcp(r):
    return (
        "-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC"
        + s(r, 32, B64)
        + "\\n"
        + "\\n".join(s(r, 64, B64) for _ in range(5))
        + "\\n-----END PRIVATE KEY-----\\n"
    )


def g_azure(r):
    return s(r, 86, B64) + "=="


def g_vault(r):
    return "hvs." + s(r, 24, ALNUM + "_-")


def g_totp(r):
    return s(r, 32, B32)


def g_artifactory(r):
    return "AKCp8" + s(r, 68, ALNUM)


def g_glsa(r):
    return "glsa_" + s(r, 32, ALNUM) + "_" + s(r, 8, HEX)


def b64url_json(obj):
    return (
        base64.urlsafe_b64encode(json.dumps(obj, separators=(",", ":")).encode())
        .decode()
        .rstrip("=")
    )


def g_jwt(r):
    h = b64url_json({"alg": "RS256", "typ": "JWT"})
    p = b64url_json(
        {
            "sub": "svc-exec-" + s(r, 6, LOWNUM),
            "aud": "primebroker-api",
            "scope": "orders:write positions:read",
            "iat": r.randint(1790000000, 1799999999),
            "exp": r.randint(1800000000, 1809999999),
        }
    )
    return h + "." + p + "." + s(r, 86, B64URL)


def g_basic(r):
    return b64_of("svc_risk:" + pw_any(r))


def g_openai(r):
    return "sk-proj-" + s(r, 48, ALNUM + "-_") + "T3BlbkFJ" + s(r, 48, ALNUM + "-_")


def g_hf(r):
    return "hf_" + s(r, 34, ALNUM)


def g_psk(r):
    return gen_pw(r, 32)


SECRET = [
    (
        "fix_logon_password_tag554",
        g_fix554,
        [
            "8=FIX.4.4|9=142|35=A|34=1|49=QTF_EQ01|56=BRKX|52=20261207-07:59:58.112|98=0|108=30|141=Y|553=qtf_eq01|554={v}|10=087|",
            "uat logon to BRKX keeps getting rejected w/ 'invalid pwd'. we're sending 553=qtf_eq01 554={v} - check with their onboarding desk if they reset it",
            "FIX logon creds for the LSE DC session (prod): user QTFLN2, pass {v}. Heartbeat 30s, reset seq on logon.",
            "| session | user | password |\n| CME iLink3 MSGW 12 | QTF_CME7 | {v} |",
            "raw logon from the capture:\n8=FIXT.1.1\x019=120\x0135=A\x0149=QTFEU\x0156=EUREX\x01553=QTFEU\x01554={v}\x011137=9\x0110=201\x01",
        ],
    ),
    (
        "fix_new_password_tag925",
        g_fix554,
        [
            "pwd rotation for Eurex session done via logon: 554=<old> 925={v} — new one is live from today, update the cfg on both engines",
            "Broker forced a password change on the NYFIX session. NewPassword(925)={v}",
            "note: next monday's logon must carry 925={v} or the session gets locked",
            "Passwortwechsel FIX-Session BRKX erledigt, neues Passwort: {v}",
        ],
    ),
    (
        "quickfix_cfg_password",
        g_fix554,
        [
            "[SESSION]\nBeginString=FIX.4.2\nSenderCompID=QTFUS1\nTargetCompID=INSTINET\nSocketConnectHost=10.44.12.8\nSocketConnectPort=9878\nPassword={v}\nHeartBtInt=30",
            "quickfix cfg for the GS DMA session: Username=qtf_dma Password={v} (prod, do not paste into jira)",
            "sed -i 's/^Password=.*/Password={v}/' /opt/fixengine/conf/ms_prod.cfg",
            "Password={v}",
        ],
    ),
    (
        "fix_rawdata_password_tag96",
        g_fix554,
        [
            "ICE logon uses RawData not 554: 95={n}|96={v}|  (95 = length)",
            "for the OSE gateway the password rides in RawData(96): {v}",
            "ICE FIX: 96={v} with 95 set to the length, they will not tell you that in the spec",
        ],
    ),
    (
        "bloomberg_beap_client_secret",
        g_beap_secret,
        [
            '{"client_id":"'
            + "8a2f"
            + "c1e0b7d4493a9f1e2d3c4b5a6978ab"
            + '","client_secret":"{v}","name":"qtf-beap-prod","scopes":["eap","beapData"],"expiration_date":1830297600000,"created_date":1767225600000}',
            "BEAP creds (hypermedia api, prod account): client_secret {v} — expires next dec",
            "export BBG_CLIENT_SECRET={v}",
            "bloomberg data license rest: secret = {v}, id in the usual place",
        ],
    ),
    (
        "refinitiv_rdp_password",
        pw_any,
        [
            "RDP machine account GE-A-01582394-3-7745 / {v} (platform login for the EOD pricing job)",
            "refinitiv rdp: username=GE-A-01582394-3-7745 password={v} appkey in vault",
            "rdp.open_platform_session(app_key, rdp.GrantPassword(username='GE-A-01582394-3-7745', password='{v}'))",
            "RDPパスワード(本番): {v}",
        ],
    ),
    (
        "refinitiv_app_key_with_password",
        g_refinitiv_appkey,
        [
            "RDP appkey {v} + machine id pwd {p} — used by pricing-eod on risk02",
            "REFINITIV_APP_KEY={v}\nREFINITIV_PASSWORD={p}",
            "ld.open_session(app_key='{v}', username='GE-A-01582394-3-7745', password='{p}')",
        ],
    ),
    (
        "ibkr_tws_password",
        pw_any,
        [
            "IBKR prime (live) TWS login qtfops3 pw {v} — IBC config needs it in IbPassword",
            "IbLoginId=qtfops3\nIbPassword={v}\nTradingMode=live",
            "gateway on colo-ny4-07 restarted, had to retype the IB pass ({v}), 2FA on Will's phone",
            "ib gw: user qtfops3 / {v}",
        ],
    ),
    (
        "alpaca_secret_key",
        g_alpaca_secret,
        [
            "APCA_API_KEY_ID=AKR7D2QWX9F3LMN4PZ8B\nAPCA_API_SECRET_KEY={v}\nAPCA_API_BASE_URL=https://api.alpaca.markets",
            "curl -H 'APCA-API-KEY-ID: AKR7D2QWX9F3LMN4PZ8B' -H 'APCA-API-SECRET-KEY: {v}' https://api.alpaca.markets/v2/account",
            "alpaca live secret for the small-cap sleeve: {v}",
            "paper acct keys (still let anyone trade the paper book): PKJ4W8Q2M1R7X5N3T6VA / {v}",
        ],
    ),
    (
        "binance_api_secret",
        g_binance,
        [
            "crypto desk binance subaccount: api key in vault, secret {v} (trade only, no withdraw)",
            "BINANCE_API_SECRET={v}",
            "client = Client(api_key, '{v}')",
            "binance secret key：{v}（仅交易权限）",
        ],
    ),
    (
        "oanda_v20_token",
        g_oanda,
        [
            "OANDA v20 live token for the fx hedger: {v}",
            "curl -H 'Authorization: Bearer {v}' https://api-fxtrade.oanda.com/v3/accounts",
            "oanda:\n  account: 001-004-1234567-001\n  token: {v}",
        ],
    ),
    (
        "polygon_api_key",
        g_polygon,
        [
            "polygon key for the options backfill: {v}",
            "wget 'https://api.polygon.io/v3/trades/AAPL?limit=50000&apiKey={v}'",
            "POLYGON_API_KEY={v}",
            "polygon.io: {v}  (paid tier, don't hand out)",
        ],
    ),
    (
        "databento_api_key",
        g_databento,
        [
            "DATABENTO_API_KEY={v}",
            "client = db.Historical('{v}')",
            "databento key (team acct, billed per GB!!): {v}",
            "Databento-Schlüssel fürs Backfill: {v}",
        ],
    ),
    (
        "aws_secret_access_key",
        g_aws_secret,
        [
            "aws creds for the tick archive bucket:\naws_access_key_id = AKIA4QTF7RZ2ML9XW3KD\naws_secret_access_key = {v}",
            "AWS_ACCESS_KEY_ID=AKIA4QTF7RZ2ML9XW3KD AWS_SECRET_ACCESS_KEY={v} aws s3 sync s3://qtf-ticks-raw/2026/ ./raw",
            "research s3 user qtf-research-ro: AKIA4QTF7RZ2ML9XW3KD / {v}",
            "[qtf-archive]\naws_secret_access_key={v}",
        ],
    ),
    (
        "postgres_url_password",
        pw_any,
        [
            "RISK_DB_URL=postgresql://risk_rw:{v}@pg-risk-01.int.qtf:5432/risk",
            "psql 'postgresql://positions_ro:{v}@10.20.1.15/positions' -c 'select count(*) from eod_pos'",
            "risk db (pg-risk-01) user risk_rw pw {v}",
            "sqlalchemy url used by the var engine: postgresql+psycopg2://var_svc:{v}@pg-risk-02:5432/var",
        ],
    ),
    (
        "kdb_hopen_password",
        pw_any,
        [
            "h:hopen `:tp-ld4-01:5010:tickusr:{v}",
            "kdb tickerplant on tp-ld4-01 port 5010, user tickusr, password {v}",
            "q -p 5012 -u /opt/kdb/passwd   # passwd file has rdbusr:{v}",
            "qcon tp-ld4-01:5010:tickusr:{v}",
        ],
    ),
    (
        "redis_password",
        pw_any,
        [
            "requirepass {v}",
            "redis-cli -h md-cache-01 -a '{v}' info replication",
            "REDIS_URL=redis://:{v}@md-cache-01:6379/0",
            "signal cache redis pwd is {v} (same on both colo nodes)",
        ],
    ),
    (
        "kafka_sasl_password",
        pw_any,
        [
            'sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="md-producer" password="{v}";',
            "kafka md cluster SCRAM creds md-producer / {v}",
            "KAFKA_SASL_PASSWORD={v}",
            "kcat -b kafka-md-01:9093 -X security.protocol=SASL_SSL -X sasl.mechanisms=SCRAM-SHA-512 -X sasl.username=md-producer -X sasl.password='{v}' -L",
        ],
    ),
    (
        "mssql_connection_string_password",
        pw_any,
        [
            "Server=tcp:sql-comp-01,1433;Database=CommsArchive;User Id=arch_writer;Password={v};Encrypt=True;",
            "compliance archive sql login arch_writer pw {v}",
            "sqlcmd -S sql-comp-01 -U arch_writer -P '{v}' -Q 'select top 10 * from dbo.ChatMsgs'",
        ],
    ),
    (
        "jupyter_token_url",
        g_jupyter,
        [
            "notebook on gpu-07 is up: http://gpu-07.research.qtf:8888/lab?token={v}",
            "jupyter token for the shared alpha box: {v}",
            "    Or copy and paste one of these URLs:\n        http://127.0.0.1:8890/tree?token={v}",
            "c.NotebookApp.token = '{v}'",
        ],
    ),
    (
        "databricks_pat",
        g_databricks,
        [
            "DATABRICKS_TOKEN={v}",
            "databricks configure: host https://adb-5512.azuredatabricks.net token {v}",
            "[research]\nhost = https://adb-5512.azuredatabricks.net\ntoken = {v}",
            "my dbx PAT for the factor jobs is {v}, 90d expiry",
        ],
    ),
    (
        "github_pat_classic",
        g_ghp,
        [
            "git clone https://qtf-ci:{v}@github.com/qtf/strat-core.git",
            "GH token for the CI bot: {v}",
            "export GITHUB_TOKEN={v}",
            "{v}",
        ],
    ),
    (
        "github_pat_fine_grained",
        g_ghfg,
        [
            "fine-grained PAT, read only on strat-core + risk-lib: {v}",
            "GH_TOKEN={v} gh pr list -R qtf/risk-lib",
            "token for dependabot replacement script:\n{v}",
        ],
    ),
    (
        "gitlab_pat",
        g_glpat,
        [
            "gitlab pat for the research mirror: {v}",
            "git remote set-url origin https://oauth2:{v}@gitlab.qtf.internal/research/alphas.git",
            "CI_PUSH_TOKEN={v}",
            "PRIVATE-TOKEN: {v}",
        ],
    ),
    (
        "slack_bot_token",
        g_xoxb,
        [
            "SLACK_BOT_TOKEN={v}",
            "risk-alerts bot token: {v}",
            "curl -H 'Authorization: Bearer {v}' -d channel=C05RISKALR -d text='VaR breach' https://slack.com/api/chat.postMessage",
            "pnl-bot xoxb for #desk-eq: {v}",
        ],
    ),
    (
        "slack_webhook_url",
        g_slack_hook,
        [
            "fix session down alerts go to {v}",
            "ALERT_WEBHOOK={v}",
            'curl -X POST -d \'{"text":"md gap on OPRA line B"}\' {v}',
        ],
    ),
    (
        "datadog_api_key",
        g_dd,
        [
            "DD_API_KEY={v}",
            "datadog api key for colo agents: {v}",
            "datadog:\n  api_key: {v}\n  site: datadoghq.eu",
            'dd agent install: DD_API_KEY={v} DD_SITE=datadoghq.com bash -c "$(curl -L https://install.datadoghq.com/scripts/install_script_agent7.sh)"',
        ],
    ),
    (
        "openssh_private_key",
        g_openssh,
        [
            "deploy key for the colo boxes (ops user):\n-----BEGIN OPENSSH PRIVATE KEY-----\n{v}\n-----END OPENSSH PRIVATE KEY-----",
            "pasted id_ed25519 of the jump host so we have a copy:\n-----BEGIN OPENSSH PRIVATE KEY-----\n{v}\n-----END OPENSSH PRIVATE KEY-----",
            "-----BEGIN OPENSSH PRIVATE KEY-----\n{v}\n-----END OPENSSH PRIVATE KEY-----",
        ],
    ),
    (
        "rsa_private_key_pem",
        g_rsa,
        [
            "client cert key for the prime broker mTLS (pb-api.qtf.pem):\n-----BEGIN RSA PRIVATE KEY-----\n{v}\n-----END RSA PRIVATE KEY-----",
            "FIX over TLS to the venue needs this key:\n-----BEGIN RSA PRIVATE KEY-----\n{v}\n-----END RSA PRIVATE KEY-----",
            "-----BEGIN RSA PRIVATE KEY-----\n{v}\n-----END RSA PRIVATE KEY-----",
        ],
    ),
    (
        "gcp_service_account_key_json",
        g_gcp,
        [
            '{"type": "service_account", "project_id": "qtf-research", "private_key_id": "3f9a0c2b7e1d4a5b6c7d8e9f0a1b2c3d4e5f6a7b", "private_key": "{v}", "client_email": "bq-loader@qtf-research.iam.gserviceaccount.com"}',
            'bq loader sa key (json excerpt): "private_key": "{v}"',
            "GOOGLE_APPLICATION_CREDENTIALS content for the altdata pipeline -> private_key={v}",
        ],
    ),
    (
        "azure_storage_account_key",
        g_azure,
        [
            "DefaultEndpointsProtocol=https;AccountName=qtfcommsarchive;AccountKey={v};EndpointSuffix=core.windows.net",
            "az storage blob list --account-name qtfcommsarchive --account-key '{v}' -c wormbucket",
            "comms archive storage key1: {v}",
        ],
    ),
    (
        "vault_token",
        g_vault,
        [
            "VAULT_TOKEN={v} vault kv get secret/fix/brkx",
            "root-ish vault token for the migration (revoke after!): {v}",
            "X-Vault-Token: {v}",
            "vault login {v}",
        ],
    ),
    (
        "ldap_bind_password",
        pw_any,
        [
            "ldapsearch -x -H ldaps://dc01.qtf.local -D 'cn=svc-jhub,ou=svc,dc=qtf,dc=local' -w '{v}' '(uid=mchen)'",
            "jupyterhub ldap bind: svc-jhub / {v}",
            "bind_password: {v}",
        ],
    ),
    (
        "compliance_archive_sftp_password",
        pw_any,
        [
            "Global Relay sftp drop: sftp qtf_upload@ingest.globalrelay.example -> pw {v}",
            "smarsh feed upload account qtfcomms, password {v}; files must land before 02:00 UTC",
            "lftp -u qtf_upload,'{v}' sftp://ingest.archive-vendor.example/in",
            "compliance archive SFTP (WORM vendor): {v}",
        ],
    ),
    (
        "vendor_ftp_url_password",
        pw_any,
        [
            "ftp://qtf_hist:{v}@ftp.tickvendor.example/eod/",
            "curl -u qtf_hist:{v} ftp://ftp.tickvendor.example/ref/secmaster_20261204.csv.gz -O",
            "tick vendor ftp creds: qtf_hist {v}",
            "refdata vendor sftp login qtfref pass {v} — ip whitelisted from ld4 only",
        ],
    ),
    (
        "colo_bmc_password",
        pw_any,
        [
            "iDRAC on colo-ny4-03: root / {v}",
            "ipmitool -I lanplus -H 10.99.4.13 -U ADMIN -P '{v}' chassis power cycle",
            "BMC pw for all LD4 boxes (yes same one, ticket to fix): {v}",
            "remote hands couldn't reach the ilo, gave them {v} for Administrator",
        ],
    ),
    (
        "network_device_password",
        pw_any,
        [
            "username netops privilege 15 secret 0 {v}",
            "arista 7130 in NY4 cage: admin pw {v}",
            "enable password {v}",
            "ssh netops@sw-ld4-core1, pw {v}",
        ],
    ),
    (
        "ipsec_preshared_key",
        g_psk,
        [
            "crypto isakmp key {v} address 203.0.113.45",
            "extranet VPN to prime broker, phase1 PSK: {v}",
            'ipsec tunnel to broker DR site\n  authby=secret\n  psk="{v}"',
        ],
    ),
    (
        "totp_seed_base32",
        g_totp,
        [
            "2FA seed for the shared broker portal login (ops@): {v} — add to authenticator",
            "otpauth://totp/PrimeBroker:ops@qtf?secret={v}&issuer=PrimeBroker",
            "CME customer center MFA secret {v}",
            "oathtool --totp -b {v}",
        ],
    ),
    (
        "artifactory_api_key",
        g_artifactory,
        [
            "pip config set global.index-url https://qtf-build:{v}@artifactory.qtf.internal/api/pypi/pypi/simple",
            "X-JFrog-Art-Api: {v}",
            "artifactory api key (build svc): {v}",
        ],
    ),
    (
        "grafana_service_account_token",
        g_glsa,
        [
            "grafana sa token for the latency dashboards provisioning: {v}",
            "GRAFANA_TOKEN={v}",
            "curl -H 'Authorization: Bearer {v}' https://grafana.qtf.internal/api/dashboards/uid/fix-lat",
        ],
    ),
    (
        "broker_api_jwt_bearer",
        g_jwt,
        [
            "Authorization: Bearer {v}",
            "PB api session token (valid till friday) {v}",
            "curl -s -H 'Authorization: Bearer {v}' https://pb-api.broker.example/v1/positions",
        ],
    ),
    (
        "basic_auth_header",
        g_basic,
        [
            "Authorization: Basic {v}",
            "risk report api needs basic auth, header value: Basic {v}",
            "curl -H 'Authorization: Basic {v}' https://risk-api.qtf.internal/v2/limits",
        ],
    ),
    (
        "smtp_password",
        pw_any,
        [
            "trade confirms mailer: smtp.office365.com:587 user confirms@qtf.example pw {v}",
            "SMTP_PASSWORD={v}",
            "spring.mail.password={v}",
        ],
    ),
    (
        "mongodb_url_password",
        pw_any,
        [
            "mongodb+srv://research_rw:{v}@altdata.qtf.mongodb.net/sentiment?retryWrites=true",
            "MONGO_URI=mongodb://ref_svc:{v}@mongo-ref-01:27017/refdata?authSource=admin",
            "altdata mongo user research_rw pw {v}",
        ],
    ),
    (
        "openai_api_key",
        g_openai,
        [
            "OPENAI_API_KEY={v}",
            "key for the earnings-call summarizer: {v}",
            "openai.api_key = '{v}'",
        ],
    ),
    (
        "huggingface_token",
        g_hf,
        [
            "HF_TOKEN={v}",
            "huggingface-cli login --token {v}",
            "hf read token for the gated finbert weights: {v}",
        ],
    ),
    (
        "prose_password_no_keyword",
        human_pw,
        [
            "for the CME customer center use the ops@ login, it's {v} since the reset",
            "Maya: what's the login for the bbg anywhere shared seat? Raj: ops.desk / {v}",
            "Le mot de passe de la session FIX Euronext a changé : {v}",
            "eurex member portal — same as the wifi in the LD4 cage: {v}",
            "told the remote hands guy {v} to get into the NY4 jump box console",
        ],
    ),
    (
        "snowflake_password",
        pw_any,
        [
            "snowflake: account qtf-xy12345, user RESEARCH_SVC, password {v}, wh QUANT_WH",
            "snowsql -a qtf-xy12345 -u RESEARCH_SVC  # SNOWSQL_PWD={v}",
            "snowflake://RESEARCH_SVC:{v}@qtf-xy12345/ALTDATA/PUBLIC?warehouse=QUANT_WH",
        ],
    ),
]

# ---------------------------------------------------------------- benign


def g_clordid(r):
    return "QTF" + str(r.randint(20261201, 20261231)) + "-" + s(r, 8, UPNUM)


def g_num(r):
    return str(r.randint(1000, 999999))


def g_compid(r):
    return "QTF" + s(r, 4, string.ascii_uppercase) + str(r.randint(1, 9))


def g_sha1(r):
    return s(r, 40, HEX)


def g_sha256(r):
    return s(r, 64, HEX)


def g_digest(r):
    return "sha256:" + s(r, 64, HEX)


def g_uuid(r):
    h = s(r, 32, HEX)
    return (
        h[:8] + "-" + h[8:12] + "-4" + h[13:16] + "-" + r.choice("89ab") + h[17:20] + "-" + h[20:]
    )


def g_figi(r):
    return "BBG00" + s(r, 6, "BCDFGHJKLMNPQRSTVWXYZ0123456789") + str(r.randint(0, 9))


def g_isin(r):
    return r.choice(["US", "GB", "DE", "JP", "FR"]) + s(r, 9, UPNUM) + str(r.randint(0, 9))


def g_lei(r):
    return s(r, 18, UPNUM) + "%02d" % r.randint(0, 99)


def g_machine_id(r):
    return "GE-A-%08d-%d-%04d" % (r.randint(0, 99999999), r.randint(1, 9), r.randint(0, 9999))


def g_akia(r):
    return "AKIA" + s(r, 16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")


def g_last4(r):
    return s(r, 4, ALNUM)


def g_sshpub(r):
    return "AAAAC3NzaC1lZDI1NTE5AAAAI" + s(r, 43, B64)


def g_fp(r):
    return "SHA256:" + s(r, 43, B64)


def g_cert(r):
    return "MIID" + s(r, 60, B64) + "\n" + pem_body(r, 9)


def g_colonhex(r):
    return ":".join(s(r, 2, "0123456789ABCDEF") for _ in range(20))


def g_pgp(r):
    return " ".join(s(r, 4, "0123456789ABCDEF") for _ in range(10))


def g_sitekey(r):
    return "6L" + s(r, 38, ALNUM + "-_")


def g_bcrypt(r):
    return "$2b$12$" + s(r, 53, string.ascii_letters + string.digits + "./")


def g_md5(r):
    return s(r, 32, HEX)


def g_execid(r):
    return s(r, 16, UPNUM)


def g_group(r):
    return "md-norm-" + s(r, 6, LOWNUM)


def g_slackch(r):
    return "C0" + s(r, 9, UPNUM)


def g_acct(r):
    return "%012d" % r.randint(10**11, 10**12 - 1)


def g_mac(r):
    return ":".join(s(r, 2, HEX) for _ in range(6))


def g_mcast(r):
    return "233.%d.%d.%d" % (r.randint(0, 255), r.randint(0, 255), r.randint(1, 254))


def g_bbguuid(r):
    return str(r.randint(10000000, 39999999))


def g_b64cfg(r):
    return b64_of(
        json.dumps(
            {
                "env": "prod",
                "venue": r.choice(["XLON", "XETR", "XNAS"]),
                "throttle": r.randint(10, 500),
            }
        )
    )


def g_ptp(r):
    return s(r, 6, HEX) + ".fffe." + s(r, 6, HEX) + "-1"


def g_masked(r):
    return "*" * r.randint(6, 12)


def g_vaultpath(r):
    return (
        "secret/data/fix/"
        + r.choice(["brkx", "eurex", "cme", "lse", "instinet"])
        + "-"
        + s(r, 4, LOWNUM)
    )


def g_obcs(r):
    return str(r.randint(-(2**31), 2**31 - 1))


def g_fixchk(r):
    return "%03d" % r.randint(0, 255)


def lit(x):
    return lambda r: x


BENIGN = [
    (
        "fix_clordid",
        g_clordid,
        [
            "8=FIX.4.4|35=D|49=QTF_EQ01|56=BRKX|11={v}|55=VOD.L|54=1|38=25000|40=2|44=71.32|59=0|10=114|",
            "order stuck in pending new, ClOrdID {v}, broker says they never saw it",
            "cancel-replace chain for {v} got out of order, see gateway log 14:02",
            "11={v}",
        ],
    ),
    (
        "fix_password_masked",
        g_masked,
        [
            "gateway log masks creds fine now: 35=A|553=qtf_eq01|554={v}|",
            "logon msg from the venue's side: 554={v} (they mask it), heartbeat 30",
            "FIX session config dump: Password={v}",
            "| QTF_CME7 | iLink3 | {v} |",
        ],
    ),
    (
        "fix_checksum_and_seqnum",
        g_fixchk,
        [
            "rejected due to bad checksum, we computed 10={v} and they say 10 should be different — tag 9 off by one?",
            "seq gap after failover: expected 34=18823, got 34=18990; last msg checksum 10={v}",
            "CheckSum(10)={v}",
        ],
    ),
    (
        "fix_comp_ids",
        g_compid,
        [
            "new session: SenderCompID={v}, TargetCompID=BRKXUAT, port 9880",
            "49={v}|56=EUREX|",
            "onboarding form for the ICE session asks for SenderSubID, we use {v}",
            "comp id {v} is the DR one, don't use it in prod",
        ],
    ),
    (
        "git_commit_sha",
        g_sha1,
        [
            "risk engine rolled back to {v} after the limits bug",
            "git checkout {v} -- strat/momentum/signals.py",
            "deployed build from commit {v} to ld4 on tues",
            "fixed in {v}",
        ],
    ),
    (
        "docker_image_digest",
        g_digest,
        [
            "pin the feed handler image: registry.qtf.internal/md/feedhandler@{v}",
            "image: registry.qtf.internal/risk/var-engine@{v}",
            "docker pull registry.qtf.internal/research/jhub-singleuser@{v}",
            "last good digest of the notebook image: {v}",
        ],
    ),
    (
        "uuid_request_id",
        g_uuid,
        [
            "PB api returned 502, request id {v}, they asked us to quote it",
            "x-request-id: {v}",
            "backtest run {v} is the one with the corrected borrow costs",
            "ticket with Refinitiv, case ref {v}",
        ],
    ),
    (
        "bloomberg_figi",
        g_figi,
        [
            "map the ADR using FIGI {v} not the ticker, ticker got reused",
            "BDP({v} Equity, PX_LAST) returns N/A in the sheet",
            "secmaster row: figi={v} exch=US",
            "figi {v} composite vs exch-level mismatch",
        ],
    ),
    (
        "isin_code",
        g_isin,
        [
            "corporate action on {v} not applied in the pos file",
            "isin={v}",
            "restricted list added {v} today (compliance email)",
            "ISIN {v} — 取引停止、リスクから除外",
        ],
    ),
    (
        "lei_code",
        g_lei,
        [
            "our LEI for EMIR reporting: {v}",
            "counterparty LEI {v} missing in the trade repo upload",
            "UTI prefix = LEI {v}",
            "LEI du prime broker : {v}",
        ],
    ),
    (
        "refinitiv_machine_id_username",
        g_machine_id,
        [
            "RDP machine id {v} (password in vault under rdp/eod)",
            "username for the platform session is {v}; ask ops for the pw",
            "{v} is the deactivated one, use the new id",
        ],
    ),
    (
        "aws_access_key_id_alone",
        g_akia,
        [
            "cloudtrail shows calls from access key id {v} — whose is that?",
            "key id {v} belongs to qtf-research-ro (secret lives in vault only)",
            "IAM: deactivate {v} once the new pipeline is live",
            "| {v} | qtf-ci-deploy | last used 3d ago |",
        ],
    ),
    (
        "aws_documented_example_key",
        lit("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
        [
            "the README had aws_secret_access_key = {v} — that's the AWS docs example, ignore",
            "AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE\nAWS_SECRET_ACCESS_KEY={v}  # localstack for unit tests",
            "test fixture uses {v}",
        ],
    ),
    (
        "aws_documented_example_key_id",
        lit("AKIAIOSFODNN7EXAMPLE"),
        [
            "moto tests expect key id {v}",
            "aws_access_key_id = {v}",
        ],
    ),
    (
        "placeholder_token",
        lit("<your-token>"),
        [
            "DATABENTO_API_KEY={v}",
            "curl -H 'Authorization: Bearer {v}' https://pb-api.broker.example/v1/positions",
            "polygon: apiKey={v} (get your own from the team page)",
        ],
    ),
    (
        "placeholder_changeme",
        lit("changeme"),
        [
            "default redis pass in the helm chart is {v} — overridden in prod values",
            "Password={v}",
            "initial notebook pw '{v}', hub forces reset on first login",
        ],
    ),
    (
        "placeholder_xxxx",
        lit("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"),
        [
            "DD_API_KEY={v}",
            "BINANCE_API_SECRET={v}",
            "oanda token: {v}",
        ],
    ),
    (
        "env_var_reference",
        lit("${FIX_BRKX_PASSWORD}"),
        [
            "Password={v}",
            "quickfix cfg now reads 554 from {v}, rendered at deploy",
            "export PB_PASSWORD={v}",
        ],
    ),
    (
        "env_var_reference_python",
        lit("os.environ['POLYGON_API_KEY']"),
        [
            "api_key = {v}",
            "don't hardcode, use {v}",
        ],
    ),
    (
        "vault_path_reference",
        g_vaultpath,
        [
            "fix creds moved to vault: vault kv get {v}",
            "password: vault:{v}#password",
            "the new 554 value is in {v}, ask Raj for read policy",
        ],
    ),
    (
        "redacted_value",
        lit("[REDACTED]"),
        [
            "pasting the logon for debugging: 553=qtf_eq01 554={v}",
            "AWS_SECRET_ACCESS_KEY={v}",
            "token was {v} in the incident doc",
        ],
    ),
    (
        "masked_key_last4",
        g_last4,
        [
            "binance key ending ...{v} has withdraw perms? check",
            "alpaca secret ****************************{v} rotated",
            "the leaked one was ghp_…{v}, already revoked by GitHub",
            "api key: sk-...{v}",
        ],
    ),
    (
        "ssh_public_key",
        g_sshpub,
        [
            "add to authorized_keys on colo boxes: ssh-ed25519 {v} mchen@laptop",
            "ssh-ed25519 {v} ci-deploy",
            "Raj's pubkey for the research cluster: ssh-ed25519 {v}",
            "public key for the sftp whitelisting (send to vendor): ssh-ed25519 {v} qtf-arch",
        ],
    ),
    (
        "ssh_host_fingerprint",
        g_fp,
        [
            "ED25519 key fingerprint is {v}. verify before typing yes",
            "new host key for jump-ld4 after rebuild: {v}",
            "vendor sftp host fp {v}",
            "ホスト鍵フィンガープリント: {v}",
        ],
    ),
    (
        "x509_certificate_pem",
        g_cert,
        [
            "venue's CA cert for FIX/TLS:\n-----BEGIN CERTIFICATE-----\n{v}\n-----END CERTIFICATE-----",
            "-----BEGIN CERTIFICATE-----\n{v}\n-----END CERTIFICATE-----",
            "our public client cert (they need it for the mTLS allowlist):\n-----BEGIN CERTIFICATE-----\n{v}\n-----END CERTIFICATE-----",
        ],
    ),
    (
        "tls_cert_sha1_fingerprint",
        g_colonhex,
        [
            "pin this cert fingerprint for the PB api: {v}",
            "SHA1 Fingerprint={v}",
            "broker rotated their cert, new fp {v}",
            "{v}",
        ],
    ),
    (
        "pgp_fingerprint",
        g_pgp,
        [
            "encrypt the EOD position file to the broker key, fp {v}",
            "compliance archive pgp key fingerprint: {v}",
            "gpg --recv-keys '{v}'",
            "PGP-Fingerprint des Archivanbieters: {v}",
        ],
    ),
    (
        "recaptcha_site_key",
        g_sitekey,
        [
            "internal portal login form recaptcha site key {v} (public, goes in the html)",
            'data-sitekey="{v}"',
            "RECAPTCHA_SITE_KEY={v}",
            "site key (public) {v}; the secret key is in vault",
        ],
    ),
    (
        "password_policy_text",
        lit("minimum 14 characters"),
        [
            "FIX session passwords: {v}, rotate every 90 days, no reuse of last 12",
            "broker policy says {v} and at least one symbol; their portal rejects '#'",
            "Passwort-Richtlinie: {v}, Wechsel alle 90 Tage",
        ],
    ),
    (
        "bcrypt_hash",
        g_bcrypt,
        [
            "jupyterhub native auth stores {v} for the ops user",
            "htpasswd entry for grafana proxy: ops:{v}",
            "hash in the users table: {v}",
            "{v}",
        ],
    ),
    (
        "file_sha256_checksum",
        g_sha256,
        [
            "sha256 of OPRA_20261204.pcap.zst: {v}",
            "{v}  itch_20261203.bin.gz",
            "checksum mismatch on the secmaster file, expected {v}",
            "sha256sum verified, {v} matches vendor manifest",
        ],
    ),
    (
        "file_md5_checksum",
        g_md5,
        [
            "md5 of the signed model artifact {v}",
            "{v}  factors_2026Q4.parquet",
            "vendor manifest md5={v}",
            "md5sum: {v} ok",
        ],
    ),
    (
        "exec_id",
        g_execid,
        [
            "bust request for ExecID {v}, fat finger on the 1500 lot",
            "17={v}|150=F|39=2|",
            "exec {v} missing from drop copy",
            "drop copy 和 OMS 对不上：ExecID {v}",
        ],
    ),
    (
        "kafka_consumer_group",
        g_group,
        [
            "consumer group {v} lagging 3M msgs on md.l2.eu",
            "reset offsets: kafka-consumer-groups --group {v} --reset-offsets --to-latest --execute --all-topics",
            "group.id={v}",
            "lag alert: {v} > 500k on md.l1.us",
        ],
    ),
    (
        "slack_channel_id",
        g_slackch,
        [
            "post risk alerts to channel id {v}",
            "ALERT_CHANNEL={v}",
            "#fix-sessions is {v}",
            "channel={v} text='OPRA gap'",
        ],
    ),
    (
        "aws_arn_account_id",
        g_acct,
        [
            "role arn arn:aws:iam::{v}:role/research-s3-ro",
            "tick archive lives in account {v} (eu-west-2)",
            "aws sts assume-role --role-arn arn:aws:iam::{v}:role/ci-deploy --role-session-name ci",
        ],
    ),
    (
        "ibkr_public_demo_login",
        lit("demouser"),
        [
            "for quick api smoke tests use IB's public demo: user edemo / pw {v}",
            "IbLoginId=edemo\nIbPassword={v}\nTradingMode=paper",
            "edemo/{v} is the public demo account from IB's site, not ours",
        ],
    ),
    (
        "k8s_secret_key_ref",
        lit("fix-brkx-creds"),
        [
            "env:\n- name: FIX_PASSWORD\n  valueFrom:\n    secretKeyRef:\n      name: {v}\n      key: password",
            "kubectl get secret {v} -n trading -o yaml  (needs break-glass role)",
            "password now mounted from the k8s secret {v}",
        ],
    ),
    (
        "azure_client_id_public",
        g_uuid,
        [
            "SSO app registration client id {v}, tenant in the wiki",
            "AZURE_CLIENT_ID={v}",
            "application (client) id: {v}",
            "Public client app (no secret, PKCE), client_id {v}",
        ],
    ),
    (
        "mac_address",
        g_mac,
        [
            "solarflare nic on colo-ny4-07 mac {v}",
            "dhcp reservation for the ptp grandmaster: {v}",
            "port 12 shows {v} flapping",
            "| colo-ld4-02 | sfc1 | {v} |",
        ],
    ),
    (
        "multicast_group_feed",
        g_mcast,
        [
            "OPRA line 3A on {v}:15003, B side on the other switch",
            "join mcast group {v} port 14310 for the ITCH feed",
            "feed cfg: group={v} port=31102 iface=sfc0",
            "tcpdump -i sfc0 -nn host {v} and udp port 20001",
        ],
    ),
    (
        "bloomberg_terminal_uuid",
        g_bbguuid,
        [
            "B-PIPE entitlement check for UUID {v} failing",
            "user uuid {v} needs EMRS permission for the new exchange",
            "Bloomberg UUID: {v}",
            "bbg uuid {v} / firm 712 — swap seat to new joiner",
        ],
    ),
    (
        "jwt_io_documented_example",
        lit(
            "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
        ),
        [
            "unit test for the token parser uses the jwt.io sample: {v}",
            "example from jwt.io, not a real session: {v}",
        ],
    ),
    (
        "base64_nonsecret_config",
        g_b64cfg,
        [
            "strategy params blob (base64 json, just venue + throttle): {v}",
            "configmap data: STRAT_CFG: {v}",
            "echo {v} | base64 -d",
            "{v}",
        ],
    ),
    (
        "ptp_clock_identity",
        g_ptp,
        [
            "ptp4l locked to grandmaster {v}",
            "clockIdentity {v} offset 12ns",
            "GM changed to {v} after the cage power test",
            "pmc -u -b 0 'GET PARENT_DATA_SET' -> grandmasterIdentity {v}",
        ],
    ),
    (
        "jupyter_kernel_id",
        g_uuid,
        [
            "kernel {v} died OOM on gpu-07, 512G box",
            "jupyter kernel id {v} stuck busy, killed it",
            "/api/kernels/{v}/restart",
            "kernel_id={v}",
        ],
    ),
    (
        "request_signature_hex",
        g_sha256,
        [
            "binance rejected signature={v} — timestamp skew, ntp was off",
            "signed query ...&timestamp=1796000000000&signature={v}",
            "HMAC of the request (signature only, not the key): {v}",
            "X-MBX-SIGNATURE? no, it is a query param: signature={v}",
        ],
    ),
    (
        "revoked_github_pat_stated_revoked",
        g_ghp,
        [
            "INCIDENT: {v} was pushed to a public gist; revoked by GitHub secret scanning 09:12, confirmed dead (401)",
            "old CI token {v} — revoked and deleted 2026-11-30, kept here only for the audit trail",
            "postmortem: leaked PAT {v} (already revoked, returns 401 Bad credentials)",
        ],
    ),
    (
        "rotated_password_no_value",
        lit("rotated"),
        [
            "BRKX FIX pwd {v} today, new one in vault, engines restarted 06:40",
            "IB gateway password {v} after the offboarding, nobody outside ops has it",
            "le mot de passe SFTP archive a été {v} (voir coffre)",
        ],
    ),
    (
        "order_book_checksum",
        g_obcs,
        [
            "crypto ws book checksum {v} mismatch, resubscribed",
            "kraken book crc32={v} vs ours",
            "checksum: {v}",
            "OKX books checksum {v} ok after resync",
        ],
    ),
    (
        "empty_password_field",
        lit("Password="),
        [
            "UAT session cfg has {v} empty, venue doesn't check in uat",
            "[SESSION]\nSenderCompID=QTFUAT\nTargetCompID=SIMX\n{v}\nHeartBtInt=30",
        ],
    ),
    (
        "quote_and_trade_ids",
        g_num,
        [
            "quote id {v} rejected: stale",
            "RFQ {v} from the dealer expired before we could hit",
            "TradeID={v} booked twice in the risk sys, deleted the dupe",
        ],
    ),
    (
        "cusip_sedol_ref",
        lambda r: s(r, 7, "BCDFGHJKLMNPQRSTVWXYZ0123456789"),
        [
            "SEDOL {v} maps to two lines in the secmaster",
            "sedol={v} missing from the borrow file",
            "SEDOL {v} délisté, retirer de l'univers",
        ],
    ),
    (
        "order_nonce_timestamp",
        lambda r: str(r.randint(1790000000000, 1799999999999)),
        [
            "recvWindow=5000&timestamp={v}",
            "nonce {v} reused -> exchange rejected",
            "ts={v}",
        ],
    ),
    (
        "kdb_handle_no_password",
        lambda r: "tp-ld4-%02d:%d" % (r.randint(1, 20), r.randint(5000, 5999)),
        [
            "h:hopen `:{v}   / no auth on the research replica",
            "RDB for the research cluster is {v}, read only, no creds needed inside the vlan",
            "qcon {v}",
        ],
    ),
    (
        "used_otp_code",
        lambda r: "%06d" % r.randint(0, 999999),
        [
            "broker portal sent 2FA code {v}, already used, expired 30s later",
            "OTP {v} (used for the 07:10 login, single use)",
        ],
    ),
]


def _fill(t, v, r):
    if "{p}" in t:
        t = t.replace("{p}", human_pw(r))
    return t.replace("{n}", str(len(v))).replace("{v}", v)


def corpus() -> list[dict]:
    r = random.Random(SEED)
    rows = []
    for label, table in (("secret", SECRET), ("benign", BENIGN)):
        for kind, gen, templates in table:
            for t in templates:
                v = gen(r)
                rows.append({"label": label, "kind": kind, "text": _fill(t, v, r), "value": v})
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

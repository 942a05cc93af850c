# ruff: noqa: E501, UP031
"""Blind secret-detector corpus 64: insurance claims, policy-admin and actuarial IT.

Brief: memory notes of an insurer's claims / policy-admin / actuarial IT team (Guidewire-style PolicyCenter/ClaimCenter/BillingCenter, rating engines, broker portals, document generation, SAS and actuarial models, warehouse loads, payment and bank-file SFTP, fraud-scoring vendors, call recording) with live credentials versus look-alikes such as policy numbers, claim numbers, VINs, agent codes, hashes, ids, public keys, placeholders and masked values.

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Run: python blind_secrets_64.py [out.jsonl]

Kinds, secret: gw_su_password, claimcenter_mssql_connstr, oracle_jdbc_password, bank_sftp_password, openssh_private_key, rsa_private_key_pem, pgp_private_key_block, aws_secret_access_key, azure_storage_connstr, azure_sas_token, gcp_service_account_json, github_pat_classic, github_pat_fine_grained, gitlab_pat, slack_bot_token, slack_webhook_url, stripe_live_secret_key, sendgrid_api_key, twilio_auth_token, snowflake_password, databricks_token, sas_pwencode_sas002, fraud_vendor_api_key, call_recording_admin_password, broker_portal_client_secret, bearer_jwt_access_token, basic_auth_header, url_embedded_credentials, docgen_api_key, npm_token, pypi_token, artifactory_api_key, okta_api_token, vault_token, datadog_api_key, openai_api_key, anthropic_api_key, google_oauth_client_secret, smtp_password, ldap_bind_password, java_keystore_password, pfx_passphrase, prose_password_no_keyword, redis_url_password, amqp_url_password, kafka_sasl_jaas_password, azure_ad_client_secret, totp_seed_base32, postman_api_key, atlassian_api_token
Kinds, benign: ulid_document_id, k8s_secret_key_ref, sa_json_private_key_redacted, password_rotation_note, iso_claimsearch_ref, masked_ssn, cheque_number, policy_number, claim_number, vin, agent_code, naic_company_code, git_commit_sha, sha256_file_checksum, md5_document_hash, uuid_correlation_id, guidewire_public_id, aws_documented_example_key, angle_placeholder, changeme_placeholder, env_var_reference, vault_path_reference, masked_value, redacted_key, stripe_publishable_key, recaptcha_site_key, ssh_public_key, x509_certificate_pem, ssh_host_fingerprint, pgp_fingerprint, password_policy_text, iban, aba_routing_number, bank_file_name, jira_ticket, docker_image_digest, okta_client_id, azure_tenant_client_guid, aws_account_id, traceparent_id, call_recording_interaction_id, npi_provider_number, base64_nonsecret_payload, bcrypt_hash, revoked_token_stated_revoked, documented_test_card, launchdarkly_client_side_id, quote_submission_number, eft_trace_number, masked_conn_string_password, empty_secret_env_line, saml_cert_sha1_fingerprint, rating_ruleset_version
"""

import base64
import json
import random
import string
import sys

SEED = 6464

UP = string.ascii_uppercase
LO = string.ascii_lowercase
DG = string.digits
AN = UP + LO + DG
HEXL = "0123456789abcdef"
B64 = AN + "+/"
B64U = AN + "-_"
B32 = UP + "234567"

WORDS = [
    "Summer",
    "Winter",
    "Claims",
    "Policy",
    "Harbor",
    "Falcon",
    "Tiger",
    "Maple",
    "Rating",
    "Broker",
    "Actuary",
    "Glacier",
    "Orchid",
    "Pebble",
    "Sunset",
    "Thunder",
    "Marlin",
    "Copper",
    "Willow",
    "Dragon",
]
SYMS = "!@#$%&*?"


def mk(r):
    def rs(alpha, n):
        return "".join(r.choice(alpha) for _ in range(n))

    def human():
        w = r.choice(WORDS)
        w2 = r.choice(WORDS).lower() if r.random() < 0.4 else ""
        return w + w2 + str(r.randint(1, 2026)) + r.choice(SYMS)

    def genpw(n=20):
        return rs(AN + "!#%^*-_=+", n)

    def b64bytes(n):
        return base64.b64encode(bytes(r.getrandbits(8) for _ in range(n))).decode()

    def b64u(n):
        return (
            base64.urlsafe_b64encode(bytes(r.getrandbits(8) for _ in range(n))).decode().rstrip("=")
        )

    def pem_body(prefix, nbytes):
        body = prefix + b64bytes(nbytes)
        return "\n".join(body[i : i + 64] for i in range(0, len(body), 64))

    return rs, human, genpw, b64bytes, b64u, pem_body


def luhn_digit(num):
    total = 0
    for i, ch in enumerate(reversed(num)):
        d = int(ch)
        if i % 2 == 0:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return str((10 - total % 10) % 10)


VIN_MAP = {
    **{str(i): i for i in range(10)},
    "A": 1,
    "B": 2,
    "C": 3,
    "D": 4,
    "E": 5,
    "F": 6,
    "G": 7,
    "H": 8,
    "J": 1,
    "K": 2,
    "L": 3,
    "M": 4,
    "N": 5,
    "P": 7,
    "R": 9,
    "S": 2,
    "T": 3,
    "U": 4,
    "V": 5,
    "W": 6,
    "X": 7,
    "Y": 8,
    "Z": 9,
}
VIN_W = [8, 7, 6, 5, 4, 3, 2, 10, 0, 9, 8, 7, 6, 5, 4, 3, 2]


def build(r):
    rs, human, genpw, b64bytes, b64u, pem_body = mk(r)
    VINA = "ABCDEFGHJKLMNPRSTUVWXYZ0123456789"

    def vin():
        v = list(rs(VINA, 17))
        s = sum(VIN_MAP[c] * w for c, w in zip(v, VIN_W, strict=False))
        v[8] = "X" if s % 11 == 10 else str(s % 11)
        return "".join(v)

    def iban():
        bban = rs(UP, 4) + rs(DG, 14)
        conv = "".join(str(int(c, 36)) for c in bban + "GB00")
        chk = 98 - int(conv) % 97
        return "GB%02d%s" % (chk, bban)

    def aba():
        d = [r.randint(0, 9) for _ in range(8)]
        d[0] = r.choice([0, 1, 2])
        s = 3 * (d[0] + d[3] + d[6]) + 7 * (d[1] + d[4] + d[7]) + (d[2] + d[5])
        return "".join(map(str, d)) + str((10 - s % 10) % 10)

    def uuid4():
        h = rs(HEXL, 32)
        h = h[:12] + "4" + h[13:16] + r.choice("89ab") + h[17:]
        return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"

    def jwt():
        hdr = b64u_json({"alg": "RS256", "typ": "JWT", "kid": rs(AN, 16)})
        pl = b64u_json(
            {
                "sub": "svc-broker-" + rs(DG, 4),
                "aud": "api://claims",
                "iss": "https://login.example-insurer.com/oauth2/default",
                "exp": 1790000000 + r.randint(0, 9999999),
                "scp": ["claims.read", "claims.write"],
            }
        )
        return hdr + "." + pl + "." + b64u(256)

    def b64u_json(o):
        return (
            base64.urlsafe_b64encode(json.dumps(o, separators=(",", ":")).encode())
            .decode()
            .rstrip("=")
        )

    def ssh_priv():
        return (
            "-----BEGIN OPENSSH PRIVATE KEY-----\n"
            + pem_body(
                "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW", 300
            )
            + "\n-----END OPENSSH PRIVATE KEY-----"
        )

    def rsa_priv():
        return (
            "-----BEGIN RSA PRIVATE KEY-----\n"
            + pem_body("MIIEpAIBAAKCAQEA", 1180)
            + "\n-----END RSA PRIVATE KEY-----"
        )

    def pgp_priv():
        return (
            "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n"
            + pem_body("lQVYBG", 900)
            + "\n="
            + rs(B64, 4)
            + "\n-----END PGP PRIVATE KEY BLOCK-----"
        )

    def cert():
        return (
            "-----BEGIN CERTIFICATE-----\n"
            + pem_body("MIIDdzCCAl+gAwIBAgIE", 820)
            + "\n-----END CERTIFICATE-----"
        )

    def gcp_json():
        key = (
            "-----BEGIN PRIVATE KEY-----\\n"
            + pem_body("MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ", 1150).replace(
                "\n", "\\n"
            )
            + "\\n-----END PRIVATE KEY-----\\n"
        )
        return key, rs(HEXL, 40), rs(DG, 21)

    def sas002():
        return "{SAS002}" + rs("0123456789ABCDEF", 32)

    return locals()


def secret_kinds(g):
    rs, human, genpw, b64bytes = g["rs"], g["human"], g["genpw"], g["b64bytes"]
    r = g["r"]
    K = []

    def add(kind, gen, templates):
        K.append((kind, gen, templates))

    add(
        "gw_su_password",
        human,
        [
            "PC dev env: login su / {v} (reset after every refresh from prod)",
            "gw su pw on cc-uat2 is {v} - dont change it, the batch server uses it too",
            "| env | user | pwd |\n| CC-SIT | su | {v} |",
            "Le mot de passe su de PolicyCenter en recette est {v}, à ne pas partager avec le prestataire.",
        ],
    )
    add(
        "claimcenter_mssql_connstr",
        lambda: genpw(18),
        [
            "Server=sqlcc-prd01.corp.local,1433;Database=ClaimCenter;User Id=cc_app;Password={v};Encrypt=True;",
            "cc db conn for reports: `Server=sqlcc-rpt;Initial Catalog=CCReporting;User ID=ssrs_ro;Password={v}`",
            "database.properties ->\njdbc:sqlserver://sqlbc-uat:1433;databaseName=BillingCenter;user=bc_owner;password={v}",
            "sqlcmd -S sqlcc-prd01 -U cc_app -P '{v}' -Q \"select count(*) from cc_claim\"",
        ],
    )
    add(
        "oracle_jdbc_password",
        lambda: genpw(16),
        [
            "rating engine schema: RATE_OWNER/{v}@//ora-rate-prd:1521/RATEPDB",
            "sqlplus pc_ext/{v}@PCEXTUAT  (legacy policy extract, Oracle 19c)",
            "oracle.password={v}\noracle.user=CLAIMS_DW\noracle.url=jdbc:oracle:thin:@dwora01:1521/DWPRD",
            "Contraseña del esquema RATE_OWNER en producción: {v}",
        ],
    )
    add(
        "bank_sftp_password",
        human,
        [
            "Bank SFTP (payments out, pain.001): host sftp.bankgw.example.net user INSCO_PAY pass {v}",
            "sftp login for the EFT return files is insco_eft / {v} - Mark has the same in KeePass",
            "lftp -u insco_pay,'{v}' sftp://sftp.bankgw.example.net -e 'cd /outbound; mget *.xml; bye'",
            "Zugang Bank-SFTP für Lastschriftdateien: Benutzer versich_dd, Passwort {v}",
        ],
    )
    add(
        "openssh_private_key",
        g["ssh_priv"],
        [
            "key for the claims payment sftp (id_ed25519_bankgw), pasted so we have it:\n{v}",
            "handover: batch user's private key below, it's also on gwbatch01:~/.ssh\n\n{v}",
            "{v}",
        ],
    )
    add(
        "rsa_private_key_pem",
        g["rsa_priv"],
        [
            "mTLS client key for the fraud vendor (cert is in the repo, key is NOT, so storing here):\n{v}",
            "docgen signing key (Exstream PDF sign):\n{v}",
            "broker-portal-saml.key\n{v}",
        ],
    )
    add(
        "pgp_private_key_block",
        g["pgp_priv"],
        [
            "PGP secret key we use to decrypt the bank's return files (passphrase in separate note):\n{v}",
            "{v}\n^ decrypts the lockbox files from the bank",
            "bank file decrypt key (treasury asked us to keep a copy):\n\n{v}",
        ],
    )
    add(
        "aws_secret_access_key",
        lambda: {"v": rs(AN + "+/", 40), "id": "AKIA" + rs(UP + "234567", 16)},
        [
            "dw-loader IAM user: AWS_ACCESS_KEY_ID={id} AWS_SECRET_ACCESS_KEY={v}",
            "[claims-dw]\naws_access_key_id = {id}\naws_secret_access_key = {v}\nregion = eu-west-1",
            "for the s3 landing bucket use key {id} secret {v}",
            "aws configure --profile actuarial -> {id} / {v}",
        ],
    )
    add(
        "azure_storage_connstr",
        lambda: b64bytes(64),
        [
            "DefaultEndpointsProtocol=https;AccountName=stclaimsdocsprd;AccountKey={v};EndpointSuffix=core.windows.net",
            "blob for scanned FNOL docs - account key: {v}",
            'az storage blob upload-batch -d fnol --account-name stfnolprd --account-key "{v}" -s ./out',
            "ADF linked service 'ls_claims_blob' key1 = {v}",
        ],
    )
    add(
        "azure_sas_token",
        lambda: b64bytes(32).replace("+", "%2B").replace("/", "%2F").replace("=", "%3D"),
        [
            "https://stactuarialprd.blob.core.windows.net/reserving?sv=2022-11-02&ss=b&srt=co&sp=rwdlac&se=2027-06-30T00:00:00Z&st=2026-01-01T00:00:00Z&spr=https&sig={v}",
            "SAS for the reinsurer drop container (valid till june): ?sv=2021-08-06&sr=c&sp=rl&se=2027-06-01&sig={v}",
            'azcopy copy ./bordereaux "https://streinsxfer.blob.core.windows.net/inbox?sp=racwl&sv=2022-11-02&sr=c&sig={v}" --recursive',
        ],
    )

    def gcp():
        key, kid, cid = g["gcp_json"]()
        return {"v": key, "kid": kid, "cid": cid}

    add(
        "gcp_service_account_json",
        gcp,
        [
            '{"type": "service_account", "project_id": "ins-fraud-ml", "private_key_id": "{kid}", "private_key": "{v}", "client_email": "scoring@ins-fraud-ml.iam.gserviceaccount.com", "client_id": "{cid}"}',
            'vertex batch scoring SA key (sa-scoring.json):\n{"type":"service_account","project_id":"ins-pricing-sandbox","private_key_id":"{kid}","private_key":"{v}","client_email":"pricing-batch@ins-pricing-sandbox.iam.gserviceaccount.com"}',
            '{"private_key": "{v}", "client_email": "claims-ocr@ins-docs-prd.iam.gserviceaccount.com", "type": "service_account"}',
        ],
    )
    add(
        "github_pat_classic",
        lambda: "ghp_" + rs(AN, 36),
        [
            "GH token for the gw-config repo mirror job: {v}",
            "git clone https://x-access-token:{v}@github.com/insco-it/rating-rules.git",
            "export GITHUB_TOKEN={v}  # Ana's, expires in 90d",
            "{v}",
        ],
    )
    add(
        "github_pat_fine_grained",
        lambda: "github_pat_" + rs(AN, 22) + "_" + rs(AN, 59),
        [
            "fine-grained PAT (read only, actuarial-models repo): {v}",
            "gh auth login --with-token <<< {v}",
            "Renovate bot token = {v}",
            "{v}",
        ],
    )
    add(
        "gitlab_pat",
        lambda: "glpat-" + rs(AN + "-_", 20),
        [
            "gitlab deploy for docgen templates: {v}",
            "CI var GL_TOKEN={v} (maintainer scope, careful)",
            'curl --header "PRIVATE-TOKEN: {v}" https://gitlab.insco.local/api/v4/projects/42/pipelines',
        ],
    )
    add(
        "slack_bot_token",
        lambda: "xoxb-" + rs(DG, 12) + "-" + rs(DG, 13) + "-" + rs(AN, 24),
        [
            "claims-alerts bot: SLACK_BOT_TOKEN={v}",
            "bot token for #cat-event-war-room notifier is {v}",
            "slack:\n  token: {v}\n  channel: '#pc-batch-failures'",
            "xoxb for the reserving bot: {v} (workspace insco-it)",
        ],
    )
    add(
        "slack_webhook_url",
        lambda: (
            "https://hooks.slack.com/services/T"
            + rs(UP + DG, 8)
            + "/B"
            + rs(UP + DG, 10)
            + "/"
            + rs(AN, 24)
        ),
        [
            "webhook for nightly DW load status -> {v}",
            "curl -X POST -H 'Content-type: application/json' --data '{\"text\":\"BC invoice run done\"}' {v}",
            "ALERT_WEBHOOK={v}",
        ],
    )
    add(
        "stripe_live_secret_key",
        lambda: "sk_live_" + rs(AN, 99),
        [
            "Stripe (online premium payments, direct channel) live secret: {v}",
            "STRIPE_SECRET_KEY={v}",
            "pago de primas con tarjeta: la clave secreta de Stripe en producción es {v}",
            "curl https://api.stripe.com/v1/refunds -u {v}: -d payment_intent=pi_3 -d amount=12000",
        ],
    )
    add(
        "sendgrid_api_key",
        lambda: "SG." + rs(B64U, 22) + "." + rs(B64U, 43),
        [
            "SendGrid key for claim acknowledgement emails: {v}",
            "mail:\n  provider: sendgrid\n  api_key: {v}",
            "SENDGRID_API_KEY='{v}'",
        ],
    )
    add(
        "twilio_auth_token",
        lambda: {"v": rs(HEXL, 32), "sid": "AC" + rs(HEXL, 32)},
        [
            "Twilio (FNOL SMS): account {sid} auth token {v}",
            "TWILIO_ACCOUNT_SID={sid}\nTWILIO_AUTH_TOKEN={v}",
            "curl -u {sid}:{v} https://api.twilio.com/2010-04-01/Accounts/{sid}/Messages.json",
            "twilio token rotated, new one is {v}",
        ],
    )
    add(
        "snowflake_password",
        human,
        [
            "snowsql -a insco-eu1 -u DW_LOADER --> pw {v}",
            "Snowflake svc user ACTUARIAL_ETL password: {v} (MFA exempt)",
            'profiles.yml\n  claims_dw:\n    target: prod\n    outputs:\n      prod:\n        type: snowflake\n        account: insco-eu1\n        user: DBT_PROD\n        password: "{v}"',
            "Het wachtwoord van DW_LOADER in Snowflake is {v}",
        ],
    )
    add(
        "databricks_token",
        lambda: "dapi" + rs(HEXL, 32),
        [
            "databricks PAT for the reserving notebooks: {v}",
            "DATABRICKS_HOST=https://adb-4411.7.azuredatabricks.net\nDATABRICKS_TOKEN={v}",
            "databricks configure --token  (pasted {v})",
            "host = https://adb-4411.7.azuredatabricks.net\ntoken = {v}",
        ],
    )
    add(
        "sas_pwencode_sas002",
        g["sas002"],
        [
            "SAS metadata svc account sasdemo, encoded pw (pwencode output, reversible!): {v}",
            'libname dwh oracle user=SAS_READ password="{v}" path=DWPRD schema=ACT;',
            "autoexec.sas on sascompute01 has: %let dbpass={v};",
        ],
    )
    add(
        "fraud_vendor_api_key",
        lambda: rs(AN, 40),
        [
            "fraud scoring vendor (prod) x-api-key: {v}",
            'curl -H "x-api-key: {v}" https://api.fraudscore-vendor.example.com/v3/claims/score -d @claim.json',
            "FRAUD_API_KEY={v}\nFRAUD_API_URL=https://api.fraudscore-vendor.example.com/v3",
            "vendor sent the new key by email today: {v} - old one dies friday",
        ],
    )
    add(
        "call_recording_admin_password",
        human,
        [
            "NICE call recording admin console: admin / {v}",
            "Verint QM superuser pw {v}, only for retention purge jobs",
            "call rec server (rec01) local Administrator password = {v}",
            "Wachtwoord beheerder opnamesysteem: {v}",
        ],
    )
    add(
        "broker_portal_client_secret",
        lambda: rs(AN + "~._-", 40),
        [
            "broker portal OAuth: client_id=broker-portal-prd client_secret={v}",
            "curl -d 'grant_type=client_credentials&client_id=quote-api&client_secret={v}' https://auth.brokers.insco.example/oauth/token",
            "spring.security.oauth2.client.registration.brokerportal.client-secret={v}",
            "broker portal secret for UAT, pasting from the keyvault export: {v}",
        ],
    )
    add(
        "bearer_jwt_access_token",
        g["jwt"],
        [
            "Authorization: Bearer {v}",
            "token that works against claims API in UAT (valid 24h):\n{v}",
            "curl -H 'Authorization: Bearer {v}' https://api-uat.insco.example/claims/v2/claims/CLM-2026-004412",
        ],
    )

    def basic():
        u = r.choice(["gwintegration", "pc_rating", "docgen_svc", "brokerapi"])
        p = human()
        return {"v": base64.b64encode((u + ":" + p).encode()).decode(), "p": p}

    add(
        "basic_auth_header",
        basic,
        [
            "Authorization: Basic {v}",
            "ratingsvc SOAP calls need header `Authorization: Basic {v}`",
            'curl -H "Authorization: Basic {v}" https://pc-uat.insco.local/pc/ws/gw/webservice/policycenter/PolicyAPI',
            "wget --header='Authorization: Basic {v}' https://bc-uat.insco.local/bc/rest/billing/v1/invoices",
        ],
    )
    add(
        "url_embedded_credentials",
        lambda: {"v": human()[:-1] + r.choice("!*$_"), "u": "gwint"},
        [
            "https://{u}:{v}@cc-uat.insco.local/cc/rest/claim/v1/claims",
            "Jenkins job param CC_URL=http://su:{v}@cc-dev01:8080/cc",
            "postgres://rating_app:{v}@pg-rating-prd.insco.local:5432/rating",
            "mongodb://docgen:{v}@mongo-docgen-01:27017/templates?authSource=admin",
        ],
    )
    add(
        "docgen_api_key",
        lambda: rs(HEXL, 64),
        [
            "SmartComms / docgen tenant API key: {v}",
            "DOCGEN_KEY={v}",
            "document generation service key (prod, policy schedules + renewal letters) -> {v}",
            "curl -H 'X-Api-Key: {v}' https://docgen.insco.example/api/v2/render -F template=renewal_letter",
        ],
    )
    add(
        "npm_token",
        lambda: "npm_" + rs(AN, 36),
        [
            "//registry.npmjs.org/:_authToken={v}",
            "npm publish token for @insco/broker-ui: {v}",
            "NPM_TOKEN={v}",
        ],
    )
    add(
        "pypi_token",
        lambda: "pypi-AgEIcHlwaS5vcmc" + rs(B64U, 60),
        [
            "pypi upload token for insco-actuarial-utils: {v}",
            "[pypi]\n  username = __token__\n  password = {v}",
            "twine upload -u __token__ -p {v} dist/*",
        ],
    )
    add(
        "artifactory_api_key",
        lambda: "AKCp" + rs("5678", 1) + rs(AN, 68),
        [
            "artifactory key for gw builds (libs-release): {v}",
            "curl -H 'X-JFrog-Art-Api: {v}' https://artifactory.insco.local/artifactory/api/storage/gw-libs",
            "gradle.properties\nartifactory_user=gw_build\nartifactory_password={v}",
        ],
    )
    add(
        "okta_api_token",
        lambda: "00" + rs(AN + "-_", 40),
        [
            "Okta API token (user provisioning for broker accounts): {v}",
            'curl -H "Authorization: SSWS {v}" https://insco.okta.com/api/v1/users?limit=200',
            "OKTA_API_TOKEN={v}",
            "new okta token (old one revoked yesterday): {v}",
        ],
    )
    add(
        "vault_token",
        lambda: "hvs." + rs(AN + "_-", 90),
        [
            "root-ish vault token I used for the migration, still valid: {v}",
            "export VAULT_TOKEN={v}",
            "VAULT_ADDR=https://vault.insco.local:8200 VAULT_TOKEN={v} vault kv get kv/claims/prd",
        ],
    )
    add(
        "datadog_api_key",
        lambda: rs(HEXL, 32),
        [
            "DD_API_KEY={v}",
            "datadog api key for the gw apm agents: {v}",
            "datadog:\n  apiKey: {v}\n  site: datadoghq.eu",
            "dd key {v}",
        ],
    )
    add(
        "openai_api_key",
        lambda: "sk-proj-" + rs(AN + "-_", 74) + "T3BlbkFJ" + rs(AN + "-_", 74),
        [
            "claims notes summariser POC key: {v}",
            "OPENAI_API_KEY={v}",
            "key used by the adjuster copilot pilot -> {v}",
        ],
    )
    add(
        "anthropic_api_key",
        lambda: "sk-ant-api03-" + rs(AN + "-_", 93) + "AA",
        [
            "ANTHROPIC_API_KEY={v}",
            "the policy-wording diff bot uses {v}",
            "clé API pour le POC de lecture des déclarations de sinistre : {v}",
        ],
    )
    add(
        "google_oauth_client_secret",
        lambda: "GOCSPX-" + rs(AN + "-_", 28),
        [
            "google sign-in for agent portal: client secret {v}",
            "GOOGLE_CLIENT_SECRET={v}",
            '"installed":{"client_id":"1055.apps.googleusercontent.com","client_secret":"{v}"}',
        ],
    )
    add(
        "smtp_password",
        lambda: genpw(16),
        [
            "relay for policy docs email: smtp.insco.local:587 user docgen-mailer pw {v}",
            "spring.mail.password={v}",
            "SMTP_PASS={v}",
            "mail relay pwd: {v}",
        ],
    )
    add(
        "ldap_bind_password",
        human,
        [
            "ldap bind for CC/PC auth: CN=svc_gwldap,OU=Service,DC=insco,DC=local / {v}",
            "ldapsearch -x -H ldaps://dc01.insco.local -D 'svc_gwldap@insco.local' -w '{v}' -b 'DC=insco,DC=local' '(sAMAccountName=jdoe)'",
            "login.ldap.bindPassword={v}",
        ],
    )
    add(
        "java_keystore_password",
        lambda: genpw(14),
        [
            "keytool -list -keystore bankgw-client.jks -storepass {v}",
            "javax.net.ssl.keyStorePassword={v}",
            "store + key pass for fraud-mtls.p12 are both {v}",
            "-Djavax.net.ssl.trustStorePassword=changeit -Djavax.net.ssl.keyStorePassword={v}",
        ],
    )
    add(
        "pfx_passphrase",
        human,
        [
            "the .pfx for the broker portal wildcard cert opens with {v}",
            "openssl pkcs12 -in portal.pfx -nodes -passin pass:{v} -out portal.pem",
            "Passwort für das Zertifikat (PFX) des Maklerportals: {v}",
        ],
    )

    add(
        "prose_password_no_keyword",
        human,
        [
            "svc_gwbatch is {v} on all the batch boxes fyi",
            "for svc_dwload try {v}, if that fails it was rotated Tuesday",
            "Raj: what do I log in with on sascompute01 as svc_sasmeta?\nMe: {v}",
            "svc_ccint\n{v}",
        ],
    )
    add(
        "redis_url_password",
        lambda: rs(AN, 32),
        [
            "REDIS_URL=redis://:{v}@redis-quote-cache.insco.local:6379/0",
            "rating cache: rediss://default:{v}@cache-rating-prd.redis.cache.windows.net:6380",
            "redis-cli -h redis-quote-cache -a {v} FLUSHDB   # only in dev!!",
            "requirepass {v}",
        ],
    )
    add(
        "amqp_url_password",
        lambda: genpw(18).replace("@", "x").replace("#", "h"),
        [
            "AMQP_URL=amqp://claims_events:{v}@rabbit-prd01:5672/claims",
            "rabbitmqadmin -u fnol_pub -p {v} list queues",
            "event bus for FNOL uses amqps://fnol_pub:{v}@mq.insco.local:5671/",
            "Le mot de passe RabbitMQ du compte fnol_pub est {v}",
        ],
    )
    add(
        "kafka_sasl_jaas_password",
        lambda: rs(AN, 64),
        [
            'sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="CKX7PQ2LMN" password="{v}";',
            "confluent cloud api secret for policy-events topic: {v}",
            "KAFKA_SASL_PASSWORD={v}",
            "kafka:\n  sasl:\n    mechanism: PLAIN\n    username: CKX7PQ2LMN\n    password: {v}",
        ],
    )
    add(
        "azure_ad_client_secret",
        lambda: rs(AN, 3) + "8Q~" + rs(AN + "~._-", 34),
        [
            "app reg 'claims-dw-adf' secret (exp 2027-03): {v}",
            "AZURE_CLIENT_SECRET={v}",
            "az login --service-principal -u 1f0c4e2a-claims-adf -p '{v}' --tenant insco.onmicrosoft.com",
        ],
    )
    add(
        "totp_seed_base32",
        lambda: rs(B32, 32),
        [
            "shared MFA seed for the reinsurer portal generic login (add to your authenticator): {v}",
            "otpauth://totp/ReinsPortal:claims-team?secret={v}&issuer=ReinsPortal",
            "2FA secret for bank portal (payments approver account): {v}",
        ],
    )
    add(
        "postman_api_key",
        lambda: "PMAK-" + rs("0123456789abcdef", 24) + "-" + rs("0123456789abcdef", 34),
        [
            "postman api key for the claims API collection sync: {v}",
            "POSTMAN_API_KEY={v}",
            "x-api-key: {v}  (postman monitor)",
        ],
    )
    add(
        "atlassian_api_token",
        lambda: "ATATT3xFfGF0" + rs(AN + "-_", 171) + "=" + rs("0123456789ABCDEF", 8),
        [
            "jira API token for the incident bot (svc-claims-jira@insco.example): {v}",
            "curl -u svc-claims-jira@insco.example:{v} https://insco.atlassian.net/rest/api/3/search?jql=project=CLM",
            "JIRA_API_TOKEN={v}",
        ],
    )
    return K


def benign_kinds(g):
    rs, uuid4, vin = g["rs"], g["uuid4"], g["vin"]
    r = g["r"]
    K = []

    def add(kind, gen, templates):
        K.append((kind, gen, templates))

    add(
        "policy_number",
        lambda: r.choice(["PA", "HO", "CPP", "WC", "BOP"]) + "-" + rs(DG, 10),
        [
            "renewal failed for policy {v} - rating engine returned null territory",
            "PC job stuck: policy# {v}, job 0004512, quote status draft",
            "| policy | term | issue |\n| {v} | 2026-2027 | duplicate coverage line |",
            "Police {v} : l'avenant ne s'est pas généré, relancer le batch de documents.",
            "{v}",
        ],
    )
    add(
        "claim_number",
        lambda: "CLM-" + str(r.randint(2019, 2026)) + "-" + rs(DG, 7),
        [
            "claim {v} reopened by SIU, fraud score 0.87",
            "ClaimCenter exposure for {v} not syncing to DW, see ticket",
            "Schadennummer {v} – Zahlung zweimal im Bankfile, bitte prüfen.",
            "cc-admin: search claim {v} -> 3 exposures, 1 reserve line negative",
        ],
    )
    add(
        "vin",
        vin,
        [
            "VIN {v} decodes to wrong model year in the rating call",
            "auto claim vehicle vin: {v}",
            "ISO VIN lookup failed for {v} (check digit ok)",
            "{v} - total loss, salvage assigned",
        ],
    )
    add(
        "agent_code",
        lambda: "AGT" + rs(DG, 6) + rs(UP, 2),
        [
            "commission run missed agent code {v}",
            "broker portal user mapped to agent {v}, producer code in PC matches",
            "Agentur {v} bekommt die Provisionsabrechnung doppelt.",
            "producer_code={v}",
        ],
    )
    add(
        "naic_company_code",
        lambda: rs(DG, 5),
        [
            "writing company NAIC {v} for the stat filing extract",
            "NAIC code on dec page must be {v} for the NY paper",
            "naic_cd: {v}",
            "Code NAIC de la compagnie émettrice : {v}",
        ],
    )
    add(
        "git_commit_sha",
        lambda: rs(HEXL, 40),
        [
            "rating rules fix merged in {v}",
            "prod tag for gw-config points at commit {v}",
            "git revert {v}  # broke the territory lookup",
            "deployed {v} to PC UAT",
        ],
    )
    add(
        "sha256_file_checksum",
        lambda: rs(HEXL, 64),
        [
            "sha256 of PAIN001_20261204_01.xml we sent: {v}",
            "bank confirmed checksum {v} matches their side",
            "sha256sum reserving_q3.sas7bdat\n{v}  reserving_q3.sas7bdat",
            "{v}",
        ],
    )
    add(
        "md5_document_hash",
        lambda: rs(HEXL, 32),
        [
            "docgen dedup uses md5 of rendered PDF, e.g. {v}",
            "md5({v}) = the renewal letter that went out twice",
            "file hash (MD5) of the bordereau: {v}",
            'ETag: "{v}"',
        ],
    )
    add(
        "uuid_correlation_id",
        uuid4,
        [
            "correlation id {v} in the FNOL api log, 502 from fraud vendor",
            "X-Correlation-ID: {v}",
            "request_id={v} took 41s in the rating engine",
            "{v}",
        ],
    )
    add(
        "guidewire_public_id",
        lambda: r.choice(["cc", "pc", "bc", "ab"]) + ":" + rs(DG, 6),
        [
            "exposure publicID {v} has no coverage ref",
            "contact {v} duplicated in ContactManager",
            "select * from cc_claim where PublicID = '{v}'",
            "Public ID {v}",
            "bc invoice {v} stuck in planned status",
        ],
    )
    add(
        "aws_documented_example_key",
        lambda: r.choice(["AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"]),
        [
            "the runbook uses the AWS doc example {v}, replace with your own",
            "aws configure example from docs: {v}",
            "unit test fixture uses {v} (AWS's documented example, not real)",
        ],
    )
    add(
        "angle_placeholder",
        lambda: (
            r.choice(["<your-token>", "<API_KEY>", "<password>", "<client-secret-here>", "<PAT>"])
            if r.random() < 0.5
            else "<token-" + rs(DG, 2) + ">"
        ),
        [
            "export FRAUD_API_KEY={v}",
            "curl -H 'Authorization: Bearer {v}' https://api-uat.insco.example/claims/v2/claims",
            "sftp setup: user INSCO_PAY, password {v} (ask treasury)",
            "DATABRICKS_TOKEN={v}",
        ],
    )
    add(
        "changeme_placeholder",
        lambda: (
            r.choice(["changeme", "CHANGE_ME", "changeit", "password", "xxxxxxxx", "TODO", "dummy"])
            + (str(r.randint(1, 9)) if r.random() < 0.3 else "")
        ),
        [
            "default keystore pass in the template is {v} - override in prod",
            "db.password={v}",
            "local docker compose for PC uses su / {v}",
            "SNOWFLAKE_PASSWORD={v}  # set real one in vault",
        ],
    )
    add(
        "env_var_reference",
        lambda: (
            r.choice(["${", "$"])
            + r.choice(
                ["SFTP_PASS", "DW_PASSWORD", "FRAUD_API_KEY", "STRIPE_SECRET_KEY", "CC_DB_PWD"]
            )
            + "_"
            + rs(UP, 2)
            + ("}" if r.random() < 0.5 else "")
        ),
        [
            "password: {v}",
            "lftp -u insco_pay,{v} sftp://sftp.bankgw.example.net",
            "the job reads the key from {v} at startup, never hardcode it",
            "x-api-key: {v}",
        ],
    )
    add(
        "vault_path_reference",
        lambda: (
            "kv/claims/"
            + r.choice(["prd", "uat", "sit"])
            + "/"
            + r.choice(["bank-sftp", "fraud-vendor", "snowflake", "docgen"])
            + "-"
            + rs(DG, 2)
        ),
        [
            "creds for this are in vault at {v}",
            "vault kv get -field=password {v}",
            "secret ref: {{ vault('{v}') }}",
            "Die Zugangsdaten liegen im Vault unter {v}.",
        ],
    )
    add(
        "masked_value",
        lambda: "****" + rs(DG, 4),
        [
            "customer card on file ending {v}",
            "api key shown in vendor portal as {v}",
            "password=********  (user said it ends {v})",
            "acct no {v} on the refund EFT",
        ],
    )
    add(
        "redacted_key",
        lambda: (
            r.choice(["sk_live_", "ghp_", "xoxb-", "glpat-", "AKIA"]) + rs(AN, 4) + "…[REDACTED]"
        ),
        [
            "log line had {v} - scrubber worked",
            "found {v} in the old wiki page, rotated and redacted",
            "token: {v}",
            "Der Schlüssel ({v}) wurde im Log maskiert.",
        ],
    )
    add(
        "stripe_publishable_key",
        lambda: "pk_live_" + rs(AN, 99),
        [
            "publishable key for the premium payment page (public, goes in the JS): {v}",
            "STRIPE_PUBLISHABLE_KEY={v}",
            "frontend config: stripePk: '{v}'",
            "{v}",
        ],
    )
    add(
        "recaptcha_site_key",
        lambda: "6L" + rs(AN + "-_", 38),
        [
            "reCAPTCHA site key for the online FNOL form: {v}",
            '<div class="g-recaptcha" data-sitekey="{v}"></div>',
            "RECAPTCHA_SITE_KEY={v}  (public)",
        ],
    )
    add(
        "ssh_public_key",
        lambda: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + rs(B64, 43),
        [
            "add this to authorized_keys on the bank sftp (our public key): {v} gwbatch@prd",
            "public key we sent to the fraud vendor: {v}",
            "{v} ana@laptop",
        ],
    )
    add(
        "x509_certificate_pem",
        g["cert"],
        [
            "bank's server cert (public) for pinning:\n{v}",
            "broker portal SAML IdP signing cert:\n{v}",
            "{v}",
        ],
    )
    add(
        "ssh_host_fingerprint",
        lambda: "SHA256:" + rs(B64, 43),
        [
            "bank sftp host key fingerprint is {v} - verify before accepting",
            "ED25519 key fingerprint is {v}.",
            "known host fp for rec01: {v}",
            "The authenticity of host 'sftp.bankgw.example.net' can't be established.\nED25519 key fingerprint is {v}.",
        ],
    )
    add(
        "pgp_fingerprint",
        lambda: " ".join(rs("0123456789ABCDEF", 4) for _ in range(10)),
        [
            "bank's PGP public key fingerprint: {v}",
            "encrypt bank files to key {v}",
            "gpg --fingerprint payments@bank -> {v}",
            "pgp fp: {v}",
        ],
    )
    add(
        "password_policy_text",
        lambda: str(r.randint(12, 16)),
        [
            "new AD policy for svc accounts: min {v} chars, rotate yearly, no dictionary words",
            "broker portal passwords: at least {v} characters incl. number and symbol, lockout after 5 tries",
            "Passwortrichtlinie: mindestens {v} Zeichen, Wechsel alle 90 Tage.",
            "reminder: service account passwords for the call recording servers must be {v}+ chars and live only in CyberArk",
        ],
    )
    add(
        "iban",
        g["iban"],
        [
            "claim payment bounced, IBAN {v} closed",
            "refund to {v} (policyholder confirmed by phone)",
            "<IBAN>{v}</IBAN> in the pain.001 was wrong",
            "IBAN del asegurado: {v} (indemnización pendiente)",
        ],
    )
    add(
        "aba_routing_number",
        g["aba"],
        [
            "ACH file: routing {v} is the new lockbox bank",
            "NACHA batch header ODFI {v}",
            "routing_number: {v}",
        ],
    )
    add(
        "bank_file_name",
        lambda: "PAIN001_INSCO_" + "2026" + rs(DG, 4) + "_" + rs(DG, 6) + ".xml.pgp",
        [
            "resend {v} - bank says not received",
            "ls /outbound -> {v}",
            "{v}",
            "gpg --decrypt {v} > payments.xml",
        ],
    )
    add(
        "jira_ticket",
        lambda: r.choice(["CLM", "PCADM", "ACT", "DWH"]) + "-" + str(r.randint(100, 9999)),
        [
            "see {v} for the reserve recalculation bug",
            "fixed under {v}, deploying thursday",
            "{v}: BC invoice stream wrong due date",
        ],
    )
    add(
        "docker_image_digest",
        lambda: "sha256:" + rs(HEXL, 64),
        [
            "rating-engine image pinned to {v}",
            "image: registry.insco.local/docgen@{v}",
            "docker pull registry.insco.local/rating-engine@{v}",
        ],
    )
    add(
        "okta_client_id",
        lambda: "0oa" + rs(AN, 17),
        [
            "broker portal OIDC client_id {v} (public client, PKCE)",
            "OKTA_CLIENT_ID={v}",
            "app {v} assigned to Brokers group",
        ],
    )
    add(
        "azure_tenant_client_guid",
        uuid4,
        [
            "tenant id {v}",
            "AZURE_CLIENT_ID={v}",
            "app registration claims-dw-adf, application (client) ID {v}",
            "az login --tenant {v}",
        ],
    )
    add(
        "aws_account_id",
        lambda: rs(DG, 12),
        [
            "actuarial sandbox account {v}",
            "arn:aws:iam::{v}:role/dw-loader",
            "s3 bucket policy allows account {v}",
            "{v}",
        ],
    )
    add(
        "traceparent_id",
        lambda: rs(HEXL, 32),
        [
            "traceparent: 00-{v}-" + "b7ad6b7169203331-01",
            "trace id {v} shows 12s in fraud vendor call",
            "dd trace {v}",
        ],
    )
    add(
        "call_recording_interaction_id",
        lambda: rs(DG, 14),
        [
            "call recording for the FNOL call: interaction {v}",
            "legal hold on recording id {v}",
            "Verint contact id {v} missing audio",
            "{v}",
        ],
    )
    add(
        "npi_provider_number",
        lambda: (lambda b: b + luhn_digit("80840" + b))("1" + rs(DG, 8)),
        [
            "WC medical bill rejected, provider NPI {v}",
            "npi={v} not found in provider directory",
            "| provider | NPI |\n| Dr. Okafor | {v} |",
        ],
    )

    def b64payload():
        return base64.b64encode(
            json.dumps({"claim": "CLM-2026-" + rs(DG, 7), "status": "OPEN"}).encode()
        ).decode()

    add(
        "base64_nonsecret_payload",
        b64payload,
        [
            "event payload (base64) from the bus: {v}",
            "message body={v}",
            "echo {v} | base64 -d",
        ],
    )
    add(
        "bcrypt_hash",
        lambda: "$2b$12$" + rs(AN + "./", 53),
        [
            "broker_user.password_hash for test user is {v} (hash only)",
            "hash stored in portal db: {v}",
            "{v}",
        ],
    )
    add(
        "revoked_token_stated_revoked",
        lambda: "ghp_" + rs(AN, 36),
        [
            "REVOKED 2026-11-30, do not use: {v} (was leaked in a PR, GitHub auto-revoked it)",
            "old token {v} was revoked and replaced, just noting for the incident timeline",
            "rotated: {v} is dead (revoked in GH settings 12/01)",
        ],
    )
    add(
        "documented_test_card",
        lambda: r.choice(
            ["4242424242424242", "4111111111111111", "5555555555554444", "4000000000000002"]
        ),
        [
            "Stripe test card for UAT payments: {v}, any future expiry, any CVC",
            "use {v} in sandbox to simulate decline / success",
            "payment page e2e test uses card {v}",
        ],
    )
    add(
        "launchdarkly_client_side_id",
        lambda: rs(HEXL, 24),
        [
            "LaunchDarkly client-side ID for broker UI (public): {v}",
            "LD_CLIENT_SIDE_ID={v}",
            "ldClient = LDClient.initialize('{v}', user)",
        ],
    )
    add(
        "quote_submission_number",
        lambda: "Q" + rs(DG, 9),
        [
            "quote {v} expired before bind",
            "submission {v} referred to underwriting",
            "Angebot {v} wurde doppelt erzeugt.",
            "{v}",
        ],
    )
    add(
        "eft_trace_number",
        lambda: rs(DG, 15),
        [
            "EFT trace number {v} for the returned payment",
            "ACH trace {v}, R01 insufficient funds",
            "{v}",
        ],
    )
    add(
        "masked_conn_string_password",
        lambda: "sqlcc-" + rs(LO + DG, 5),
        [
            "Server={v};Database=ClaimCenter;User Id=cc_app;Password=********;",
            "jdbc:sqlserver://{v}:1433;user=bc_owner;password=<redacted>",
            "postgres://rating_app:***@{v}:5432/rating",
        ],
    )
    add(
        "empty_secret_env_line",
        lambda: (
            r.choice(["FRAUD_API_KEY", "SFTP_PASSWORD", "DW_PASS", "DOCGEN_KEY"]) + "_" + rs(UP, 3)
        ),
        [
            "{v}=",
            '{v}=""   # filled by the pipeline',
            "set {v} yourself locally, it's blank in .env.example",
        ],
    )
    add(
        "saml_cert_sha1_fingerprint",
        lambda: ":".join(rs("0123456789ABCDEF", 2) for _ in range(20)),
        [
            "IdP cert SHA1 fingerprint {v}",
            "broker portal SAML: expected thumbprint {v}",
            "SHA1 Fingerprint={v}",
        ],
    )
    add(
        "rating_ruleset_version",
        lambda: "RT-2026Q" + str(r.randint(1, 4)) + "-" + rs("0123456789ABCDEF", 8),
        [
            "PA rating ruleset {v} deployed to prod",
            "rollback ruleset to {v}",
            "actuarial signed off {v} for the NY rate filing",
        ],
    )
    add(
        "ulid_document_id",
        lambda: "01J" + rs("0123456789ABCDEFGHJKMNPQRSTVWXYZ", 23),
        [
            "docgen output id {v} rendered blank page 2",
            "document {v} attached to claim twice",
            "doc_id={v}",
        ],
    )
    add(
        "k8s_secret_key_ref",
        lambda: "fraud-vendor-" + rs(LO + DG, 5),
        [
            "valueFrom:\n  secretKeyRef:\n    name: {v}\n    key: api-key",
            "kubectl get secret {v} -n claims (don't -o yaml in shared screens)",
            "the key lives in k8s secret {v}",
        ],
    )
    add(
        "sa_json_private_key_redacted",
        lambda: rs(HEXL, 40),
        [
            '{"type": "service_account", "project_id": "ins-fraud-ml", "private_key_id": "{v}", "private_key": "[REDACTED]", "client_email": "scoring@ins-fraud-ml.iam.gserviceaccount.com"}',
            "SA key id {v} (the json itself is in vault, not here)",
            "private_key_id: {v}",
        ],
    )
    add(
        "password_rotation_note",
        lambda: "CHG" + rs(DG, 7),
        [
            "rotated svc_gwbatch password under {v}, new value in CyberArk",
            "bank sftp pw changed ({v}); nobody paste it here pls",
            "Passwort für svc_dwload wurde über {v} erneuert, steht im Tresor.",
        ],
    )
    add(
        "iso_claimsearch_ref",
        lambda: rs(DG, 2) + rs(UP, 1) + rs(DG, 9),
        [
            "ISO ClaimSearch match ref {v} - prior loss same VIN",
            "claimsearch report {v} attached to SIU file",
            "{v}",
        ],
    )
    add(
        "masked_ssn",
        lambda: "XXX-XX-" + rs(DG, 4),
        [
            "claimant SSN {v} on the 1099 extract",
            "SSN shown as {v} in the adjuster screen, as it should be",
        ],
    )
    add(
        "cheque_number",
        lambda: rs(DG, 8),
        [
            "claim check #{v} voided and reissued",
            "positive pay file rejected check {v}",
            "Chèque n° {v} annulé, nouveau virement émis.",
        ],
    )
    return K


def corpus() -> list[dict]:
    r = random.Random(SEED)
    g = build(r)
    g["r"] = r
    rows = []
    for label, kinds in (("secret", secret_kinds(g)), ("benign", benign_kinds(g))):
        for kind, gen, templates in kinds:
            for t in templates:
                out = gen()
                if not isinstance(out, dict):
                    out = {"v": out}
                text = t
                for k, val in out.items():
                    text = text.replace("{" + k + "}", val)
                rows.append({"label": label, "kind": kind, "text": text, "value": out["v"]})
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

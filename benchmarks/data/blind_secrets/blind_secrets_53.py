"""Blind secret-detector corpus 53: a DevSecOps and incident-response team.

Secret-scanner findings pasted for triage (some real leaks, many false alarms),
rotation runbooks, leaked-credential post-mortems, honeytokens, SIEM and EDR
consoles, vulnerability-scanner API keys, SSO and SCIM tokens, break-glass
accounts, signing keys and certificate authorities, and the hashes, IOCs,
fingerprints and redacted values that fill such notes.

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Run: python benchmarks/data/blind_secrets/blind_secrets_53.py [out.jsonl]
(JSONL to the given path, or stdout without one). Every value is generated
from random.Random(SEED); no real credential appears anywhere.

Kinds, secret: aws_secret_access_key, github_pat_classic, github_pat_fine_grained,
gitlab_pat, slack_bot_token, slack_webhook_url, stripe_live_secret, openai_project_key,
anthropic_api_key, okta_api_token, scim_bearer_token, azure_client_secret,
gcp_sa_private_key, rsa_private_key, openssh_private_key, pgp_private_key,
ec_private_key, ca_key_passphrase, break_glass_password, splunk_hec_token,
crowdstrike_client_secret, sentinelone_api_token, tenable_secret_key,
qualys_password, snyk_token, datadog_api_key, pagerduty_api_token, jwt_session,
session_cookie, npm_token, pypi_token, docker_hub_pat, vault_token,
terraform_cloud_token, sendgrid_key, twilio_auth_token, postgres_url_password,
mongodb_uri_password, redis_password, ldap_bind_password, cosign_password,
pfx_password, stripe_webhook_secret, shopify_token, telegram_bot_token,
age_secret_key, wireguard_private_key, totp_seed, recovery_codes,
sshpass_password, basic_auth_header, azure_storage_key, azure_sas_signature,
google_refresh_token, google_oauth_client_secret, digitalocean_token,
atlassian_api_token, elastic_api_key, sentry_auth_token, newrelic_user_key,
grafana_sa_token, kube_bearer_token, mysql_cli_password, jenkins_api_token,
vpn_psk, mailgun_key, doppler_token, postman_key, consul_acl_token,
linear_api_key, snmp_community.

Kinds, benign: sha256_ioc, md5_ioc, sha1_ioc, ssh_public_key, ssh_host_fingerprint,
cert_sha256_fingerprint, pgp_fingerprint, aws_docs_example_key, redacted_token,
vault_path_reference, env_var_reference, stripe_publishable_key, placeholder_key,
request_uuid, okta_client_id, azure_tenant_guid, public_cert_pem, public_key_pem,
csr_pem, git_commit_sha, image_digest, npm_integrity, revoked_last4, cve_and_plugin_ids,
yara_hex_string, defanged_ioc, ja3_fingerprint, ssdeep_hash, registry_run_key,
primary_key_sense, token_count_sense, password_policy_talk, base64_non_secret,
splunk_sid, crowdstrike_agent_id, sentinelone_agent_uuid, tenable_scan_uuid,
saml_entity_id, scim_endpoint_url, k8s_secret_ref, sealed_secret_ciphertext,
sops_ciphertext, age_public_key, wireguard_public_key, used_otp_code,
webhook_signature_header, cosign_public_key, cert_serial, kms_key_arn, gpg_key_id,
yubikey_serial, slack_ids, okta_user_id, github_app_ids, mongo_object_id,
sigma_rule_id, secret_regex_rule, break_glass_procedure, leaked_key_hash,
truncated_key_prefix, etag_value, trace_id, honeytoken_record, hibp_hash_prefix,
jwks_modulus, password_manager_item, key_rotation_schedule.
"""

# ruff: noqa: E501
import json
import random
import string
import sys

SEED = 5353

B62 = string.ascii_letters + string.digits
HEX = "0123456789abcdef"
B64 = string.ascii_letters + string.digits + "+/"
B64URL = string.ascii_letters + string.digits + "-_"
B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"


def corpus() -> list[dict]:
    r = random.Random(SEED)

    def s(alpha, n):
        return "".join(r.choice(alpha) for _ in range(n))

    def uuid():
        h = s(HEX, 32)
        return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"

    def pem(label, lines=6):
        body = "\n".join(s(B64, 64) for _ in range(lines)) + "\n" + s(B64, 40) + "=="
        return f"-----BEGIN {label}-----\n{body}\n-----END {label}-----"

    def pw():
        return (
            s(string.ascii_uppercase, 2)
            + s(string.ascii_lowercase, 5)
            + s(string.digits, 3)
            + r.choice("!#%&*@^")
            + s(B62, 5)
        )

    def jwt():
        return "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9." + s(B64URL, 70) + "." + s(B64URL, 43)

    def defang(ip):
        return ip.replace(".", "[.]")

    def ip():
        return f"{r.randint(23, 212)}.{r.randint(0, 255)}.{r.randint(0, 255)}.{r.randint(1, 254)}"

    S = "secret"
    N = "benign"
    specs = [
        # ---------------- secrets ----------------
        (
            S,
            "aws_secret_access_key",
            lambda: {"v": s(B62 + "/+", 40), "id": "AKIA" + s(B32[:26] + "234567", 16)},
            [
                "triage #4471: TRUE POSITIVE in infra/ci/deploy.env\nAWS_ACCESS_KEY_ID={id}\nAWS_SECRET_ACCESS_KEY={v}\nrotating now, IAM user ci-deployer",
                "leaked pair from the pastebin hit, still live when we checked:\n  aws_access_key_id = {id}\n  aws_secret_access_key = {v}",
                "post-mortem scratch: the contractor laptop had ~/.aws/credentials with {id} / {v} (prod-readonly, but readonly on s3 incl. the audit bucket)",
            ],
        ),
        (
            S,
            "github_pat_classic",
            lambda: {"v": "ghp_" + s(B62, 36)},
            [
                "gitleaks flagged .github/scripts/sync.sh line 12 — real one, repo scope: {v}",
                "Bob's PAT for the mirror job (remember to revoke after the migration): {v}",
                "git remote set-url origin https://x-access-token:{v}@github.com/acme/ir-playbooks.git",
            ],
        ),
        (
            S,
            "github_pat_fine_grained",
            lambda: {"v": "github_pat_" + s(B62, 22) + "_" + s(B62, 59)},
            [
                "fine-grained token for the SARIF uploader, security_events:write only\nGH_TOKEN={v}",
                "finding F-2291 confirmed live: {v} (owner: svc-secscan, expires in 80d)",
                "export GITHUB_TOKEN='{v}'  # for gh api calls in the triage notebook",
            ],
        ),
        (
            S,
            "gitlab_pat",
            lambda: {"v": "glpat-" + s(B62 + "-_", 20)},
            [
                "gitlab runner registration broke, used my PAT temporarily: {v}",
                'curl --header "PRIVATE-TOKEN: {v}" https://gitlab.corp.example/api/v4/projects',
                "Scanner hit (true positive): helm/values-prod.yaml → gitlabToken: {v}",
            ],
        ),
        (
            S,
            "slack_bot_token",
            lambda: {
                "v": f"xoxb-{r.randint(10**10, 10**11)}-{r.randint(10**12, 10**13)}-{s(B62, 24)}"
            },
            [
                "IR alert bot token (posts to #sec-incidents): {v}",
                "SLACK_BOT_TOKEN={v}\nSLACK_CHANNEL=C04SECALRT",
                "the soar playbook still has the old bot token inline, {v}, need to move it to the vault",
            ],
        ),
        (
            S,
            "slack_webhook_url",
            lambda: {
                "v": f"https://hooks.slack.com/services/T{s(B32[:26] + '0123456789', 8)}/B{s(B32[:26] + '0123456789', 10)}/{s(B62, 24)}"
            },
            [
                "webhook for EDR high-sev notifications: {v}",
                'in the falco config: webhookurl: "{v}"',
                "true positive from trufflehog run on the old wiki export — incoming webhook {v} still accepts posts",
            ],
        ),
        (
            S,
            "stripe_live_secret",
            lambda: {"v": "sk_live_" + s(B62, 99)},
            [
                "LEAK: billing-svc logs printed the Stripe key at startup: {v}",
                "stripe secret (live) used by the refund script: {v}",
                "Rotation ticket SEC-812: old key {v} to be rolled once finance confirms",
            ],
        ),
        (
            S,
            "openai_project_key",
            lambda: {"v": "sk-proj-" + s(B62 + "-_", 74) + "T3BlbkFJ" + s(B62 + "-_", 74)},
            [
                "phishing-classifier uses OPENAI_API_KEY={v}",
                'the notebook in the shared drive has openai.api_key = "{v}" hardcoded, confirmed active',
                "key for the alert-summary LLM job: {v}",
            ],
        ),
        (
            S,
            "anthropic_api_key",
            lambda: {"v": "sk-ant-api03-" + s(B62 + "-_", 93) + "AA"},
            [
                "ANTHROPIC_API_KEY={v}  (triage-assistant, team workspace)",
                "pasted in #sec-tools by mistake, still valid: {v}",
                "for the report-drafting agent use the key {v} until procurement sets up the org",
            ],
        ),
        (
            S,
            "okta_api_token",
            lambda: {"v": "00" + s(B62 + "-_", 40)},
            [
                "Okta admin API token (read-only admin, for the SCIM reconciliation script): {v}",
                "curl -H 'Authorization: SSWS {v}' https://acme.okta.com/api/v1/users?limit=200",
                "okta: org=acme.okta.com token={v} — created by jlee, used by the offboarding lambda",
            ],
        ),
        (
            S,
            "scim_bearer_token",
            lambda: {"v": s(B62, 48)},
            [
                "SCIM provisioning into the SIEM: Tenant URL https://siem.example.net/scim/v2, Secret Token {v}",
                "Azure AD enterprise app 'EDR Console' provisioning bearer: {v}",
                "regenerated the SCIM token after the incident, new one is {v}, update it in Entra",
            ],
        ),
        (
            S,
            "azure_client_secret",
            lambda: {"v": s(B62, 3) + "8Q~" + s(B62 + "_.~-", 34)},
            [
                "app reg sentinel-ingest client secret value: {v} (expires 2027-06)",
                "AZURE_CLIENT_ID=4f1c2a77-...\nAZURE_CLIENT_SECRET={v}",
                "new secret for the defender export app: {v} — copied before the portal hides it",
            ],
        ),
        (
            S,
            "gcp_sa_private_key",
            lambda: {"v": pem("PRIVATE KEY", 8)},
            [
                "chronicle-forwarder SA key json, the private_key field:\n{v}",
                "found in a public gist (true positive), key for scc-exporter@acme-sec.iam:\n{v}",
            ],
        ),
        (
            S,
            "rsa_private_key",
            lambda: {"v": pem("RSA PRIVATE KEY", 7)},
            [
                "intermediate CA key that was on the build box:\n{v}",
                "mTLS client key for the SIEM forwarder (siem-fwd-01):\n{v}",
            ],
        ),
        (
            S,
            "openssh_private_key",
            lambda: {
                "v": "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
                + s(B64, 70)
                + "\n"
                + s(B64, 70)
                + "\n"
                + s(B64, 40)
                + "\n-----END OPENSSH PRIVATE KEY-----"
            },
            [
                "jump host key for the forensics VLAN (no passphrase!):\n{v}",
                "IR responder deploy key, ed25519:\n{v}",
            ],
        ),
        (
            S,
            "pgp_private_key",
            lambda: {
                "v": "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQVYBG"
                + s(B64, 58)
                + "\n"
                + s(B64, 64)
                + "\n"
                + s(B64, 64)
                + "\n="
                + s(B64, 4)
                + "\n-----END PGP PRIVATE KEY BLOCK-----"
            },
            [
                "security@ mailbox decryption key (export from the old laptop):\n{v}",
                "release-signing PGP secret key, armored:\n{v}",
            ],
        ),
        (
            S,
            "ec_private_key",
            lambda: {
                "v": "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEI"
                + s(B64, 55)
                + "\n"
                + s(B64, 64)
                + "\n"
                + s(B64, 32)
                + "==\n-----END EC PRIVATE KEY-----"
            },
            [
                "SAML signing key for the IdP test→prod cutover:\n{v}",
                "notary EC key (p256) pulled from the leaked image layer:\n{v}",
            ],
        ),
        (
            S,
            "ca_key_passphrase",
            lambda: {"v": pw()},
            [
                "root CA offline key passphrase (ceremony 2026-11): {v}",
                "openssl ca -config int-ca.cnf -passin pass:{v} -in req.csr -out svc.crt",
                "step-ca intermediate password: {v} — two-person rule, but writing it here so we don't lose it",
            ],
        ),
        (
            S,
            "break_glass_password",
            lambda: {"v": pw()},
            [
                "break-glass account bg-admin@acme.onmicrosoft.com / {v} (excluded from CA policies)",
                "Emergency access: user 'breakglass01', password {v}. Use only if Okta is down.",
                "after the drill I reset the break glass pw to {v}, need to reseal the envelope",
            ],
        ),
        (
            S,
            "splunk_hec_token",
            lambda: {"v": uuid().upper()},
            [
                "Splunk HEC token for the EDR forwarder: {v}",
                'curl -k https://splunk-hec.acme.net:8088/services/collector -H "Authorization: Splunk {v}" -d \'{"event":"test"}\'',
                "hec: index=edr sourcetype=crowdstrike:json token={v}",
            ],
        ),
        (
            S,
            "crowdstrike_client_secret",
            lambda: {"v": s(B62, 40), "id": s(HEX, 32)},
            [
                "Falcon API client for the SOAR: client_id {id}, client_secret {v}",
                "FALCON_CLIENT_ID={id}\nFALCON_CLIENT_SECRET={v}\nFALCON_CLOUD=us-2",
                "rotated the falcon api secret → {v} (scope: hosts:write, rtr:write)",
            ],
        ),
        (
            S,
            "sentinelone_api_token",
            lambda: {
                "v": "eyJraWQiOiJ" + s(B64URL, 60) + "." + s(B64URL, 80) + "." + s(B64URL, 86)
            },
            [
                "S1 console API token (service user soar-s1): {v}",
                'curl -H "Authorization: ApiToken {v}" https://usea1-acme.sentinelone.net/web/api/v2.1/threats',
            ],
        ),
        (
            S,
            "tenable_secret_key",
            lambda: {"v": s(HEX, 64), "id": s(HEX, 64)},
            [
                "Tenable.io API keys for the reporting job: accessKey={id}; secretKey={v}",
                "X-ApiKeys: accessKey={id}; secretKey={v}",
                "TIO_SECRET_KEY={v}",
            ],
        ),
        (
            S,
            "qualys_password",
            lambda: {"v": pw()},
            [
                "Qualys API user acme_sx3 password {v} (platform US2)",
                "curl -u 'acme_sx3:{v}' -H 'X-Requested-With: curl' https://qualysapi.qg2.apps.qualys.com/api/2.0/fo/scan/",
            ],
        ),
        (
            S,
            "snyk_token",
            lambda: {"v": uuid()},
            [
                "SNYK_TOKEN={v}  # org service account, used in the CI gate",
                "snyk auth {v}",
                "snyk api token for the sbom exporter is {v}",
            ],
        ),
        (
            S,
            "datadog_api_key",
            lambda: {"v": s(HEX, 32), "app": s(HEX, 40)},
            [
                "DD_API_KEY={v}\nDD_APP_KEY={app}",
                "datadog api key for the cloud-siem pipeline: {v}",
                'agent install: DD_API_KEY={v} DD_SITE=datadoghq.eu bash -c "$(curl -L https://install.datadoghq.com/scripts/install_script_agent7.sh)"',
            ],
        ),
        (
            S,
            "pagerduty_api_token",
            lambda: {"v": "u+" + s(B62 + "-_", 18)},
            [
                "PagerDuty REST token for the escalation bot: {v}",
                "curl -H 'Authorization: Token token={v}' https://api.pagerduty.com/incidents",
            ],
        ),
        (
            S,
            "jwt_session",
            lambda: {"v": jwt()},
            [
                "captured the admin session JWT from the HAR the vendor sent (still valid 8h): {v}",
                "Authorization: Bearer {v}",
                "to reproduce the IDOR, use this token against /api/v2/tenants: {v}",
            ],
        ),
        (
            S,
            "session_cookie",
            lambda: {"v": s(B62, 43)},
            [
                "Cookie: sid={v}; Path=/; HttpOnly — admin session on the SIEM console, reuse for the export",
                "the EDR console session cookie from my browser: JSESSIONID={v}",
            ],
        ),
        (
            S,
            "npm_token",
            lambda: {"v": "npm_" + s(B62, 36)},
            [
                "//registry.npmjs.org/:_authToken={v}",
                "publish token for @acme/sec-sdk: {v}",
                "NPM_TOKEN leaked in build log 88213, value {v}, confirmed via npm whoami",
            ],
        ),
        (
            S,
            "pypi_token",
            lambda: {"v": "pypi-AgEIcHlwaS5vcmc" + s(B64URL, 120)},
            [
                "[pypi]\nusername = __token__\npassword = {v}",
                "twine upload -u __token__ -p {v} dist/*",
            ],
        ),
        (
            S,
            "docker_hub_pat",
            lambda: {"v": "dckr_pat_" + s(B62 + "-_", 27)},
            [
                "echo {v} | docker login -u acmesec --password-stdin",
                "docker hub PAT (read/write) for the scanner images: {v}",
            ],
        ),
        (
            S,
            "vault_token",
            lambda: {"v": "hvs." + s(B62, 24)},
            [
                "root token from the unseal ceremony (revoke after setup!): {v}",
                "VAULT_ADDR=https://vault.acme.net:8200\nVAULT_TOKEN={v}",
                "vault login {v}",
            ],
        ),
        (
            S,
            "terraform_cloud_token",
            lambda: {"v": s(B62, 14) + ".atlasv1." + s(B62, 67)},
            [
                'credentials "app.terraform.io" {\n  token = "{v}"\n}',
                "TFC team token for sec-baseline workspace: {v}",
            ],
        ),
        (
            S,
            "sendgrid_key",
            lambda: {"v": "SG." + s(B62 + "-_", 22) + "." + s(B62 + "-_", 43)},
            [
                "phish-sim mails via SendGrid, key {v}",
                "SENDGRID_API_KEY={v}",
            ],
        ),
        (
            S,
            "twilio_auth_token",
            lambda: {"v": s(HEX, 32), "sid": "AC" + s(HEX, 32)},
            [
                "Twilio for on-call SMS: account {sid}, auth token {v}",
                "TWILIO_ACCOUNT_SID={sid}\nTWILIO_AUTH_TOKEN={v}",
            ],
        ),
        (
            S,
            "postgres_url_password",
            lambda: {"v": s(B62, 20)},
            [
                "DATABASE_URL=postgres://soar_app:{v}@soar-db.internal:5432/soar",
                'psql "postgresql://ir_ro:{v}@10.20.4.11/casefiles?sslmode=require"',
                "the dsn in the jira attachment was postgres://admin:{v}@prod-auth-db:5432/auth — live",
            ],
        ),
        (
            S,
            "mongodb_uri_password",
            lambda: {"v": s(B62, 18)},
            [
                "MONGO_URI=mongodb+srv://threatintel:{v}@ti-cluster0.ab1cd.mongodb.net/iocs",
                "mongosh 'mongodb://root:{v}@10.8.0.12:27017/admin'",
            ],
        ),
        (
            S,
            "redis_password",
            lambda: {"v": s(B62, 32)},
            [
                "redis-cli -h cache.siem.internal -a {v} --no-auth-warning",
                "requirepass {v}",
            ],
        ),
        (
            S,
            "ldap_bind_password",
            lambda: {"v": pw()},
            [
                "LDAP bind for the SIEM user sync: cn=svc-siem,ou=svc,dc=acme,dc=local / {v}",
                "ldapsearch -x -D 'CN=svc-edr,OU=Service,DC=corp,DC=acme' -w '{v}' -H ldaps://dc01.corp.acme",
            ],
        ),
        (
            S,
            "cosign_password",
            lambda: {"v": pw()},
            [
                "COSIGN_PASSWORD={v} cosign sign --key cosign.key ghcr.io/acme/sec-agent:1.14.2",
                "cosign key password is {v}",
            ],
        ),
        (
            S,
            "pfx_password",
            lambda: {"v": pw()},
            [
                "signtool sign /f codesign-ev.pfx /p {v} /tr http://timestamp.digicert.com agent.exe",
                "code-signing pfx import password: {v}",
            ],
        ),
        (
            S,
            "stripe_webhook_secret",
            lambda: {"v": "whsec_" + s(B62, 32)},
            [
                "STRIPE_WEBHOOK_SECRET={v}",
                "endpoint signing secret for the fraud-alert webhook: {v}",
            ],
        ),
        (
            S,
            "shopify_token",
            lambda: {"v": "shpat_" + s(HEX, 32)},
            [
                "shopify admin token found in the storefront repo (true positive): {v}",
                "X-Shopify-Access-Token: {v}",
            ],
        ),
        (
            S,
            "telegram_bot_token",
            lambda: {"v": f"{r.randint(10**9, 7 * 10**9)}:AA{s(B62 + '-_', 33)}"},
            [
                "honeypot alert bot for telegram: {v}",
                "the malware C2 used a telegram bot; we also found OUR ops bot token in the same repo: {v}",
            ],
        ),
        (
            S,
            "age_secret_key",
            lambda: {"v": "AGE-SECRET-KEY-1" + s(B32[:26].upper() + "023456789", 58).upper()},
            [
                "# created: 2026-10-02\n# public key: age1q...\n{v}",
                "age identity for decrypting the evidence bundles: {v}",
            ],
        ),
        (
            S,
            "wireguard_private_key",
            lambda: {"v": s(B64, 42) + "8="},
            [
                "[Interface]\nPrivateKey = {v}\nAddress = 10.66.0.2/32",
                "wg key for the IR laptop tunnel (private): {v}",
            ],
        ),
        (
            S,
            "totp_seed",
            lambda: {"v": s(B32, 32)},
            [
                "otpauth://totp/Acme:bg-admin?secret={v}&issuer=Acme",
                "MFA seed for the shared SOC account, add to your authenticator: {v}",
            ],
        ),
        (
            S,
            "recovery_codes",
            lambda: {
                "v": " ".join(
                    s("abcdefghjkmnpqrstuvwxyz23456789", 5)
                    + "-"
                    + s("abcdefghjkmnpqrstuvwxyz23456789", 5)
                    for _ in range(4)
                )
            },
            [
                "GitHub org owner recovery codes (unused): {v}",
                "backup codes for the break-glass Google admin: {v}",
            ],
        ),
        (
            S,
            "sshpass_password",
            lambda: {"v": pw()},
            [
                "sshpass -p '{v}' ssh ir@10.40.2.9 'sudo tar czf /tmp/triage.tgz /var/log'",
                "ssh to the honeypot as root with password {v}",
            ],
        ),
        (
            S,
            "basic_auth_header",
            lambda: {"v": s(B64, 36) + "=="},
            [
                "Authorization: Basic {v}  (elastic superuser, from the proxy logs)",
                "the nessus scanner webhook uses basic auth header Basic {v}",
            ],
        ),
        (
            S,
            "azure_storage_key",
            lambda: {"v": s(B64, 86) + "=="},
            [
                "DefaultEndpointsProtocol=https;AccountName=acmeforensics;AccountKey={v};EndpointSuffix=core.windows.net",
                "storage account key1 for the evidence locker: {v}",
            ],
        ),
        (
            S,
            "azure_sas_signature",
            lambda: {"v": s(B64, 43).replace("/", "%2F").replace("+", "%2B") + "%3D"},
            [
                "upload link for the vendor (write+list, 30 days): https://acmeforensics.blob.core.windows.net/cases?sv=2022-11-02&ss=b&srt=co&sp=wl&se=2027-01-06T00:00:00Z&sig={v}",
                "SAS for the memory dumps container, sig={v}",
            ],
        ),
        (
            S,
            "google_refresh_token",
            lambda: {"v": "1//0" + s(B62 + "-_", 99)},
            [
                "gam refresh token for workspace audit log pulls: {v}",
                '"refresh_token": "{v}"',
            ],
        ),
        (
            S,
            "google_oauth_client_secret",
            lambda: {"v": "GOCSPX-" + s(B62 + "-_", 28)},
            [
                "oauth client for the alert triage app: client_secret={v}",
                '"client_secret":"{v}","redirect_uris":["http://localhost"]',
            ],
        ),
        (
            S,
            "digitalocean_token",
            lambda: {"v": "dop_v1_" + s(HEX, 64)},
            [
                "DO token for the sandbox detonation droplets: {v}",
                "doctl auth init -t {v}",
            ],
        ),
        (
            S,
            "atlassian_api_token",
            lambda: {"v": "ATATT3xFfGF0" + s(B62 + "-_", 180) + "=" + s(HEX.upper(), 8)},
            [
                "jira API token for the incident-ticket bot (svc-ir@acme.com): {v}",
                "JIRA_API_TOKEN={v}",
            ],
        ),
        (
            S,
            "elastic_api_key",
            lambda: {"v": s(B64, 54) + "=="},
            [
                "Authorization: ApiKey {v}",
                "elastic api key (encoded) for the detection-rules sync: {v}",
            ],
        ),
        (
            S,
            "sentry_auth_token",
            lambda: {"v": "sntryu_" + s(HEX, 64)},
            [
                "SENTRY_AUTH_TOKEN={v}",
                "sentry user token for pulling the leaked-event list: {v}",
            ],
        ),
        (
            S,
            "newrelic_user_key",
            lambda: {"v": "NRAK-" + s(B32[:26] + "0123456789", 27)},
            [
                "New Relic user key for NerdGraph queries: {v}",
                "API-Key: {v}",
            ],
        ),
        (
            S,
            "grafana_sa_token",
            lambda: {"v": "glsa_" + s(B62, 32) + "_" + s(HEX, 8)},
            [
                "grafana service account token (SOC dashboards, Editor): {v}",
                "GRAFANA_TOKEN={v}",
            ],
        ),
        (
            S,
            "kube_bearer_token",
            lambda: {
                "v": "eyJhbGciOiJSUzI1NiIsImtpZCI6I"
                + s(B64URL, 90)
                + "."
                + s(B64URL, 120)
                + "."
                + s(B64URL, 100)
            },
            [
                "kubectl --server https://10.0.0.1:6443 --token {v} get secrets -A",
                "users:\n- name: falco-admin\n  user:\n    token: {v}",
            ],
        ),
        (
            S,
            "mysql_cli_password",
            lambda: {"v": pw()},
            [
                "mysql -h wazuh-db -u wazuh -p'{v}' wazuh",
                "mysql root pw on the old ossec box: {v}",
            ],
        ),
        (
            S,
            "jenkins_api_token",
            lambda: {"v": "11" + s(HEX, 32)},
            [
                "jenkins api token for the secscan job trigger, user svc-sec: {v}",
                "curl -X POST -u svc-sec:{v} https://ci.acme.net/job/secret-scan/build",
            ],
        ),
        (
            S,
            "vpn_psk",
            lambda: {"v": s(B62, 28)},
            [
                "IPsec tunnel to the MSSP: peer 203.0.113.7, IKEv2, PSK {v}",
                "pre-shared-key {v}",
            ],
        ),
        (
            S,
            "mailgun_key",
            lambda: {"v": "key-" + s(HEX, 32)},
            [
                "mailgun api key (alerts@mg.acme.com): {v}",
                "MAILGUN_API_KEY={v}",
            ],
        ),
        (
            S,
            "doppler_token",
            lambda: {"v": "dp.st.prd." + s(B62, 43)},
            [
                "DOPPLER_TOKEN={v}",
                "doppler service token for soar-prd: {v}",
            ],
        ),
        (
            S,
            "postman_key",
            lambda: {"v": "PMAK-" + s(HEX, 24) + "-" + s(HEX, 34)},
            [
                "the shared postman workspace had a personal API key exposed: {v} — confirmed live, owner notified",
                "postman api key: {v}",
            ],
        ),
        (
            S,
            "consul_acl_token",
            lambda: {"v": uuid()},
            [
                "CONSUL_HTTP_TOKEN={v}  # bootstrap/management token",
                "consul acl bootstrap output → SecretID: {v}",
            ],
        ),
        (
            S,
            "linear_api_key",
            lambda: {"v": "lin_api_" + s(B62, 40)},
            [
                "linear key for the vuln-ticket sync: {v}",
                "LINEAR_API_KEY={v}",
            ],
        ),
        (
            S,
            "snmp_community",
            lambda: {"v": s(B62, 14)},
            [
                "snmp-server community {v} RW",
                "switches still use SNMPv2c with community string {v} (read-write)",
            ],
        ),
        # ---------------- benign ----------------
        (
            N,
            "sha256_ioc",
            lambda: {"v": s(HEX, 64)},
            [
                "IOC: dropper sha256 {v} (first seen on WS-0412)",
                "hash list for the block rule:\n- {v}  loader.dll",
                "VT shows 41/72 for {v}, family = Lumma",
            ],
        ),
        (
            N,
            "md5_ioc",
            lambda: {"v": s(HEX, 32)},
            [
                "md5 of the phishing attachment: {v}",
                "EDR custom IOC added, type=md5 value={v} action=prevent",
                "the sample (md5 {v}) beacons every 60s",
            ],
        ),
        (
            N,
            "sha1_ioc",
            lambda: {"v": s(HEX, 40)},
            [
                "sha1 {v} — signed by a revoked cert, quarantine",
                "Defender alert references file sha1 {v}",
            ],
        ),
        (
            N,
            "ssh_public_key",
            lambda: {"v": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + s(B64, 43)},
            [
                "add to authorized_keys on the jump host: {v} ir-laptop-07",
                "responder pubkey for the forensics VLAN: {v}",
                "the attacker added this key to root's authorized_keys: {v} x@kali",
            ],
        ),
        (
            N,
            "ssh_host_fingerprint",
            lambda: {"v": "SHA256:" + s(B64, 43)},
            [
                "bastion host key fingerprint (verify on first connect): ED25519 {v}",
                "known_hosts mismatch on fw-mgmt; expected {v}",
            ],
        ),
        (
            N,
            "cert_sha256_fingerprint",
            lambda: {"v": ":".join(s("0123456789ABCDEF", 2) for _ in range(32))},
            [
                "pinned SIEM ingest cert, SHA-256 fingerprint {v}",
                "intermediate CA fingerprint (sha256): {v}",
                "malicious C2 TLS cert fp {v} — added to the JA3/cert blocklist",
            ],
        ),
        (
            N,
            "pgp_fingerprint",
            lambda: {"v": " ".join(s("0123456789ABCDEF", 4) for _ in range(10))},
            [
                "security@ PGP key fingerprint: {v}",
                "release-signing key fingerprint is {v}, verify before trusting tarballs",
            ],
        ),
        (
            N,
            "aws_docs_example_key",
            lambda: {"v": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"},
            [
                "false positive: docs/aws-setup.md uses the AWS docs sample pair AKIAIOSFODNN7EXAMPLE / {v} — suppress",
                "scanner finding #5120 is the example from the AWS CLI guide ({v}), marking as FP",
            ],
        ),
        (
            N,
            "redacted_token",
            lambda: {"v": r.choice(["ghp_", "xoxb-", "sk_live_", "glpat-"]) + "*" * 20 + s(B62, 4)},
            [
                "finding F-3301 value as shown in the scanner UI: {v} (redacted)",
                "leaked token (redacted): {v} — revoked at 14:02 UTC",
                "the alert only shows {v}; full value is in the restricted case file",
            ],
        ),
        (
            N,
            "vault_path_reference",
            lambda: {
                "v": "secret/data/"
                + r.choice(["soar", "edr", "siem", "scim"])
                + "/"
                + r.choice(["api", "client", "bind"])
                + "-"
                + s(string.ascii_lowercase, 4)
            },
            [
                "falcon creds now live at vault kv {v}; the script reads them at runtime",
                "moved the break-glass password to {v} (policy: bg-readers, 2 approvers)",
                "vault kv get -field=token {v}",
            ],
        ),
        (
            N,
            "env_var_reference",
            lambda: {
                "v": "${"
                + r.choice(
                    [
                        "TENABLE_SECRET_KEY",
                        "OKTA_API_TOKEN",
                        "FALCON_CLIENT_SECRET",
                        "SPLUNK_HEC_TOKEN",
                    ]
                )
                + "}"
            },
            [
                "in the compose file: token: {v} — injected from the CI secret store",
                "fixed the leak: replaced the literal with {v}",
                'curl -H "Authorization: Bearer {v}" ... (don\'t inline it)',
            ],
        ),
        (
            N,
            "stripe_publishable_key",
            lambda: {"v": "pk_live_" + s(B62, 99)},
            [
                "scanner flagged {v} in checkout.js — it's the publishable key, FP",
                "publishable key shipped to the browser, fine to be public: {v}",
            ],
        ),
        (
            N,
            "placeholder_key",
            lambda: {
                "v": r.choice(
                    [
                        "<YOUR_API_KEY>",
                        "sk_live_XXXXXXXXXXXXXXXXXXXXXXXX",
                        "REPLACE_ME_WITH_TOKEN",
                        "xoxb-your-bot-token-here",
                        "ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
                        "AKIAXXXXXXXXXXXXXXXX",
                    ]
                )
            },
            [
                "README template: export API_KEY={v}",
                "FP: value {v} is a literal placeholder in the sample config",
                "runbook step 3: paste the new token where it says {v}",
                'example in the onboarding doc: token = "{v}"',
            ],
        ),
        (
            N,
            "request_uuid",
            lambda: {"v": uuid()},
            [
                "Okta support case, request id {v}",
                "the SIEM correlation id for the incident is {v}",
                "x-request-id: {v} (the failed SCIM push)",
            ],
        ),
        (
            N,
            "okta_client_id",
            lambda: {"v": "0oa" + s(B62, 17)},
            [
                "OIDC app for the SOC portal: client_id {v} (secret is in vault)",
                "SAML app id {v}, assigned to group SOC-Analysts",
            ],
        ),
        (
            N,
            "azure_tenant_guid",
            lambda: {"v": uuid()},
            [
                "tenant id {v}, subscription for the sentinel workspace",
                "AZURE_TENANT_ID={v}",
                "app registration (client) id {v} — the secret itself was rotated, see SEC-902",
            ],
        ),
        (
            N,
            "public_cert_pem",
            lambda: {"v": pem("CERTIFICATE", 6)},
            [
                "IdP signing cert to upload in the SP metadata:\n{v}",
                "root CA cert to add to the trust store on the forwarders:\n{v}",
            ],
        ),
        (
            N,
            "public_key_pem",
            lambda: {"v": pem("PUBLIC KEY", 4)},
            [
                "JWT verification public key for the SOC portal:\n{v}",
                "cosign.pub (public, fine to commit):\n{v}",
            ],
        ),
        (
            N,
            "csr_pem",
            lambda: {"v": pem("CERTIFICATE REQUEST", 5)},
            [
                "CSR for siem.acme.net, send to the CA team:\n{v}",
            ],
        ),
        (
            N,
            "git_commit_sha",
            lambda: {"v": s(HEX, 40)},
            [
                "the leak was introduced in commit {v} and removed two commits later (history rewrite pending)",
                "gitleaks finding points at commit {v}, file ci/deploy.env",
            ],
        ),
        (
            N,
            "image_digest",
            lambda: {"v": "sha256:" + s(HEX, 64)},
            [
                "pin the scanner image: ghcr.io/acme/trivy-wrapper@{v}",
                "cosign verified digest {v} against cosign.pub",
            ],
        ),
        (
            N,
            "npm_integrity",
            lambda: {"v": "sha512-" + s(B64, 86) + "=="},
            [
                "lockfile integrity for the compromised package version: {v}",
                '"integrity": "{v}"',
            ],
        ),
        (
            N,
            "revoked_last4",
            lambda: {"v": s(B62, 4)},
            [
                "post-mortem: AWS key ending in {v} was revoked at 09:14, CloudTrail shows no use after",
                "the leaked Slack token (…{v}) has been revoked and the app reinstalled",
            ],
        ),
        (
            N,
            "cve_and_plugin_ids",
            lambda: {"v": f"CVE-2026-{r.randint(10000, 49999)}"},
            [
                "Tenable plugin 19{n} maps to {v}; patch window ends Friday".replace(
                    "{n}", str(r.randint(1000, 9999))
                ),
                "Qualys QID flagged {v} on 14 hosts, all in the DMZ",
            ],
        ),
        (
            N,
            "yara_hex_string",
            lambda: {"v": "{ " + " ".join(s("0123456789ABCDEF", 2) for _ in range(16)) + " }"},
            [
                "yara: $s1 = {v} // xor decoder stub",
                "rule Loader_Stub { strings: $a = {v} condition: $a }",
            ],
        ),
        (
            N,
            "defanged_ioc",
            lambda: {"v": "hxxps://" + s(string.ascii_lowercase, 9) + "[.]top/" + s(B62, 12)},
            [
                "phish landing page: {v} (defanged)",
                "C2 URLs from the sandbox: {v}, {ip}".replace("{ip}", defang(ip())),
            ],
        ),
        (
            N,
            "ja3_fingerprint",
            lambda: {"v": s(HEX, 32)},
            [
                "JA3 {v} matches Cobalt Strike default profile",
                "ja3s fingerprint of the C2 server: {v}",
            ],
        ),
        (
            N,
            "ssdeep_hash",
            lambda: {"v": f"{r.choice([96, 192, 384, 768])}:{s(B64, 40)}:{s(B64, 20)}"},
            [
                "ssdeep for the variant cluster: {v}",
            ],
        ),
        (
            N,
            "registry_run_key",
            lambda: {
                "v": "HKCU\\Software\\Microsoft\\Windows\\CurrentVersion\\Run\\"
                + s(string.ascii_letters, 8)
            },
            [
                "persistence via registry key {v} pointing at %APPDATA%\\upd.exe",
                "EDR saw a write to {v}; value data is a base64 powershell blob",
            ],
        ),
        (
            N,
            "primary_key_sense",
            lambda: {"v": "case_id"},
            [
                "in the casefiles db, the primary key is {v} and the foreign key to alerts is alert_ref",
                "the SIEM lookup table is keyed on {v}; duplicate keys break the join",
            ],
        ),
        (
            N,
            "token_count_sense",
            lambda: {"v": "8192 tokens"},
            [
                "the alert-summary prompt overflows at {v}; truncate raw logs first",
                "LLM triage: context budget {v}, the tokenizer splits hashes into many tokens",
            ],
        ),
        (
            N,
            "password_policy_talk",
            lambda: {"v": "minLength 14"},
            [
                "new password policy for break-glass accounts: {v}, no expiry, stored sealed, rotated after every use",
                "auditor asked whether service account passwords meet {v} — yes, all generated 32 chars",
            ],
        ),
        (
            N,
            "base64_non_secret",
            lambda: {"v": "eyJldmVudCI6InRlc3QiLCJzZXZlcml0eSI6Imxvdy" + "J9"},
            [
                "FP: the scanner flagged {v} but it decodes to a test event json",
                "the powershell -enc payload was {v}… no, that's just our harmless test event",
            ],
        ),
        (
            N,
            "splunk_sid",
            lambda: {
                "v": f"scheduler__admin__search__RMD5{s(HEX, 16)}_at_{r.randint(1700000000, 1790000000)}_{r.randint(100, 9999)}"
            },
            [
                "the correlation search job sid: {v}",
                "re-ran the notable search, sid {v}, results expire in 24h",
            ],
        ),
        (
            N,
            "crowdstrike_agent_id",
            lambda: {"v": s(HEX, 32)},
            [
                "Falcon AID for the infected host FIN-LT-221: {v}",
                "contain host aid={v} via RTR, then pull the triage package",
                "detection ldt:{v}:4305832 — critical, credential dumping",
            ],
        ),
        (
            N,
            "sentinelone_agent_uuid",
            lambda: {"v": s(HEX, 32)},
            [
                "S1 agent uuid {v} still reporting after reimage, duplicate record",
            ],
        ),
        (
            N,
            "tenable_scan_uuid",
            lambda: {"v": "template-" + uuid()},
            [
                "weekly DMZ scan uses policy {v}",
                "Tenable scan uuid {v}; the export is in the reporting bucket",
            ],
        ),
        (
            N,
            "saml_entity_id",
            lambda: {"v": "https://sts.windows.net/" + uuid() + "/"},
            [
                "IdP entityID {v}; ACS URL https://edr.acme.net/saml/acs",
                "SAML issuer mismatch: got {v}",
            ],
        ),
        (
            N,
            "scim_endpoint_url",
            lambda: {"v": "https://api.siem.example.net/scim/v2/" + s(HEX, 12)},
            [
                "SCIM base URL for provisioning: {v} (token goes in Entra, not here)",
            ],
        ),
        (
            N,
            "k8s_secret_ref",
            lambda: {"v": "falcon-api-creds"},
            [
                "env:\n- name: FALCON_CLIENT_SECRET\n  valueFrom:\n    secretKeyRef:\n      name: {v}\n      key: client-secret",
                "kubectl create secret generic {v} --from-env-file=/dev/stdin  # paste values interactively, never commit",
            ],
        ),
        (
            N,
            "sealed_secret_ciphertext",
            lambda: {"v": "AgB" + s(B64, 140) + "=="},
            [
                "sealed secret for the scanner token (safe to commit, only the controller can decrypt):\nencryptedData:\n  token: {v}",
            ],
        ),
        (
            N,
            "sops_ciphertext",
            lambda: {
                "v": f"ENC[AES256_GCM,data:{s(B64, 40)}=,iv:{s(B64, 43)}=,tag:{s(B64, 22)}==,type:str]"
            },
            [
                "okta_token: {v}",
                "sops-encrypted value in secrets.enc.yaml, fine in git: {v}",
            ],
        ),
        (
            N,
            "age_public_key",
            lambda: {"v": "age1" + s("qpzry9x8gf2tvdw0s3jn54khce6mua7l", 58)},
            [
                "encrypt evidence bundles to the IR recipient {v}",
                "sops .sops.yaml: age: {v}",
            ],
        ),
        (
            N,
            "wireguard_public_key",
            lambda: {"v": s(B64, 42) + "c="},
            [
                "[Peer]\nPublicKey = {v}\nAllowedIPs = 10.66.0.0/24\nEndpoint = vpn.acme.net:51820",
                "send the server your public key only: {v}",
            ],
        ),
        (
            N,
            "used_otp_code",
            lambda: {"v": str(r.randint(100000, 999999))},
            [
                "the attacker replayed OTP {v} 40s after the user entered it (MFA fatigue case), code already consumed",
                "sms code {v} in the phishing kit logs — one-time, expired, used only for the timeline",
            ],
        ),
        (
            N,
            "webhook_signature_header",
            lambda: {"v": "sha256=" + s(HEX, 64)},
            [
                "X-Hub-Signature-256: {v} — computed signature didn't match, that's why the receiver 401'd",
                "Stripe-Signature verification failed; received {v}",
            ],
        ),
        (
            N,
            "cosign_public_key",
            lambda: {
                "v": "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE"
                + s(B64, 28)
                + "\n"
                + s(B64, 56)
                + "==\n-----END PUBLIC KEY-----"
            },
            [
                "verify agent images with:\n{v}",
            ],
        ),
        (
            N,
            "cert_serial",
            lambda: {"v": ":".join(s(HEX, 2) for _ in range(16))},
            [
                "revoked cert serial {v} added to the CRL at 11:20",
                "the leaked code-signing cert had serial {v}; revocation published, OCSP returns revoked",
            ],
        ),
        (
            N,
            "kms_key_arn",
            lambda: {"v": f"arn:aws:kms:eu-west-1:{r.randint(10**11, 10**12 - 1)}:key/{uuid()}"},
            [
                "CloudTrail bucket encrypted with {v}",
                "key policy on {v} only lets the ir-role decrypt",
            ],
        ),
        (
            N,
            "gpg_key_id",
            lambda: {"v": "0x" + s("0123456789ABCDEF", 16)},
            [
                "sign the advisory with key {v}",
                "gpg --recv-keys {v}",
            ],
        ),
        (
            N,
            "yubikey_serial",
            lambda: {"v": str(r.randint(10000000, 29999999))},
            [
                "break-glass YubiKey serial {v}, stored in safe B, PIV slot 9a",
            ],
        ),
        (
            N,
            "slack_ids",
            lambda: {"v": "U0" + s("ABCDEFGHJKLMNPQRSTUVWXYZ0123456789", 9)},
            [
                "the leaked token belonged to user {v}, app A06ABC12345",
                "notify {v} in #sec-incidents when the rotation finishes",
            ],
        ),
        (
            N,
            "okta_user_id",
            lambda: {"v": "00u" + s(B62, 17)},
            [
                "Okta user {v} had 37 failed pushes before the accept — MFA fatigue",
                "suspend {v} and clear sessions: POST /api/v1/users/{v}/lifecycle/suspend",
            ],
        ),
        (
            N,
            "github_app_ids",
            lambda: {"v": str(r.randint(100000, 999999))},
            [
                "GitHub App id {v}, installation 48219933 — the private key .pem is in vault, not here",
            ],
        ),
        (
            N,
            "mongo_object_id",
            lambda: {"v": s(HEX, 24)},
            [
                "the TI platform record for the actor is {v}",
                "case note _id {v} duplicated after the import",
            ],
        ),
        (
            N,
            "sigma_rule_id",
            lambda: {"v": uuid()},
            [
                "sigma rule id: {v}\ntitle: Suspicious LSASS access",
                "rule {v} fires too often on backup agents; add an exclusion",
            ],
        ),
        (
            N,
            "secret_regex_rule",
            lambda: {"v": r"xox[baprs]-[0-9A-Za-z-]{10,48}"},
            [
                "custom scanner rule for slack tokens: {v}",
                "our pre-commit pattern {v} missed the new xapp- tokens",
            ],
        ),
        (
            N,
            "break_glass_procedure",
            lambda: {"v": "envelope BG-07"},
            [
                "break-glass password is in sealed {v} in safe B; two people to open, log in the BG register",
                "after the drill: {v} opened, password rotated by CISO, new envelope sealed, nothing written down",
            ],
        ),
        (
            N,
            "leaked_key_hash",
            lambda: {"v": s(HEX, 64)},
            [
                "we track leaked tokens by sha256 only; the one from the pastebin hashes to {v}",
                "dedup: finding hash {v} seen in 3 repos (all the same revoked key)",
            ],
        ),
        (
            N,
            "truncated_key_prefix",
            lambda: {"v": "AKIA" + s(B32[:26], 4) + "…"},
            [
                "CloudTrail: calls from key {v} (first 8 chars only, per our logging policy)",
                "the access key id starting {v} belongs to ci-deployer; secret already deactivated",
            ],
        ),
        (
            N,
            "etag_value",
            lambda: {"v": '"' + s(HEX, 32) + '"'},
            [
                "S3 ETag of the exfil archive: {v}",
            ],
        ),
        (
            N,
            "trace_id",
            lambda: {"v": s(HEX, 32)},
            [
                "traceparent 00-{v}-" + "b7ad6b7169203331-01 for the failed token exchange",
                "the SSO login trace id was {v}",
            ],
        ),
        (
            N,
            "honeytoken_record",
            lambda: {"v": "canary-" + s(string.ascii_lowercase + string.digits, 10)},
            [
                "honeytoken {v} (fake AWS key placed in the wiki) fired from 185.x; the key itself grants nothing",
                "deployed honeytoken {v} in the old jenkins credentials.xml; alert routes to #sec-canary",
            ],
        ),
        (
            N,
            "hibp_hash_prefix",
            lambda: {"v": s("0123456789ABCDEF", 5)},
            [
                "k-anonymity check: sent prefix {v} to the pwned passwords range API, no match",
            ],
        ),
        (
            N,
            "jwks_modulus",
            lambda: {"v": s(B64URL, 120)},
            [
                "JWKS from the IdP (public): kty RSA, e AQAB, n {v}",
            ],
        ),
        (
            N,
            "password_manager_item",
            lambda: {"v": "op://SecOps/Tenable API/secretKey"},
            [
                "tenable secret is referenced as {v} in the 1Password CLI call",
                'op read "{v}"',
            ],
        ),
        (
            N,
            "key_rotation_schedule",
            lambda: {"v": "90 days"},
            [
                "rotation runbook: signing keys every year, API keys every {v}, SCIM tokens on staff change",
                "alert if any Falcon API client is older than {v}",
            ],
        ),
    ]

    rows: list[dict] = []
    for label, kind, gen, templates in specs:
        for t in templates:
            d = gen()
            text = t
            for k, val in d.items():
                text = text.replace("{" + k + "}", val)
            rows.append({"label": label, "kind": kind, "text": text, "value": d["v"]})

    extra = _extra(r, s, pw, uuid, jwt, ip)
    rows.extend(extra)
    for row in rows:
        assert row["value"] in row["text"], row
    return rows


def _extra(r, s, pw, uuid, jwt, ip):
    """Hand-shaped rows that don't fit the template table."""
    out = []

    def add(label, kind, text, value):
        out.append({"label": label, "kind": kind, "text": text, "value": value})

    def b(kind, text, value):
        add("benign", kind, text, value)

    for _ in range(2):
        h = s(HEX, 64)
        b(
            "sha256_ioc",
            f"Sigma hit on powershell dropping a file, Sysmon EID 11, Hashes=SHA256={h.upper()}",
            h.upper(),
        )
    h = s(HEX, 32)
    b("md5_ioc", f"MISP attribute: md5|{h} (to_ids=true, tlp:amber)", h)
    h = s(HEX, 32)
    b("md5_ioc", f"imphash {h} shared across the three loaders", h)
    h = s(HEX, 40)
    b("sha1_ioc", f"thumbprint of the stolen-but-revoked signing cert: {h.upper()}", h.upper())
    k = "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABgQ" + s(B64, 120)
    b(
        "ssh_public_key",
        f"public key of the deploy key that leaked (private half revoked, removed from GitHub): {k}",
        k,
    )
    f = "SHA256:" + s(B64, 43)
    b("ssh_host_fingerprint", f"ssh-keygen -lf shows 256 {f} root@honeypot-3 (ED25519)", f)
    f = "MD5:" + ":".join(s(HEX, 2) for _ in range(16))
    b(
        "ssh_host_fingerprint",
        f"legacy fingerprint of the key in the attacker's authorized_keys: {f}",
        f,
    )
    k = "pk_test_" + s(B62, 99)
    b(
        "stripe_publishable_key",
        f"FP triage: {k} is a test-mode publishable key in the storybook fixtures",
        k,
    )
    for v in ("sk_live_REDACTED", "hvs.****************", "xoxb-***-***-***"):
        b("redacted_token", f"scanner export row: rule=generic-token match={v} status=resolved", v)
    for v in ("<paste-okta-token>", "your-scim-token-goes-here", "dummy-secret-for-tests"):
        b(
            "placeholder_key",
            f"test fixture uses {v} as the SCIM bearer; the mock server accepts anything",
            v,
        )
    for _ in range(3):
        u = uuid()
        b("request_uuid", f"EDR incident id {u} — merged into the parent case", u)
    g = uuid()
    b(
        "azure_tenant_guid",
        f"Entra object id of the break-glass account: {g} (exclude from CA policy 'Require MFA')",
        g,
    )
    g = uuid()
    b(
        "azure_tenant_guid",
        f"the Sentinel workspace id is {g}; the shared key was rotated and lives in Key Vault kv-soc-prd",
        g,
    )
    c = s(HEX, 40)
    b(
        "git_commit_sha",
        f"git filter-repo done; the leaked file is gone as of {c[:12]} (revoked token anyway)",
        c[:12],
    )
    c = s(HEX, 40)
    b("git_commit_sha", f"trufflehog --since-commit {c} --only-verified returned nothing", c)
    d = "sha256:" + s(HEX, 64)
    b("image_digest", f"the malicious layer in the typosquatted image: {d}", d)
    for last in (s(B62, 4), s(HEX, 6)):
        b(
            "revoked_last4",
            f"Rotation done: old Tenable secretKey ...{last} deleted, new one only in vault, scanners green",
            last,
        )
    b(
        "cve_and_plugin_ids",
        f"Nessus plugin {r.randint(150000, 210000)} (OpenSSH regreSSHion) on the bastions",
        "regreSSHion",
    )
    i = ip()
    b(
        "defanged_ioc",
        f"IOC list: {i.replace('.', '[.]')}, update-check[.]cloud, login-acme-sso[.]com",
        i.replace(".", "[.]"),
    )
    j = s(HEX, 32)
    b("ja3_fingerprint", f"JA4/JA3 pivot: ja3={j} seen only from the infected subnet", j)
    b(
        "primary_key_sense",
        "the API returns 409 because the idempotency key abc-123 was reused; unrelated to auth",
        "idempotency key abc-123",
    )
    b("primary_key_sense", "press the Fn key + F7 to toggle the HSM appliance display", "Fn key")
    b(
        "token_count_sense",
        "the lexer emits a STRING token for the quoted value; the parser error is at token 42",
        "token 42",
    )
    b(
        "token_count_sense",
        "in the detection rule grammar every keyword is a token, e.g. 'secret' and 'password' are reserved tokens",
        "reserved tokens",
    )
    b(
        "password_policy_talk",
        "postmortem lesson: the password was in a Slack DM for 3 days; we now block pasting credentials via DLP",
        "password",
    )
    b(
        "password_policy_talk",
        "Entra password protection banned list updated with 'Acme2026!' style patterns — not a real password, just the pattern",
        "Acme2026!",
    )
    e = "U2FtcGxlIHRleHQgZm9yIHRoZSBsb2dnaW5nIHRlc3Q="
    b(
        "base64_non_secret",
        f"FP: high-entropy string {e} is base64 of 'Sample text for the logging test'",
        e,
    )
    e = s(B64, 60)
    b("base64_non_secret", f"FP in tests/fixtures/icon.b64: {e}... it is a PNG thumbnail", e)
    a = s(HEX, 32)
    b("crowdstrike_agent_id", f'host_ids: ["{a}"] — lift containment after reimage', a)
    a = s(HEX, 32)
    b(
        "crowdstrike_agent_id",
        f"CID-less AID {a} appeared on a host we don't own — possible cloned image",
        a,
    )
    u = "https://acme.okta.com/app/acme_soc_1/" + "exk" + s(B62, 17) + "/sso/saml"
    b("saml_entity_id", f"IdP SSO URL: {u}", u)
    b(
        "k8s_secret_ref",
        "the helm chart mounts secret 'tenable-keys' at /etc/tenable; values.yaml only has existingSecret: tenable-keys",
        "existingSecret: tenable-keys",
    )
    b(
        "k8s_secret_ref",
        "ExternalSecret remoteRef key: soc/okta/api-token, refreshInterval 1h",
        "soc/okta/api-token",
    )
    c = "AgB" + s(B64, 100)
    b(
        "sealed_secret_ciphertext",
        f"kubeseal output for the SCIM token (encrypted to the cluster cert): {c}",
        c,
    )
    c = "vault:v1:" + s(B64, 64)
    b(
        "sops_ciphertext",
        f"Vault transit ciphertext stored in the DB column: {c} — decrypt only via transit/decrypt/casefiles",
        c,
    )
    k = "age1" + s("qpzry9x8gf2tvdw0s3jn54khce6mua7l", 58)
    b("age_public_key", f"public recipient for the evidence bundles (share freely): {k}", k)
    o = str(r.randint(100000, 999999))
    b(
        "used_otp_code",
        f"timeline 14:03:22 user approved push, 14:03:40 TOTP {o} submitted from the AiTM proxy (already used, expired)",
        o,
    )
    sig = "t=" + str(r.randint(1700000000, 1790000000)) + ",v1=" + s(HEX, 64)
    b("webhook_signature_header", f"Stripe-Signature: {sig}", sig)
    sn = s(HEX, 40)
    b("cert_serial", f"ACME cert for siem.acme.net, serial {sn}, expires 2027-02-01", sn)
    k = "projects/acme-sec/locations/global/keyRings/ir/cryptoKeys/evidence"
    b("kms_key_arn", f"evidence bucket CMEK: {k}", k)
    k = "https://kv-soc-prd.vault.azure.net/secrets/falcon-client-secret"
    b(
        "vault_path_reference",
        f"Key Vault reference in the logic app: @Microsoft.KeyVault(SecretUri={k})",
        k,
    )
    k = (
        "arn:aws:secretsmanager:us-east-1:"
        + str(r.randint(10**11, 10**12 - 1))
        + ":secret:prod/scim-token-"
        + s(B62, 6)
    )
    b("vault_path_reference", f"rotated via Secrets Manager, ARN {k}", k)
    b(
        "env_var_reference",
        "GitHub Actions: SNYK_TOKEN: ${{ secrets.SNYK_TOKEN }}",
        "${{ secrets.SNYK_TOKEN }}",
    )
    b(
        "env_var_reference",
        "systemd unit: Environment=DD_API_KEY=%d/dd_api_key (LoadCredential)",
        "%d/dd_api_key",
    )
    u = "C0" + s("ABCDEFGHJKLMNPQRSTUVWXYZ0123456789", 9)
    b("slack_ids", f"the webhook posted to channel {u}; webhook URL already regenerated", u)
    u = "00u" + s(B62, 17)
    b("okta_user_id", f"SCIM push failed for {u}: 409 conflict on userName", u)
    m = s(HEX, 24)
    b("mongo_object_id", f'ObjectId("{m}") — the ioc doc with the bad TLP tag', m)
    x = s(HEX, 64)
    b(
        "leaked_key_hash",
        f"HMAC-SHA256(pepper, token) = {x} stored for dedup; the token itself is never logged",
        x,
    )
    t = "ghp_" + s(B62, 4) + "…"
    b("truncated_key_prefix", f"audit log shows token prefix {t} used from a Tor exit; revoked", t)
    tr = s(HEX, 16)
    b("trace_id", f"span id {tr} of the slow SCIM call", tr)
    h = (
        "canarytokens.com/"
        + r.choice(["about", "static", "traffic"])
        + "/"
        + s(string.ascii_lowercase + string.digits, 25)
        + "/index.html"
    )
    b(
        "honeytoken_record",
        f"web-bug honeytoken URL planted in the fake 'passwords.docx': {h} (alerts only, no access)",
        h,
    )
    b(
        "jwks_modulus",
        f"kid {s(B62, 43)} in the IdP JWKS was rotated; old kid kept for 24h for verification",
        "kid",
    )
    b(
        "password_manager_item",
        "1Password item 'Break-glass / bg-admin' moved to the Emergency vault, owners: CISO + Head of IT",
        "Break-glass / bg-admin",
    )
    b(
        "key_rotation_schedule",
        "CA plan: root valid 20y offline, intermediates 5y, leaf 90d via ACME; next ceremony Q3",
        "90d",
    )
    b(
        "break_glass_procedure",
        "break-glass test passed: logged in with the sealed credential, MFA via YubiKey, then rotated; no credential written in this ticket",
        "sealed credential",
    )
    k = "ghp_" + s(B62, 36)
    add(
        "secret",
        "github_pat_classic",
        f"| finding | file | status |\n| GH-PAT | scripts/release.sh:44 | LIVE ({k}) |",
        k,
    )
    k = s(B62 + "/+", 40)
    add(
        "secret",
        "aws_secret_access_key",
        f"incident 2026-11-30: key pair leaked via a public AMI. secret part {k}; IAM user has been disabled but key NOT yet deleted",
        k,
    )
    p = pw()
    add(
        "secret",
        "break_glass_password",
        f"Notfallkonto: notfall-admin, Passwort: {p} (nur bei IdP-Ausfall)",
        p,
    )
    p = pw()
    add(
        "secret",
        "ldap_bind_password",
        f"bindDN: uid=svc-vault,ou=apps,dc=acme\nbindPassword: {p}",
        p,
    )
    t = (
        "xoxp-"
        + f"{r.randint(10**10, 10**11)}-{r.randint(10**10, 10**11)}-{r.randint(10**12, 10**13)}-"
        + s(HEX, 32)
    )
    add(
        "secret",
        "slack_bot_token",
        f"user token from the compromised admin's browser storage (still valid): {t}",
        t,
    )
    j = jwt()
    add(
        "secret",
        "jwt_session",
        f"SSO session replay: the stolen id_token/access_token pair — access_token={j}",
        j,
    )
    h = s(HEX, 64)
    add("benign", "sha256_ioc", f"{h}  /tmp/.x/kworkerd  (sha256sum output, hash of the miner)", h)
    h = s(HEX, 40)
    add(
        "benign",
        "leaked_key_hash",
        f"fingerprint (sha1) of the leaked deploy key's public half: {h} — the private key was revoked",
        h,
    )
    i = ip()
    add(
        "benign",
        "defanged_ioc",
        f"block outbound to {i.replace('.', '[.]')}:443 (C2), seen in Zeek conn.log",
        i.replace(".", "[.]"),
    )
    return out


def main() -> None:
    rows = corpus()
    data = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w", encoding="utf-8") as f:
            f.write(data)
    else:
        sys.stdout.write(data)


if __name__ == "__main__":
    main()

# ruff: noqa: E501
"""Blind secret-detector corpus 24: IT and integration engineers in regulated industries.

Brief: IT and integration engineers in regulated industries (hospitals, insurers, banks,
government agencies): HL7/FHIR interfaces, EHR and PACS integrations, SFTP drops to partners,
site-to-site VPNs, mainframe and AS/400 logins, SWIFT and payment gateways, LDAP service
accounts, e-signature and e-invoicing portals, compliance audit notes; plus hard look-alikes
(patient and claim ids, MRNs, NPI numbers, OIDs, certificate thumbprints, hashed identifiers,
masked values, references to the secrets vault).

Written blind on 2026-12-06: the author did not read the detector, its tests or any earlier corpus.

Run:  python benchmarks/data/blind_secrets/blind_secrets_24.py [out.jsonl]
(writes JSONL rows {"label", "kind", "text", "value"} to the path, or to stdout without one).
All random values come from random.Random(SEED); none is a real credential.

Kinds
-----
secret: fhir_client_secret, ehr_oauth_refresh_token, mirth_admin_password,
  interface_engine_db_url, sftp_partner_password, sftp_openssh_private_key, ipsec_psk,
  racf_password, as400_password, swift_alliance_password, stripe_live_secret_key,
  adyen_api_key, braintree_private_key, ldap_bind_password, docusign_rsa_private_key,
  einvoice_api_key, aws_secret_access_key, azure_client_secret, github_pat, slack_bot_token,
  bearer_jwt_session, pacs_admin_password, mssql_connection_password, oracle_wallet_password,
  vault_token, pfx_password, jks_storepass, rsa_private_key, ec_private_key, twilio_auth_token,
  sendgrid_api_key, okta_api_token, webhook_signing_secret, gcp_sa_private_key, totp_seed,
  break_glass_recovery_codes, break_glass_password, basic_auth_header, smtp_relay_password,
  npm_token, pypi_token, gitlab_pat, datadog_api_key, redis_password, snmp_rw_community,
  clinic_wifi_psk, jumphost_ssh_password, eprescribing_api_password, clearinghouse_api_secret,
  pgp_private_key, pgp_passphrase, ehr_session_cookie, openvpn_static_key,
  wireguard_private_key, radius_shared_secret, tacacs_key, azure_storage_account_key,
  azure_sas_signature, mongodb_uri_password, django_secret_key, phi_column_aes_key,
  vault_unseal_key, ansible_vault_password, kubeconfig_token, openai_api_key,
  anthropic_api_key, docker_registry_password

benign: mrn, fhir_patient_id, claim_id, npi_number, hl7_oid, cert_thumbprint_sha1,
  hashed_patient_identifier, masked_password, masked_card_number, vault_path_reference,
  azure_keyvault_reference, aws_secrets_manager_arn, env_var_reference, ssh_public_key,
  pgp_public_key_block, x509_certificate_pem, stripe_publishable_key, placeholder_secret,
  revoked_token_last4, redacted_value, iban, swift_bic, swift_uetr, git_commit_sha,
  image_digest, correlation_uuid, hl7_message_control_id, dicom_study_uid, accession_number,
  database_primary_key, card_vault_token, llm_token_count, password_policy, rotation_audit_note,
  ssh_key_fingerprint, pgp_fingerprint, jwks_public_modulus, x509_serial, saml_entity_id,
  smart_public_client_id, aws_docs_example_key, kms_key_arn, member_id, dea_number,
  aba_routing_number, lei_code, peppol_participant_id, vpn_ike_proposal, sftp_host_key,
  racf_userid_only, as400_job_number, base64_config_blob, trace_id, webhook_signature_value,
  oauth_state_nonce, test_card_number, fhir_etag, bad_password_training_example,
  trade_secret_wording, medicare_mbi, sha256_file_checksum, terraform_sensitive_var,
  k8s_secret_key_ref, csr_pem, keystore_alias_list, git_lfs_oid, public_ip_and_psk_length
"""

import json
import random
import string
import sys

SEED = 524024

UP = string.ascii_uppercase
LO = string.ascii_lowercase
DG = string.digits
AN = UP + LO + DG
HEX = "0123456789abcdef"
B64 = AN + "+/"
B64U = AN + "-_"
B32 = UP + "234567"


def corpus() -> list[dict]:
    rng = random.Random(SEED)

    def s(alpha: str, n: int) -> str:
        return "".join(rng.choice(alpha) for _ in range(n))

    def pw() -> str:
        words = ["Harbor", "Radiant", "Copper", "Maple", "Falcon", "Quartz", "Tundra", "Orchid"]
        return rng.choice(words) + s(DG, 2) + rng.choice("!#$%&*") + s(AN, 6)

    def pem(label: str, lines: int) -> str:
        body = "\n".join(s(B64, 64) for _ in range(lines))
        return f"-----BEGIN {label}-----\n{body}\n{s(B64, 24)}==\n-----END {label}-----"

    def b64pad(nbytes: int) -> str:
        n = (nbytes + 2) // 3 * 4
        pad = (3 - nbytes % 3) % 3
        return s(B64, n - pad) + "=" * pad

    def jwt() -> str:
        return "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9." + s(B64U, 120) + "." + s(B64U, 86)

    def luhn(prefix: str, length: int) -> str:
        digits = prefix + s(DG, length - len(prefix) - 1)
        total = 0
        for i, ch in enumerate(reversed(digits)):
            d = int(ch)
            if i % 2 == 0:
                d *= 2
                if d > 9:
                    d -= 9
            total += d
        return digits + str((10 - total % 10) % 10)

    rows: list[dict] = []

    def add(label: str, kind: str, gen, templates: list[str]) -> None:
        for t in templates:
            v = gen()
            text = t.replace("{v}", v)
            rows.append({"label": label, "kind": kind, "text": text, "value": v})

    S, B = "secret", "benign"

    # ------------------------------------------------------------------ secrets
    add(
        S,
        "fhir_client_secret",
        lambda: s(B64U, 43),
        [
            "SMART backend-services app for the payer FHIR API (prod):\nclient_id=claims-sync-svc\nclient_secret={v}",
            "Cerner FHIR R4 integration - confidential client. Secret is {v} , expires next March, don't lose it",
            'fhir:\n  base_url: https://fhir.stmarys-health.org/r4\n  client_secret: "{v}"',
        ],
    )
    add(
        S,
        "ehr_oauth_refresh_token",
        lambda: s(B64U, 64),
        [
            "Epic refresh token for the bed-management bot (valid 90d): {v}",
            "after consent flow on the test provider account I got refresh_token={v}; scheduler uses it to mint access tokens",
            "Note to self: athena refresh tok -> {v} (stored in .env.local on my laptop, move to vault)",
        ],
    )
    add(
        S,
        "mirth_admin_password",
        pw,
        [
            "Mirth Connect admin console https://mirth-prd01:8443 user admin / {v}",
            "NextGen Connect on the lab interface box: login 'admin', pw {v} (reset 11/02 after the audit)",
            "Engine admin for ADT feeds -> username: mirthadm password: {v}",
        ],
    )
    add(
        S,
        "interface_engine_db_url",
        lambda: f"postgresql://mirthdb:{pw()}@10.40.2.17:5432/mirthdb",
        [
            "Mirth backing DB url: {v}",
            "database.url changed during migration; the full DSN is {v}",
            "Rhapsody archive DB (prod) - {v} - read-only replica is the same creds",
        ],
    )
    add(
        S,
        "sftp_partner_password",
        pw,
        [
            "SFTP drop to BlueCross 837 batches: host sftp.partner-edi.com:22 user stmarys_837 pass {v}",
            "Quest lab results pickup: sftp login ordersout / {v}, files land in /outbound/ORU nightly",
            "partner MFT (Axway) creds for the eligibility 270/271 exchange:\n  user: hosp_elig\n  password: {v}",
        ],
    )
    add(
        S,
        "sftp_openssh_private_key",
        lambda: pem("OPENSSH PRIVATE KEY", 6),
        [
            "Key we use to push remittance files to the bank's SFTP:\n{v}",
            "id_ed25519 for the claims drop (service acct edi_push):\n{v}\nfingerprint registered with partner on 3 Nov",
            "Pasting the key here so the agent can retry the upload:\n{v}",
        ],
    )
    add(
        S,
        "ipsec_psk",
        lambda: s(AN, 32),
        [
            "Site-to-site VPN with Labcorp: peer 203.0.113.45, IKEv2, AES256/SHA256, PSK {v}",
            "crypto isakmp key {v} address 198.51.100.20",
            "Tunnel to the county HIE - pre-shared key: {v} (phase 2 lifetime 3600s)",
        ],
    )
    add(
        S,
        "racf_password",
        lambda: s(UP + DG + "#@$", 8),
        [
            "TSO logon for batch support on the z/OS LPAR PROD1: userid CLMBAT1 password {v}",
            "RACF pw for the claims CICS region service id is {v} - expires every 30 days, remember to re-key",
            "Mainframe (3270 via Host On-Demand) user OPSMON1 / {v}",
        ],
    )
    add(
        S,
        "as400_password",
        lambda: s(UP + DG, 10),
        [
            "AS/400 PRODSYS signon: user QINTEGR, password {v}",
            "iSeries ODBC for the premium billing extract -> UID=BILLEXT;PWD={v};",
            "green screen login for the policy admin system is POLADM / {v}, don't lock it (3 tries)",
        ],
    )
    add(
        S,
        "swift_alliance_password",
        pw,
        [
            "Alliance Access operator login for the payment release desk: op PAYREL2 password {v}",
            "SWIFT Alliance Lite2 - security officer left half: {v}",
            "SAA test/prod GUI creds for reconciliation bot -> {v}",
        ],
    )
    add(
        S,
        "stripe_live_secret_key",
        lambda: "sk_live_" + s(AN, 99),
        [
            "Patient portal copay payments use Stripe. Live key: {v}",
            "STRIPE_SECRET_KEY={v}",
            "billing-svc was failing because the old key got rolled; new one is {v}",
        ],
    )
    add(
        S,
        "adyen_api_key",
        lambda: "AQE" + s(AN, 29) + "+" + s(B64, 60) + "=",
        [
            "Adyen ws user key (live, merchant account InsurerCOM): {v}",
            "x-API-key header for the checkout API: {v}",
            "premium collection via Adyen, api key rotated today -> {v}",
        ],
    )
    add(
        S,
        "braintree_private_key",
        lambda: s(HEX, 32),
        [
            "Braintree production: merchant_id 7yq3bx2m, public_key ncx8p2v4, private_key {v}",
            "BT_PRIVATE_KEY={v}  # production",
            'gateway = braintree.BraintreeGateway(environment=Production, private_key="{v}")',
        ],
    )
    add(
        S,
        "ldap_bind_password",
        pw,
        [
            "LDAP service account for Epic SSO sync: CN=svc_epicldap,OU=Service,DC=hosp,DC=local bind pw {v}",
            "ldap:\n  bind_dn: uid=fhirsync,ou=apps,dc=insurer,dc=com\n  bind_password: {v}",
            "AD bind creds for the PACS worklist lookup: svc-pacs-ldap / {v}",
        ],
    )
    add(
        S,
        "docusign_rsa_private_key",
        lambda: pem("RSA PRIVATE KEY", 8),
        [
            "DocuSign JWT grant - integration key 8f2a... and the RSA keypair private part:\n{v}",
            "Adobe Sign / DocuSign impersonation key for consent forms:\n{v}",
            "e-signature service private key (prod), copying before reimage:\n{v}",
        ],
    )
    add(
        S,
        "einvoice_api_key",
        lambda: s(HEX, 40),
        [
            "Peppol access point (Storecove) API key for outbound invoices: {v}",
            "e-invoicing portal (gov procurement) REST token = {v}",
            "Tungsten supplier portal integration key -> {v}",
        ],
    )
    add(
        S,
        "aws_secret_access_key",
        lambda: s(AN + "+/", 40),
        [
            "S3 bucket for DICOM archive offload: AKIA4QZ7MNH2XK3PLW5R / {v}",
            "aws_secret_access_key = {v}",
            "export AWS_SECRET_ACCESS_KEY={v}   # claims-datalake writer",
        ],
    )
    add(
        S,
        "azure_client_secret",
        lambda: s(AN, 3) + "8Q~" + s(AN + "_-.~", 34),
        [
            "App registration 'fhir-bridge-prod' client secret: {v}",
            "AZURE_CLIENT_SECRET={v}",
            "Entra ID secret for the e-invoice connector (expires 2027-06): {v}",
        ],
    )
    add(
        S,
        "github_pat",
        lambda: "ghp_" + s(AN, 36),
        [
            "PAT for pulling the hl7-mappings repo in CI: {v}",
            "git clone https://{v}@github.com/hosp-it/interface-configs.git",
            "my classic token with repo scope: {v}",
        ],
    )
    add(
        S,
        "slack_bot_token",
        lambda: f"xoxb-{s(DG, 12)}-{s(DG, 13)}-{s(AN, 24)}",
        [
            "Interface-down alert bot token: {v}",
            "SLACK_BOT_TOKEN={v} (posts to #hl7-alerts)",
            "slack app for audit notifications, bot user oauth token {v}",
        ],
    )
    add(
        S,
        "bearer_jwt_session",
        jwt,
        [
            "curl -H 'Authorization: Bearer {v}' https://api.payer.example/fhir/Claim",
            "Token from the EHR sandbox admin session (still valid ~8h): {v}",
            "captured the access_token to replay the failing call: {v}",
        ],
    )
    add(
        S,
        "pacs_admin_password",
        pw,
        [
            "Sectra PACS admin web console: administrator / {v}",
            'Orthanc on the research DICOM node - RegisteredUsers {"admin": "{v}"}',
            "PACS service account for the AI triage vendor push: pacs_ai_push pw {v}",
        ],
    )
    add(
        S,
        "mssql_connection_password",
        pw,
        [
            "Server=sql-claims-prd;Database=Adjudication;User Id=clm_app;Password={v};Encrypt=True;",
            "Caboodle reporting connection string has pwd={v}",
            "SSIS package EligLoad uses sa-like login etl_elig with password {v}",
        ],
    )
    add(
        S,
        "oracle_wallet_password",
        pw,
        [
            "orapki wallet for the core banking DB - wallet password {v}",
            "mkstore -wrl /u01/wallet -create ; password used: {v}",
            "Oracle EBS APPS password (prod clone refresh): {v}",
        ],
    )
    add(
        S,
        "vault_token",
        lambda: "hvs." + s(AN + "_-", 90),
        [
            "VAULT_TOKEN={v}",
            "Root-ish token to unblock the PKI engine migration: {v}",
            "vault login {v}",
        ],
    )
    add(
        S,
        "pfx_password",
        pw,
        [
            "Client cert for the Medicaid MMIS web service: mmis_client.pfx, password {v}",
            "pkcs12 export pass for the bank's host-to-host cert: {v}",
            "openssl pkcs12 -in eSign.p12 -passin pass:{v} -nodes",
        ],
    )
    add(
        S,
        "jks_storepass",
        pw,
        [
            "keytool -list -keystore hl7-tls.jks -storepass {v}",
            'Tomcat keystore for the portal: keystorePass="{v}"',
            "JKS for the SOAP gateway - storepass and keypass both {v}",
        ],
    )
    add(
        S,
        "rsa_private_key",
        lambda: pem("PRIVATE KEY", 9),
        [
            "TLS key for hl7.hosp.local (MLLP over TLS):\n{v}",
            "SAML IdP signing key, keeping a copy here:\n{v}",
            "key.pem from the vendor bundle\n{v}",
        ],
    )
    add(
        S,
        "ec_private_key",
        lambda: pem("EC PRIVATE KEY", 3),
        [
            "Apple Pay merchant identity key for the patient app:\n{v}",
            "ECDSA key that signs our e-invoices (XAdES):\n{v}",
            "Here's the ES256 private key for the client assertion JWT:\n{v}",
        ],
    )
    add(
        S,
        "twilio_auth_token",
        lambda: s(HEX, 32),
        [
            "Twilio (appointment reminders) SID AC{sid} auth token {v}".replace(
                "{sid}", "5f3c1e2d7a8b9c0d1e2f3a4b5c6d7e8f"
            ),
            "TWILIO_AUTH_TOKEN={v}",
            "SMS MFA provider creds -> account sid in the wiki, auth token: {v}",
        ],
    )
    add(
        S,
        "sendgrid_api_key",
        lambda: "SG." + s(B64U, 22) + "." + s(B64U, 43),
        [
            "SENDGRID_API_KEY={v}",
            "statement e-mails use SendGrid, full-access key {v}",
            "new sendgrid key for the claims notifier: {v}",
        ],
    )
    add(
        S,
        "okta_api_token",
        lambda: "00" + s(B64U, 40),
        [
            "Okta SSWS token for the provisioning script: {v}",
            "Authorization: SSWS {v}",
            "okta admin API token (super admin, careful): {v}",
        ],
    )
    add(
        S,
        "webhook_signing_secret",
        lambda: "whsec_" + s(AN, 32),
        [
            "Stripe webhook endpoint signing secret: {v}",
            "STRIPE_WEBHOOK_SECRET={v}",
            "verify events with the endpoint secret {v}",
        ],
    )
    add(
        S,
        "gcp_sa_private_key",
        lambda: pem("PRIVATE KEY", 5).replace("\n", "\\n"),
        [
            '{"type": "service_account", "project_id": "hosp-healthcare-api", "private_key": "{v}"}',
            "Healthcare API SA json, private_key field: {v}",
            '"private_key": "{v}",',
        ],
    )
    add(
        S,
        "totp_seed",
        lambda: s(B32, 32),
        [
            "MFA seed for the shared SWIFT ops account (so others can add it to their authenticator): {v}",
            "otpauth://totp/Payer%20Portal:edi-team?secret={v}&issuer=PayerPortal",
            "TOTP secret for the break-glass AD account: {v}",
        ],
    )
    add(
        S,
        "break_glass_recovery_codes",
        lambda: " ".join(s(DG, 4) + "-" + s(DG, 4) for _ in range(5)),
        [
            "Backup codes for the Azure global admin break-glass: {v}",
            "Recovery codes (Okta super admin): {v}",
            "GitHub org owner 2FA recovery codes: {v}",
        ],
    )
    add(
        S,
        "break_glass_password",
        pw,
        [
            "Emergency access (break-the-glass) EHR account BTG01 password is {v} - sealed envelope copy in the CISO safe",
            "Domain admin emergency account da-emerg: {v}",
            "If Epic SSO is down use local account EMERG_DOC, pw {v}",
        ],
    )
    add(
        S,
        "basic_auth_header",
        lambda: "Basic " + b64pad(rng.choice([18, 21, 24])),
        [
            "Authorization: {v}",
            "the partner 271 endpoint wants header 'Authorization: {v}'",
            'requests.post(url, headers={"Authorization": "{v}"})',
        ],
    )
    add(
        S,
        "smtp_relay_password",
        pw,
        [
            "SMTP relay for Direct messaging (HISP): smtp.hisp.net:587 user hosp-direct pass {v}",
            "EMAIL_HOST_PASSWORD={v}",
            "Office365 relay account noreply-claims@insurer.com / {v}",
        ],
    )
    add(
        S,
        "npm_token",
        lambda: "npm_" + s(AN, 36),
        [
            "//registry.npmjs.org/:_authToken={v}",
            "publish token for @hosp/fhir-utils: {v}",
            "NPM_TOKEN={v}",
        ],
    )
    add(
        S,
        "pypi_token",
        lambda: "pypi-AgEIcHlwaS5vcmc" + s(B64U, 60),
        [
            "PyPI upload token for hl7tools: {v}",
            "[pypi]\nusername = __token__\npassword = {v}",
            "TWINE_PASSWORD={v}",
        ],
    )
    add(
        S,
        "gitlab_pat",
        lambda: "glpat-" + s(B64U, 20),
        [
            "GitLab token for the integration-configs mirror: {v}",
            "git remote set-url origin https://oauth2:{v}@gitlab.bank.local/pay/swift-adapter.git",
            "CI_JOB pushes with PRIVATE-TOKEN: {v}",
        ],
    )
    add(
        S,
        "datadog_api_key",
        lambda: s(HEX, 32),
        [
            "DD_API_KEY={v}",
            "Datadog api key for the interface monitoring agents: {v}",
            "datadog:\n  apiKey: {v}\n  site: datadoghq.eu",
        ],
    )
    add(
        S,
        "redis_password",
        pw,
        [
            "redis-cli -h cache-prd -a {v}",
            "requirepass {v}",
            "session cache for member portal: rediss://:{v}@redis-members.internal:6380/0",
        ],
    )
    add(
        S,
        "snmp_rw_community",
        lambda: s(AN, 14),
        [
            "snmp-server community {v} RW 10",
            "Core switches RW community string (used by the config backup job): {v}",
            "SNMPv2c write community for the infusion-pump VLAN gear: {v}",
        ],
    )
    add(
        S,
        "clinic_wifi_psk",
        lambda: s(AN, 16),
        [
            "Staff WiFi (HOSP-CLIN) WPA2 key: {v}",
            "wpa_passphrase={v}",
            "biomed SSID for the telemetry monitors, PSK {v}",
        ],
    )
    add(
        S,
        "jumphost_ssh_password",
        pw,
        [
            "ssh ops@bastion.bank.internal - password {v}",
            "jump host for the DMZ SFTP servers: user mftadmin pw {v}",
            "sshpass -p '{v}' ssh edi@10.12.0.5",
        ],
    )
    add(
        S,
        "eprescribing_api_password",
        pw,
        [
            "Surescripts cert environment SOAP creds: portal id HOSP01, password {v}",
            "EPCS gateway login for the pharmacy integration: {v}",
            "e-prescribing hub (NHS EPS) spine connection password: {v}",
        ],
    )
    add(
        S,
        "clearinghouse_api_secret",
        lambda: s(AN, 40),
        [
            "Availity API client secret: {v}",
            "Change Healthcare eligibility API - client_secret {v}",
            "clearinghouse (Waystar) API secret for 276/277 polling: {v}",
        ],
    )
    add(
        S,
        "pgp_private_key",
        lambda: pem("PGP PRIVATE KEY BLOCK", 7),
        [
            "Our PGP secret key for decrypting 835 remits from the payer:\n{v}",
            "gpg --export-secret-keys output for edi@hosp.org:\n{v}",
            "bank statement decryption key (MT940 files):\n{v}",
        ],
    )
    add(
        S,
        "pgp_passphrase",
        pw,
        [
            "gpg passphrase for the remittance key: {v}",
            "gpg --batch --passphrase '{v}' -d 835_20261201.pgp",
            "PGP key edi@insurer.com passphrase -> {v}",
        ],
    )
    add(
        S,
        "ehr_session_cookie",
        lambda: s(HEX.upper(), 32),
        [
            "Cookie: JSESSIONID={v}; Path=/ehr-admin; Secure",
            "Grabbed the admin session from devtools to keep testing: JSESSIONID={v}",
            "Set-Cookie: JSESSIONID={v}; HttpOnly - portal admin still logged in",
        ],
    )
    add(
        S,
        "openvpn_static_key",
        lambda: (
            "-----BEGIN OpenVPN Static key V1-----\n"
            + "\n".join(s(HEX, 32) for _ in range(16))
            + "\n-----END OpenVPN Static key V1-----"
        ),
        [
            "<tls-auth>\n{v}\n</tls-auth>",
            "ta.key for the vendor remote-support VPN:\n{v}",
            "OpenVPN static key for the imaging vendor tunnel:\n{v}",
        ],
    )
    add(
        S,
        "wireguard_private_key",
        lambda: s(B64, 43) + "=",
        [
            "[Interface]\nPrivateKey = {v}\nAddress = 10.99.0.2/32",
            "wg private key for the DR site link: {v}",
            "WireGuard peer config (branch clinic 7) privkey {v}",
        ],
    )
    add(
        S,
        "radius_shared_secret",
        lambda: s(AN, 20),
        [
            "RADIUS client 10.1.1.5 shared secret {v}",
            "radius-server key {v}",
            "NPS shared secret for the VPN concentrator: {v}",
        ],
    )
    add(
        S,
        "tacacs_key",
        lambda: s(AN, 18),
        [
            "tacacs-server key {v}",
            "ISE TACACS+ shared secret for core routers: {v}",
            "TACACS key (plain, type 0) for the branch ASR: {v}",
        ],
    )
    add(
        S,
        "azure_storage_account_key",
        lambda: s(B64, 86) + "==",
        [
            "DefaultEndpointsProtocol=https;AccountName=hospdicomarch;AccountKey={v};EndpointSuffix=core.windows.net",
            "storage account key1 for the claims landing zone: {v}",
            "AZURE_STORAGE_KEY={v}",
        ],
    )
    add(
        S,
        "azure_sas_signature",
        lambda: s(B64U, 43) + "%3D",
        [
            "https://hospedi.blob.core.windows.net/inbound?sv=2022-11-02&ss=b&srt=co&sp=rwl&se=2027-12-31&sig={v}",
            "SAS for the partner upload container, sig={v} (write, 1 year)",
            "sas token: sp=racwdl&st=2026-12-01&se=2027-12-01&spr=https&sig={v}",
        ],
    )
    add(
        S,
        "mongodb_uri_password",
        pw,
        [
            "mongodb+srv://audit_app:{v}@cluster0.x7k2q.mongodb.net/auditlog",
            "Mongo audit store creds: audit_app / {v}",
            "MONGO_URL=mongodb://fhircache:{v}@mongo-1:27017/fhir",
        ],
    )
    add(
        S,
        "django_secret_key",
        lambda: s(LO + DG + "!@#%^&*(-_=+)", 50),
        [
            "SECRET_KEY = '{v}'",
            "prior-auth portal django secret key (prod): {v}",
            "DJANGO_SECRET_KEY={v}",
        ],
    )
    add(
        S,
        "phi_column_aes_key",
        lambda: s(HEX, 64),
        [
            "AES-256 key for the SSN column encryption in the member DB: {v}",
            "PHI_ENCRYPTION_KEY={v}",
            "data key (plaintext) for the TDE on the claims warehouse: {v}",
        ],
    )
    add(
        S,
        "vault_unseal_key",
        lambda: s(B64, 44),
        [
            "Unseal Key 1: {v}",
            "My vault unseal key share (3 of 5 needed): {v}",
            "HSM offline - manual unseal with key {v}",
        ],
    )
    add(
        S,
        "ansible_vault_password",
        pw,
        [
            "ansible-vault password for the inventory (group_vars/prod): {v}",
            "echo '{v}' > ~/.vault_pass.txt",
            "vault pass used by AWX for the PACS playbooks: {v}",
        ],
    )
    add(
        S,
        "kubeconfig_token",
        jwt,
        [
            "users:\n- name: ci-deployer\n  user:\n    token: {v}",
            "kubectl --token={v} -n fhir get pods",
            "service account token for the integration namespace: {v}",
        ],
    )
    add(
        S,
        "openai_api_key",
        lambda: "sk-proj-" + s(B64U, 120),
        [
            "OPENAI_API_KEY={v}",
            "key for the clinical-notes summarizer pilot: {v}",
            "claims triage prototype uses openai, key {v}",
        ],
    )
    add(
        S,
        "anthropic_api_key",
        lambda: "sk-ant-api03-" + s(B64U, 93) + "AA",
        [
            "ANTHROPIC_API_KEY={v}",
            "coding-agent key for the integration team workspace: {v}",
            "prior-auth letter drafting tool, api key {v}",
        ],
    )
    add(
        S,
        "docker_registry_password",
        pw,
        [
            "docker login harbor.hosp.local -u robot$integration -p {v}",
            "registry creds for the HL7 engine images: robot account pass {v}",
            '{"auths": {"registry.bank.local": {"username": "ci", "password": "{v}"}}}',
        ],
    )

    # ------------------------------------------------------------------ benign
    add(
        B,
        "mrn",
        lambda: "MRN" + s(DG, 8),
        [
            "Test patient for ADT A08 regression: {v} (Zztest, Mary) - do not use real patients",
            "PID-3 came through as {v}^^^HOSP^MR, mapping was fine",
            "duplicate chart merge request: {v} into the surviving record",
        ],
    )
    add(
        B,
        "fhir_patient_id",
        lambda: s(LO + DG, 8) + "-" + s(LO + DG, 4) + "-" + s(LO + DG, 12),
        [
            "GET /fhir/r4/Patient/{v}/$everything returned 2.3MB",
            "Patient resource id {v} is the synthetic Synthea patient we use for demos",
            "Encounter.subject -> Patient/{v}",
        ],
    )
    add(
        B,
        "claim_id",
        lambda: "CLM" + s(DG, 4) + s(UP, 2) + s(DG, 8),
        [
            "Claim {v} denied CO-197 (precert absent) - resubmitted with auth number",
            "837P for claim {v} rejected at clearinghouse: NM1*82 missing NPI",
            "ticket: adjuster asks about claim {v}, status pended",
        ],
    )
    add(
        B,
        "npi_number",
        lambda: luhn("80840" + rng.choice("12"), 15)[5:],
        [
            "Rendering provider NPI {v} (Dr. Okafor, cardiology)",
            "NM1*85*2*ST MARYS*****XX*{v}~",
            "billing NPI is {v}; the taxonomy code is 282N00000X",
        ],
    )
    add(
        B,
        "hl7_oid",
        lambda: "2.16.840.1.113883.3." + s(DG, 4) + "." + s(DG, 1) + "." + s(DG, 2),
        [
            "Assigning authority OID for our MRNs: {v}",
            "CDA templateId root={v} — check it against the IG",
            "HIE wants the facility OID in the XDS metadata: {v}",
        ],
    )
    add(
        B,
        "cert_thumbprint_sha1",
        lambda: s(HEX.upper(), 40),
        [
            "New MLLP/TLS server cert installed, thumbprint {v}, expires 2027-11-30",
            "Pin the payer's client cert by SHA1 thumbprint: {v}",
            "Get-ChildItem Cert:\\LocalMachine\\My\\{v}",
        ],
    )
    add(
        B,
        "hashed_patient_identifier",
        lambda: s(HEX, 64),
        [
            "Research extract uses sha256(salt||MRN) as the patient key, e.g. {v}",
            "de-identified cohort row: pt_hash={v}, age_band=60-69",
            "tokenized PPRL hash sent to the registry: {v}",
        ],
    )
    add(
        B,
        "masked_password",
        lambda: "*" * rng.randint(8, 14),
        [
            "SFTP config screen shows password: {v} (stored in vault, don't retype)",
            "ldap bind_password: {v}  <- masked in the Mirth export",
            "connection test OK for user clm_app / {v}",
        ],
    )
    add(
        B,
        "masked_card_number",
        lambda: "**** **** **** " + s(DG, 4),
        [
            "Refund issued to card {v}, ref RF-20261203-17",
            "member paid premium with {v} (Visa), auth code 0K4Q21",
            "Adyen report: pspReference 8816... card {v}",
        ],
    )
    add(
        B,
        "vault_path_reference",
        lambda: "kv/data/integrations/" + rng.choice(["swift", "sftp-bcbs", "ldap-epic"]) + "/prod",
        [
            "The password lives in Vault at {v} - read it with the app role, never copy it out",
            "creds moved to {v}; the engine reads them at startup",
            "where's the SFTP password? -> vault kv get {v}",
        ],
    )
    add(
        B,
        "azure_keyvault_reference",
        lambda: (
            "@Microsoft.KeyVault(SecretUri=https://kv-hosp-prd.vault.azure.net/secrets/"
            + rng.choice(["FhirClientSecret", "LdapBindPw", "SwiftOperatorPw"])
            + "/)"
        ),
        [
            "App setting FHIR__ClientSecret = {v}",
            "Don't paste secrets in app config; use {v}",
            "switched LDAP creds to a KV reference: {v}",
        ],
    )
    add(
        B,
        "aws_secrets_manager_arn",
        lambda: f"arn:aws:secretsmanager:us-east-1:{s(DG, 12)}:secret:prod/edi/sftp-{s(AN, 6)}",
        [
            "SFTP creds are in Secrets Manager: {v}",
            "Lambda role needs secretsmanager:GetSecretValue on {v}",
            "rotation lambda attached to {v}, 30-day schedule",
        ],
    )
    add(
        B,
        "env_var_reference",
        lambda: rng.choice(
            ["${LDAP_BIND_PASSWORD}", "${SWIFT_OPERATOR_PW}", "$(SFTP_PASSWORD)", "%PFX_PASS%"]
        ),
        [
            "bind_password: {v}   # injected at deploy",
            "connection uses password={v} from the pipeline variable group",
            "passin env var: {v} (set by the service wrapper)",
        ],
    )
    add(
        B,
        "ssh_public_key",
        lambda: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + s(B64, 43) + " edi_push@mft01",
        [
            "Send this public key to the partner to whitelist: {v}",
            "authorized_keys on the bank's side should contain {v}",
            "public half registered with BlueCross SFTP: {v}",
        ],
    )
    add(
        B,
        "pgp_public_key_block",
        lambda: pem("PGP PUBLIC KEY BLOCK", 5),
        [
            "Payer's public PGP key (encrypt outbound 837 with it):\n{v}",
            "Our public key to publish to partners:\n{v}",
            "gpg --import partner.asc\n{v}",
        ],
    )
    add(
        B,
        "x509_certificate_pem",
        lambda: pem("CERTIFICATE", 7),
        [
            "Intermediate CA for the Direct trust bundle:\n{v}",
            "Server cert presented by the HIE (public, for the truststore):\n{v}",
            "SAML IdP signing certificate from metadata:\n{v}",
        ],
    )
    add(
        B,
        "stripe_publishable_key",
        lambda: "pk_live_" + s(AN, 99),
        [
            "Stripe.js on the copay page uses the publishable key {v}",
            "NEXT_PUBLIC_STRIPE_KEY={v} (safe to ship to browser)",
            "frontend: loadStripe('{v}')",
        ],
    )
    add(
        B,
        "placeholder_secret",
        lambda: rng.choice(
            [
                "<your-client-secret>",
                "YOUR_PSK_HERE",
                "REPLACE_ME",
                "xxxxxxxxxxxxxxxx",
                "<PASSWORD>",
                "changeme-in-vault",
            ]
        ),
        [
            "Template for new payer FHIR connections: client_secret={v}",
            "crypto isakmp key {v} address <peer-ip>   (fill from vault)",
            "sample .env for the runbook:\nSFTP_USER=partner_user\nSFTP_PASS={v}",
        ],
    )
    add(
        B,
        "revoked_token_last4",
        lambda: "…" + s(AN, 4),
        [
            "Revoked the leaked GitHub PAT ending {v} at 14:02 UTC; audit log confirms no use",
            "Old Stripe key (last4 {v}) rolled and deleted - incident INC-4471 closed",
            "Datadog key ending {v} disabled after contractor offboarding",
        ],
    )
    add(
        B,
        "redacted_value",
        lambda: rng.choice(["[REDACTED]", "<redacted>", "***REMOVED***", "[FILTERED]"]),
        [
            "Log line: ldap bind ok dn=svc_epicldap password={v}",
            "support ticket had the SWIFT operator password, replaced with {v} before attaching",
            "Authorization: Bearer {v}",
        ],
    )
    add(
        B,
        "iban",
        lambda: "DE" + s(DG, 20),
        [
            "Reinsurer settlement account IBAN {v}, BIC COBADEFFXXX",
            "pacs.008 creditor account {v} failed name check",
            "vendor master update: new IBAN {v} verified by call-back",
        ],
    )
    add(
        B,
        "swift_bic",
        lambda: rng.choice(["DEUTDEFF", "CHASUS33", "BOFAUS3N", "NWBKGB2L"]) + s(UP, 3),
        [
            "Correspondent bank BIC {v} for USD payments",
            "MT103 field 57A: {v}",
            "BIC {v} not reachable in the RMA, raise with SWIFT ops",
        ],
    )
    add(
        B,
        "swift_uetr",
        lambda: (
            f"{s(HEX, 8)}-{s(HEX, 4)}-4{s(HEX, 3)}-{rng.choice('89ab')}{s(HEX, 3)}-{s(HEX, 12)}"
        ),
        [
            "gpi tracker: UETR {v} stuck at intermediary",
            "field 121 UETR = {v}",
            "customer asks where the wire is; UETR {v}",
        ],
    )
    add(
        B,
        "git_commit_sha",
        lambda: s(HEX, 40),
        [
            "HL7 mapping fix merged as {v}",
            "rollback the interface-configs repo to {v}",
            "bisect landed on {v} - the PID-5 parser change",
        ],
    )
    add(
        B,
        "image_digest",
        lambda: "sha256:" + s(HEX, 64),
        [
            "Pinned mirth image to {v}",
            "cosign verified digest {v} for fhir-bridge:2.4.1",
            "Trivy scan clean on {v}",
        ],
    )
    add(
        B,
        "correlation_uuid",
        lambda: f"{s(HEX, 8)}-{s(HEX, 4)}-{s(HEX, 4)}-{s(HEX, 4)}-{s(HEX, 12)}",
        [
            "X-Request-ID {v} timed out at the payer gateway",
            "correlationId={v} for the failed e-invoice submission",
            "App Insights operation_Id {v}",
        ],
    )
    add(
        B,
        "hl7_message_control_id",
        lambda: s(DG, 14) + s(UP, 2) + s(DG, 4),
        [
            "MSH-10 {v} got an AE ack - segment PV1 missing",
            "Resend message control id {v} from the queue",
            "ACK MSA|AA|{v}",
        ],
    )
    add(
        B,
        "dicom_study_uid",
        lambda: "1.2.840.113619.2." + s(DG, 3) + "." + s(DG, 10) + "." + s(DG, 6),
        [
            "Study Instance UID {v} missing from the VNA",
            "C-MOVE failed for StudyInstanceUID={v}",
            "AI vendor returned findings for study {v}",
        ],
    )
    add(
        B,
        "accession_number",
        lambda: "ACC" + s(DG, 10),
        [
            "Accession {v} has two ORMs - dedupe in the RIS",
            "radiology report for {v} not crossing to the EHR",
            "OBR-18 should carry accession {v}",
        ],
    )
    add(
        B,
        "database_primary_key",
        lambda: s(DG, 9),
        [
            "Primary key on CLAIM_LINE is (claim_id, line_no); offending row has claim_id {v}",
            "foreign key violation: member_key {v} not in DIM_MEMBER",
            "surrogate key {v} maps to the old policy number",
        ],
    )
    add(
        B,
        "card_vault_token",
        lambda: "tok_" + s(AN, 24),
        [
            "PCI scope: we store only the gateway's card token {v}, never the PAN",
            "recurring premium uses stored payment token {v} (useless without our merchant secret)",
            "token {v} references the member's saved Visa in the tokenization vault",
        ],
    )
    add(
        B,
        "llm_token_count",
        lambda: str(rng.randint(8000, 200000)),
        [
            "Discharge summary prompt blew past the context: {v} tokens",
            "token budget for the claims-notes summarizer set to {v} per request",
            "max_tokens={v} was too high for the pilot model",
        ],
    )
    add(
        B,
        "password_policy",
        lambda: "",
        [
            "Policy for service accounts: 20+ char passwords, rotated every 90 days, stored only in CyberArk.",
            "HIPAA audit finding: local admin passwords were shared. Fix: LAPS on all clinic workstations.",
            "RACF password rules: 8 chars, must include a national char (#@$), history 12, revoke after 3 failures.",
        ],
    )
    add(
        B,
        "rotation_audit_note",
        lambda: "",
        [
            "SOX control ITGC-07: rotated the SWIFT operator passwords on 2026-12-01, evidence in GRC tool.",
            "PCI DSS 8.3.9 review - all gateway API keys rotated, new values only in the vault, no copies in tickets.",
            "Audit note: LDAP bind password for svc_epicldap changed by J. Patel, dual control witnessed.",
        ],
    )
    add(
        B,
        "ssh_key_fingerprint",
        lambda: "SHA256:" + s(B64, 43),
        [
            "Partner confirmed our key fingerprint {v}",
            "ED25519 key fingerprint is {v}.",
            "ssh-keygen -lf edi_push.pub -> 256 {v} edi_push@mft01 (ED25519)",
        ],
    )
    add(
        B,
        "pgp_fingerprint",
        lambda: " ".join(s(HEX.upper(), 4) for _ in range(10)),
        [
            "Payer PGP key fingerprint (verify by phone): {v}",
            "gpg --fingerprint edi@payer.com shows {v}",
            "our key id long form is the last 16 of {v}",
        ],
    )
    add(
        B,
        "jwks_public_modulus",
        lambda: s(B64U, 342),
        [
            'Our JWKS for SMART backend auth: {"kty":"RSA","e":"AQAB","kid":"k1","n":"{v}"}',
            "public JWK registered with the payer, n={v}",
            "jwks.json kid=2026-12 modulus {v}",
        ],
    )
    add(
        B,
        "x509_serial",
        lambda: ":".join(s(HEX, 2) for _ in range(16)),
        [
            "Revoke cert serial {v} on the issuing CA",
            "Serial Number: {v}",
            "OCSP says {v} is good",
        ],
    )
    add(
        B,
        "saml_entity_id",
        lambda: "https://sso.hosp.org/saml2/" + s(LO + DG, 12),
        [
            "EntityID for the e-signature SP: {v}",
            "IdP metadata at {v}/metadata",
            "Audience mismatch: expected {v}",
        ],
    )
    add(
        B,
        "smart_public_client_id",
        lambda: s(HEX, 8) + "-" + s(HEX, 4) + "-" + s(HEX, 4) + "-" + s(HEX, 4) + "-" + s(HEX, 12),
        [
            "SMART on FHIR patient app is a public client (PKCE, no secret); client_id={v}",
            "Epic App Orchard non-production client ID: {v}",
            "client_id {v} is fine to ship in the mobile app bundle",
        ],
    )
    add(
        B,
        "aws_docs_example_key",
        lambda: rng.choice(["wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "AKIAIOSFODNN7EXAMPLE"]),
        [
            "The runbook uses the AWS doc sample {v} as a dummy - replace with the role, not a key",
            "unit test fixture credential {v} (official AWS example value)",
            "Do not panic if the scanner flags {v}: it's the documented EXAMPLE key",
        ],
    )
    add(
        B,
        "kms_key_arn",
        lambda: (
            f"arn:aws:kms:eu-west-1:{s(DG, 12)}:key/{s(HEX, 8)}-{s(HEX, 4)}-{s(HEX, 4)}-{s(HEX, 4)}-{s(HEX, 12)}"
        ),
        [
            "PHI bucket is SSE-KMS with CMK {v}",
            "grant decrypt on {v} to the ETL role",
            "key policy for {v} restricts to the VPC endpoint",
        ],
    )
    add(
        B,
        "member_id",
        lambda: rng.choice(["XQH", "ZGB", "W"]) + s(DG, 9),
        [
            "Eligibility 271 returned active for member {v}",
            "subscriber id {v}, group 004512",
            "card reads member ID {v} - matches the 834",
        ],
    )
    add(
        B,
        "dea_number",
        lambda: rng.choice("ABFM") + s(UP, 1) + s(DG, 7),
        [
            "Prescriber DEA {v} expired, EPCS blocked",
            "DEA number {v} added to the provider master",
            "validate DEA checksum for {v}",
        ],
    )
    add(
        B,
        "aba_routing_number",
        lambda: s(DG, 9),
        [
            "ACH origination: ODFI routing {v}",
            "NACHA file batch header uses routing number {v}",
            "vendor's bank routing {v}, acct ending 4471",
        ],
    )
    add(
        B,
        "lei_code",
        lambda: s(DG, 4) + "00" + s(UP + DG, 12) + s(DG, 2),
        [
            "Our LEI for EMIR reporting: {v}",
            "counterparty LEI {v} lapsed",
            "LEI {v} in the ISO 20022 header",
        ],
    )
    add(
        B,
        "peppol_participant_id",
        lambda: "0088:" + s(DG, 13),
        [
            "Peppol participant ID for the ministry: {v}",
            "SMP lookup for {v} returns our access point",
            "e-invoice receiver endpoint {v}",
        ],
    )
    add(
        B,
        "vpn_ike_proposal",
        lambda: "",
        [
            "Labcorp tunnel: IKEv2, AES-256-GCM, SHA-384, DH group 20, PFS on. PSK exchanged by phone, kept in vault.",
            "Phase 1 lifetime 28800, phase 2 3600; interesting traffic 10.40.0.0/16 <-> 172.20.8.0/24.",
            "VPN to the state Medicaid agency came up after they fixed their NAT-T. No secrets changed.",
        ],
    )
    add(
        B,
        "sftp_host_key",
        lambda: (
            "ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABB" + s(B64, 88)
        ),
        [
            "known_hosts entry for sftp.partner-edi.com: {v}",
            "Bank SFTP host key changed - new one is {v}; confirmed with their ops",
            "ssh-keyscan gave {v}",
        ],
    )
    add(
        B,
        "racf_userid_only",
        lambda: s(UP, 5) + s(DG, 2),
        [
            "Batch job runs under RACF userid {v}; password is managed by the mainframe team",
            "revoked userid {v} after 3 bad logons, needs ALTUSER RESUME",
            "requested TSO access for {v}",
        ],
    )
    add(
        B,
        "as400_job_number",
        lambda: s(DG, 6) + "/QINTEGR/" + s(UP, 6),
        [
            "AS/400 job {v} ended with CPF9898",
            "WRKJOB {v} - spooled file shows the duplicate key",
            "hung job {v} holding a lock on PREMPF",
        ],
    )
    add(
        B,
        "base64_config_blob",
        lambda: "eyJmZWVkIjoiQURUIiwicG9ydCI6NjY2MSwidGxzIjp0cnVlfQ==",
        [
            "channel config export (just base64 JSON, no creds): {v}",
            'decoded {v} -> {"feed":"ADT","port":6661,"tls":true}',
            "k8s ConfigMap binaryData for the listener: {v}",
        ],
    )
    add(
        B,
        "trace_id",
        lambda: s(HEX, 32),
        [
            "traceparent 00-{v}-" + "b7ad6b7169203331-01 shows the latency in the FHIR proxy",
            "Jaeger trace {v}",
            "trace_id={v} span=claims-adjudicate",
        ],
    )
    add(
        B,
        "webhook_signature_value",
        lambda: "t=" + str(rng.randint(1760000000, 1790000000)) + ",v1=" + s(HEX, 64),
        [
            "Stripe-Signature header on the failing event: {v} (signature only, secret is in vault)",
            "signature mismatch, received {v}",
            "logged webhook sig {v} to compare clock skew",
        ],
    )
    add(
        B,
        "oauth_state_nonce",
        lambda: s(B64U, 32),
        [
            "SMART launch failed: state={v} didn't match on callback",
            "nonce in id_token was {v}",
            "PKCE code_challenge={v}, method S256",
        ],
    )
    add(
        B,
        "test_card_number",
        lambda: rng.choice(["4111111111111111", "5555555555554444", "4000000000000002"]),
        [
            "Sandbox copay test with card {v} exp 12/34 cvc 123",
            "Adyen test card {v} triggers refusal",
            "use gateway test PAN {v} in UAT only",
        ],
    )
    add(
        B,
        "fhir_etag",
        lambda: 'W/"' + str(rng.randint(2, 40)) + '"',
        [
            "PUT Coverage needs If-Match: {v}",
            "412 because ETag {v} was stale",
            "meta.versionId matches {v}",
        ],
    )
    add(
        B,
        "bad_password_training_example",
        lambda: rng.choice(["Summer2026!", "Welcome123", "P@ssw0rd1"]),
        [
            "Security awareness slide: passwords like '{v}' are cracked in seconds - never use them",
            "Policy check now rejects common patterns such as {v} (example, not anyone's password)",
            "phishing sim report: most reused password shape was {v}-style",
        ],
    )
    add(
        B,
        "trade_secret_wording",
        lambda: "",
        [
            "Pricing model for the reinsurance treaty is a trade secret - keep it out of shared tickets.",
            "The 'secret shopper' audit of the patient access line is next week.",
            "Key takeaways from the HL7 FHIR connectathon: the bulk data token endpoint is the bottleneck.",
        ],
    )
    add(
        B,
        "medicare_mbi",
        lambda: (
            f"{rng.randint(1, 9)}{s('ACDEFGHJKMNPQRTUVWXY', 1)}{s('ACDEFGHJKMNPQRTUVWXY' + DG, 1)}{s(DG, 1)}-{s('ACDEFGHJKMNPQRTUVWXY', 1)}{s('ACDEFGHJKMNPQRTUVWXY' + DG, 1)}{s(DG, 1)}-{s('ACDEFGHJKMNPQRTUVWXY', 2)}{s(DG, 2)}"
        ),
        [
            "Synthetic MBI for the 270 test: {v}",
            "MBI {v} failed format check in the eligibility tool",
            "crosswalk HICN -> MBI {v} (test data)",
        ],
    )
    add(
        B,
        "sha256_file_checksum",
        lambda: s(HEX, 64),
        [
            "835 file checksum sha256 {v} matches the partner manifest",
            "sha256sum remit_20261201.edi: {v}",
            "vendor installer hash {v} verified",
        ],
    )
    add(
        B,
        "terraform_sensitive_var",
        lambda: "",
        [
            'variable "swift_operator_password" {\n  type      = string\n  sensitive = true\n}',
            'resource "azurerm_key_vault_secret" "ldap" {\n  name  = "ldap-bind"\n  value = var.ldap_bind_password\n}',
            'output "sftp_password" {\n  value     = random_password.sftp.result\n  sensitive = true\n}',
        ],
    )
    add(
        B,
        "k8s_secret_key_ref",
        lambda: "",
        [
            "env:\n- name: FHIR_CLIENT_SECRET\n  valueFrom:\n    secretKeyRef:\n      name: fhir-bridge\n      key: client-secret",
            "ExternalSecret pulls key 'swift/operator' from Vault into secret swift-creds; pods mount it read-only.",
            "kubectl get secret mirth-db -o yaml shows only data keys (username, password) - values stay in etcd encrypted.",
        ],
    )
    add(
        B,
        "csr_pem",
        lambda: pem("CERTIFICATE REQUEST", 6),
        [
            "CSR for the new Direct address cert, sent to the HISP:\n{v}",
            "Submitted this CSR to DigiCert for hl7.hosp.org:\n{v}",
            "csr for the bank host-to-host client cert:\n{v}",
        ],
    )
    add(
        B,
        "keystore_alias_list",
        lambda: "",
        [
            "keytool -list output: aliases hl7-tls (PrivateKeyEntry), payer-root (trustedCertEntry), hie-int (trustedCertEntry).",
            "The JKS has two entries; the key alias is 'esign-2026'. Storepass is in CyberArk safe INT-PROD.",
            "pfx imported to LocalMachine\\My; private key marked non-exportable.",
        ],
    )
    add(
        B,
        "git_lfs_oid",
        lambda: s(HEX, 64),
        [
            "version https://git-lfs.github.com/spec/v1\noid sha256:{v}\nsize 48213",
            "LFS object {v} for the sample DICOM set",
            "missing LFS oid {v} in the test fixtures",
        ],
    )
    add(
        B,
        "public_ip_and_psk_length",
        lambda: "",
        [
            "Azure VPN gateway public IP 20.61.14.2; PSK is 32 chars, stored in Key Vault secret 'vpn-labcorp-psk'.",
            "Peer asked for the PSK by email - refused; will share via the one-time link tool.",
            "PSK for the HIE tunnel rotated yesterday; both sides confirmed phase 1 up.",
        ],
    )

    for r in rows:
        assert r["value"] in r["text"], r
    return rows


def main() -> None:
    rows = corpus()
    out = "\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n"
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w", encoding="utf-8") as f:
            f.write(out)
    else:
        sys.stdout.write(out)


if __name__ == "__main__":
    main()

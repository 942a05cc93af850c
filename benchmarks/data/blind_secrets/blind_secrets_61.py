# ruff: noqa: E501
"""Blind secret-detector corpus 61: law firm IT and e-discovery.

Brief: memory notes of a law firm's IT and e-discovery team (iManage, NetDocuments, Relativity, DocuSign, Adobe Sign, court e-filing, client extranets, VPN/MFA, Microsoft 365 admin, scanners/MFPs, time-and-billing), with live credentials next to matter numbers, Bates numbers, case numbers, document hashes, ids, public keys, placeholders and vault references.

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Run: python blind_secrets_61.py [out.jsonl]

Kinds, secret: aws_secret_access_key, azure_app_client_secret, m365_admin_password, imanage_service_password, imanage_api_client_secret, netdocuments_client_secret, relativity_admin_password, relativity_oauth_client_secret, docusign_secret_key, docusign_rsa_private_key, docusign_access_token_jwt, adobe_sign_integration_key, court_efiling_password, client_extranet_password, extranet_share_link_token, vpn_preshared_key, vpn_user_password, totp_seed_base32, mfa_backup_codes, mfp_smtp_relay_password, mfp_admin_password, scan_to_folder_smb_password, billing_sql_connection_string, postgres_url_with_password, ldap_bind_password, rsa_private_key_pem, openssh_private_key, gcp_service_account_private_key, github_pat_classic, github_pat_fine_grained, slack_bot_token, slack_webhook_url, teams_incoming_webhook_url, sendgrid_api_key, stripe_live_secret_key, twilio_auth_token, azure_storage_account_key, azure_sas_signature, basic_auth_header, url_embedded_password, wifi_psk, bitlocker_recovery_key, laps_local_admin_password, okta_api_token, duo_secret_key, openai_api_key, production_volume_password, sftp_delivery_password, password_in_prose_no_keyword
Kinds, benign: client_matter_number, bates_number, bates_range, federal_case_number, state_index_number, document_sha256, document_md5_dedupe, sha1_hash, git_commit_sha, relativity_artifact_id, relativity_workspace_guid, imanage_document_reference, netdocuments_document_id, docusign_envelope_id, docusign_integration_key_client_id, azure_tenant_or_client_id, aws_documented_example_key, angle_placeholder, changeme_placeholder, env_var_reference, vault_reference, redacted_value, masked_last4, password_policy_text, ssh_public_key, pem_certificate, cert_thumbprint, ssh_host_fingerprint, stripe_publishable_key, recaptcha_site_key, stripe_documented_test_card, github_pat_stated_revoked, printer_serial_number, mac_address, ticket_number, bitlocker_key_id, windows_sid, graph_message_id, fedex_tracking_number, cmecf_document_stamp, efiling_envelope_number, duo_integration_key_ikey, westlaw_citation, container_image_digest, load_file_control_number, forensic_image_hash, xxxx_placeholder, aws_documented_example_secret, env_var_reference_windows, vault_reference_keeper, uuid_correlation_id, netdocuments_repository_id, docusign_api_account_id, adobe_sign_agreement_id, collection_id, private_ip_address, base64_pdf_fragment, azure_subscription_id, attorney_bar_number, otp_code_already_used
"""

import base64
import json
import random
import string
import sys

SEED = 6161

UP = string.ascii_uppercase
LO = string.ascii_lowercase
DG = string.digits
AN = UP + LO + DG
HX = "0123456789abcdef"
B64 = AN + "+/"
B64U = AN + "-_"
B32 = UP + "234567"

WORDS = [
    "Summit",
    "Harbor",
    "Falcon",
    "Maple",
    "Brooklyn",
    "Yankees",
    "Tigers",
    "Winter",
    "Coffee",
    "Baxter",
    "Monday",
    "Justice",
    "Verdict",
    "Eagle",
    "Copper",
    "Lucky",
    "Ocean",
    "Cedar",
    "Pepper",
    "Spring",
]
SYMS = "!@#$%&*?"


def _s(r, alpha, n):
    return "".join(r.choice(alpha) for _ in range(n))


def _human(r):
    w = r.choice(WORDS)
    if r.random() < 0.4:
        w = w + r.choice(WORDS).lower()
    return w + str(r.randint(1, 2026)) + r.choice(SYMS)


def _generated_pw(r, n=18):
    alpha = AN + "!#%^*-_=+"
    while True:
        p = _s(r, alpha, n)
        if any(c in DG for c in p) and any(c in UP for c in p) and any(c in LO for c in p):
            return p


def _either_pw(r):
    return _human(r) if r.random() < 0.5 else _generated_pw(r, r.randint(14, 24))


def _uuid(r, upper=False):
    h = _s(r, HX, 32)
    h = h[:12] + "4" + h[13:16] + r.choice("89ab") + h[17:]
    u = f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"
    return u.upper() if upper else u


def _b64bytes(r, n):
    return base64.b64encode(bytes(r.randrange(256) for _ in range(n))).decode()


def _pem(r, label, nbytes):
    body = _b64bytes(r, nbytes)
    lines = [body[i : i + 64] for i in range(0, len(body), 64)]
    return f"-----BEGIN {label}-----\n" + "\n".join(lines) + f"\n-----END {label}-----"


def _jwt(r):
    def enc(obj):
        return (
            base64.urlsafe_b64encode(json.dumps(obj, separators=(",", ":")).encode())
            .decode()
            .rstrip("=")
        )

    head = enc({"typ": "JWT", "alg": "RS256", "kid": _uuid(r)})
    body = enc(
        {
            "TokenType": 5,
            "Form": 1,
            "sub": _uuid(r),
            "iat": r.randint(1780000000, 1800000000),
            "exp": r.randint(1800000000, 1810000000),
            "aud": "account-d.docusign.com",
            "scp": "signature impersonation",
            "jti": _s(r, AN, 16),
        }
    )
    return head + "." + body + "." + _s(r, B64U, 342)


# ---------------- secret generators: each returns dict with v (+ optional extras) ----------------


def g_aws(r):
    return {"v": _s(r, B64, 40), "a": "AKIA" + _s(r, UP + "234567", 16)}


def g_azsecret(r):
    return {"v": _s(r, AN, 3) + r.choice(DG) + "Q~" + _s(r, AN + "_.~-", 34), "a": _uuid(r)}


def g_pw(r):
    return {"v": _either_pw(r)}


def g_human(r):
    return {"v": _human(r)}


def g_human_url(r):
    return {"v": _human(r)[:-1] + r.choice("!*-_.~")}


def g_gen(r):
    return {"v": _generated_pw(r, r.randint(16, 28))}


def g_alnum40(r):
    return {"v": _s(r, AN, 40), "a": _uuid(r)}


def g_hex32(r):
    return {"v": _s(r, HX, 32), "a": _uuid(r)}


def g_docusign_secret(r):
    return {"v": _uuid(r), "a": _uuid(r)}


def g_rsa(r):
    return {"v": _pem(r, "RSA PRIVATE KEY", 1190)}


def g_openssh(r):
    body = base64.b64encode(
        b"openssh-key-v1\x00" + bytes(r.randrange(256) for _ in range(380))
    ).decode()
    lines = [body[i : i + 70] for i in range(0, len(body), 70)]
    return {
        "v": "-----BEGIN OPENSSH PRIVATE KEY-----\n"
        + "\n".join(lines)
        + "\n-----END OPENSSH PRIVATE KEY-----"
    }


def g_gcp(r):
    pem = _pem(r, "PRIVATE KEY", 1216)
    return {
        "v": pem.replace("\n", "\\n") + "\\n",
        "a": _s(r, HX, 40),
        "b": str(r.randint(10**20, 10**21 - 1)),
    }


def g_jwt(r):
    return {"v": _jwt(r)}


def g_adobe(r):
    return {"v": "3AAABLblqZhB" + _s(r, B64U, 62)}


def g_ext_link(r):
    return {"v": _s(r, B64U, 43)}


def g_psk(r):
    return {"v": _s(r, AN + "!@#%^&*", r.randint(24, 40))}


def g_totp(r):
    return {"v": _s(r, B32, 32)}


def g_backup(r):
    return {"v": " ".join(f"{r.randint(0, 99999999):08d}" for _ in range(r.choice([5, 6, 10])))}


def g_sqlconn(r):
    pw = _either_pw(r)
    return {"v": pw}


def g_github(r):
    return {"v": "ghp_" + _s(r, AN, 36)}


def g_github_fg(r):
    return {"v": "github_pat_11" + _s(r, UP + DG, 20) + "_" + _s(r, AN, 59)}


def g_slack(r):
    return {
        "v": f"xoxb-{r.randint(10**10, 10**12)}-{r.randint(10**12, 10**13 - 1)}-{_s(r, AN, 24)}"
    }


def g_slack_hook(r):
    return {
        "v": f"https://hooks.slack.com/services/T{_s(r, UP + DG, 8)}/B{_s(r, UP + DG, 10)}/{_s(r, AN, 24)}"
    }


def g_teams_hook(r):
    return {
        "v": f"https://hartwellbyrne.webhook.office.com/webhookb2/{_uuid(r)}@{_uuid(r)}/IncomingWebhook/{_s(r, HX, 32)}/{_uuid(r)}/V2{_s(r, B64U, 43)}"
    }


def g_sendgrid(r):
    return {"v": "SG." + _s(r, B64U, 22) + "." + _s(r, B64U, 43)}


def g_stripe(r):
    return {"v": "sk_live_51" + _s(r, AN, 97)}


def g_twilio(r):
    return {"v": _s(r, HX, 32), "a": "AC" + _s(r, HX, 32)}


def g_azstorage(r):
    return {"v": _b64bytes(r, 64)}


def g_sas(r):
    return {"v": _b64bytes(r, 32).replace("+", "%2B").replace("/", "%2F").replace("=", "%3D")}


def g_basic(r):
    return {"v": base64.b64encode(("svc-nd-sync:" + _either_pw(r)).encode()).decode()}


def g_bitlocker(r):
    return {"v": "-".join(f"{r.randint(0, 65535) * 11:06d}" for _ in range(8)), "a": _uuid(r, True)}


def g_okta(r):
    return {"v": "00" + _s(r, AN + "-_", 40)}


def g_openai(r):
    return {"v": "sk-proj-" + _s(r, B64U, 64) + "T3BlbkFJ" + _s(r, B64U, 64)}


# ---------------- benign generators ----------------


def b_matter(r):
    return {"v": f"{r.randint(10000, 99999)}.{r.randint(1, 999):04d}"}


def b_bates(r):
    return {"v": f"HBL{r.randint(0, 9999999):07d}"}


def b_bates_range(r):
    a = r.randint(1, 900000)
    return {"v": f"ACME-PROD-{a:08d} - ACME-PROD-{a + r.randint(1, 9999):08d}"}


def b_fedcase(r):
    return {
        "v": f"{r.randint(1, 3)}:{r.randint(19, 26)}-cv-{r.randint(100, 99999):05d}-{_s(r, UP, 3)}"
    }


def b_index(r):
    return {"v": f"{r.randint(150000, 659999)}/{r.randint(2019, 2026)}"}


def b_hex(n, up=False):
    def f(r):
        v = _s(r, HX, n)
        return {"v": v.upper() if up else v}

    return f


def b_int(lo, hi):
    return lambda r: {"v": str(r.randint(lo, hi))}


def b_uuid(r):
    return {"v": _uuid(r)}


def b_uuid_up(r):
    return {"v": _uuid(r, True)}


def b_imanage(r):
    return {"v": f"{r.randint(1000000, 99999999)}.{r.randint(1, 12)}"}


def b_nd(r):
    return {"v": f"{r.randint(4000, 4999)}-{r.randint(1000, 9999)}-{r.randint(1000, 9999)}"}


def b_lit(v):
    return lambda r: {"v": v}


def b_masked(r):
    return {"v": "*" * r.randint(8, 20) + _s(r, AN, 4)}


def b_sshpub(r):
    return {"v": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + _s(r, B64, 43)}


def b_cert(r):
    return {"v": _pem(r, "CERTIFICATE", 900).replace("-----\n", "-----\nMIID", 1)}


def b_sshfp(r):
    return {"v": "SHA256:" + _s(r, B64, 43)}


def b_pk(r):
    return {"v": "pk_live_51" + _s(r, AN, 97)}


def b_recaptcha(r):
    return {"v": "6L" + _s(r, AN, 6) + "AAAAA" + _s(r, B64U, 27)}


def b_revoked(r):
    return {"v": "ghp_" + _s(r, AN, 36)}


def b_serial(r):
    return {"v": _s(r, UP, 1) + _s(r, DG, 3) + _s(r, UP, 1) + _s(r, DG, 6)}


def b_mac(r):
    return {"v": ":".join(_s(r, "0123456789ABCDEF", 2) for _ in range(6))}


def b_ticket(r):
    return {"v": f"INC{r.randint(0, 9999999):07d}"}


def b_sid(r):
    return {
        "v": f"S-1-5-21-{r.randint(10**9, 4 * 10**9)}-{r.randint(10**9, 4 * 10**9)}-{r.randint(10**9, 4 * 10**9)}-{r.randint(1000, 99999)}"
    }


def b_graph(r):
    return {"v": "AAMkAG" + _s(r, AN, 46) + "AAA="}


def b_fedex(r):
    return {"v": " ".join(str(r.randint(1000, 9999)) for _ in range(3))}


def b_stamp(r):
    return {"v": _s(r, HX, 128)}


def b_ikey(r):
    return {"v": "DI" + _s(r, UP + DG, 18)}


def b_wl(r):
    return {"v": f"{r.randint(2015, 2026)} WL {r.randint(100000, 9999999)}"}


def b_digest(r):
    return {"v": "sha256:" + _s(r, HX, 64)}


def b_ctrl(r):
    return {"v": f"REL{r.randint(0, 99999999):08d}"}


def b_xxxx(r):
    return {"v": "x" * r.randint(8, 32)}


# --------------- table: (label, kind, generator, templates) ---------------

SECRET = [
    (
        "aws_secret_access_key",
        g_aws,
        [
            "s3 bucket for relativity processing exports: aws configure w/ key id {a} secret {v} region us-east-1",
            "AWS_ACCESS_KEY_ID={a}\nAWS_SECRET_ACCESS_KEY={v}",
            "[hbl-ediscovery]\naws_access_key_id = {a}\naws_secret_access_key = {v}",
            "| svc-ediscovery-s3 | {a} | {v} | created by ops, rotate Q3 |",
        ],
    ),
    (
        "azure_app_client_secret",
        g_azsecret,
        [
            "M365 app reg 'iManage-Graph-Sync' client id {a}, secret {v} (expires 24mo)",
            "AZURE_CLIENT_ID={a}\nAZURE_CLIENT_SECRET={v}",
            "Connect-MgGraph -ClientSecretCredential (New-Object PSCredential('{a}', (ConvertTo-SecureString '{v}' -AsPlainText -Force))) -TenantId hartwellbyrne.onmicrosoft.com",
            "la nueva clave secreta de la app de DocuSign en Entra es {v} — guardarla antes de cerrar el portal",
            "{v}",
        ],
    ),
    (
        "m365_admin_password",
        g_pw,
        [
            "break-glass GA acct admin-bg@hartwellbyrne.onmicrosoft.com pw {v} (no MFA, excluded from CA)",
            "M365 global admin: itadmin@hartwellbyrne.com / {v}",
            "Connect-ExchangeOnline failed w/ MFA so used the emergency account, password is {v}",
            "[10:42] Dana K: tenant admin pass changed to {v} after the audit, tell nobody outside IT",
        ],
    ),
    (
        "imanage_service_password",
        g_pw,
        [
            "iManage Work svc acct HBL\\svc-imanage pw = {v}  (indexer + WorkSite Communication Server)",
            "imanage.ini: ServiceUser=svc-imanage ServicePassword={v}",
            "DMS indexer runs as svc-imanage, password {v}, don't let it expire again",
            "Mot de passe du compte de service iManage : {v}",
        ],
    ),
    (
        "imanage_api_client_secret",
        g_alnum40,
        [
            "iManage Control Center app 'matter-intake' client_id {a} client_secret {v}",
            "IMANAGE_CLIENT_SECRET={v}",
            "curl -X POST https://cloudimanage.com/auth/oauth2/token -d grant_type=password -d client_id={a} -d client_secret={v} -d username=svc-intake",
            "imanage api secret for the intake bot: {v}",
        ],
    ),
    (
        "netdocuments_client_secret",
        g_alnum40,
        [
            "NetDocuments API app (vault.netvoyage.com) client id {a} secret {v}",
            'ND_CLIENT_SECRET="{v}"',
            "netdocs oauth creds for the records-retention job -> {a} / {v}",
            '  "netdocuments": {"client_id": "{a}", "client_secret": "{v}", "repository": "CA-8F3K2LQ1"}',
        ],
    ),
    (
        "relativity_admin_password",
        g_pw,
        [
            "Relativity Server 2024 admin relativity.admin@kcura.com pw reset to {v}",
            "RelativityOne sys admin (instance hbl.relativity.one): login hbl-sysadmin, pwd {v}",
            "EDDS db sa / {v}  (SQL for Relativity, only on RELSQL01)",
            "reviewer training workspace account: trainer01 — {v}",
        ],
    ),
    (
        "relativity_oauth_client_secret",
        g_alnum40,
        [
            "Relativity OAuth2 client 'Processing Sync' (client credentials) id {a} secret {v}",
            "rel_client_secret: {v}",
            "$body = @{{ client_id='{a}'; client_secret='{v}'; scope='SystemUserInfo'; grant_type='client_credentials' }}",
            "Relativity OAuth client secret for the Trace alerts script is {v}",
        ],
    ),
    (
        "docusign_secret_key",
        g_docusign_secret,
        [
            "DocuSign app: integration key {a}, secret key {v} (auth code grant, prod)",
            "DOCUSIGN_CLIENT_ID={a}\nDOCUSIGN_CLIENT_SECRET={v}",
            "the secret key for the ND->DocuSign connector is {v}; integration key is {a}",
            "| DocuSign prod | IK {a} | secret {v} |",
        ],
    ),
    (
        "docusign_rsa_private_key",
        g_rsa,
        [
            "DocuSign JWT grant keypair for svc-esign (paste into docusign_private.key):\n{v}",
            "{v}",
            "RSA key generated in DocuSign admin > Apps and Keys for the billing integration\n\n{v}\n",
        ],
    ),
    (
        "docusign_access_token_jwt",
        g_jwt,
        [
            "Authorization: Bearer {v}",
            "token from the docusign OAuth playground, good for 8h: {v}",
            'curl -H "Authorization: Bearer {v}" https://na3.docusign.net/restapi/v2.1/accounts',
        ],
    ),
    (
        "adobe_sign_integration_key",
        g_adobe,
        [
            "Adobe Sign integration key (Account > Adobe Sign API > API Information) for the NDSync: {v}",
            "ADOBE_SIGN_INTEGRATION_KEY={v}",
            "Access-Token: {v}",
            "adobe sign key for the engagement letter workflow -> {v}",
        ],
    ),
    (
        "court_efiling_password",
        g_human,
        [
            "PACER / CM-ECF login for the docketing team: hblDocket2 pw {v}",
            "NYSCEF filing agent acct docketing@hartwellbyrne.com, password {v}",
            "TrueFiling CA appellate: user hbl.filing / {v}",
            "Odyssey eFileTX firm admin: efile-admin@hartwellbyrne.com  pw: {v}",
            "Contraseña del portal de presentación electrónica del tribunal (Lexnet no, el de Florida): {v}",
        ],
    ),
    (
        "client_extranet_password",
        g_pw,
        [
            "client extranet (HighQ) login for Acme GC office: acme.gc / {v}",
            "gave Northwind's in-house team extranet access, temp pw {v} — they must change at first login? (it doesn't force it)",
            "extranet.hartwellbyrne.com deal room admin: dealroom-admin  {v}",
            "Kennwort für den Mandanten-Extranet-Zugang (Müller AG): {v}",
        ],
    ),
    (
        "extranet_share_link_token",
        g_ext_link,
        [
            "sent the production to opposing counsel via https://files.hartwellbyrne.com/s/{v} (no login needed, anyone with the link)",
            "share link: https://extranet.hartwellbyrne.com/share?token={v}",
            "ShareFile anon download link for the privilege log https://hbl.sharefile.com/d-s{v}",
        ],
    ),
    (
        "vpn_preshared_key",
        g_psk,
        [
            "site-to-site to the DC: IKEv2, PSK {v}",
            'set vpn ipsec phase1-interface "to-colo" psksecret {v}',
            "FortiGate client VPN group key (branch offices): {v}",
            "pre-shared-key {v}",
        ],
    ),
    (
        "vpn_user_password",
        g_human,
        [
            "GlobalProtect test user gp-test pw {v} (bypasses Duo, for the helpdesk kiosk)",
            "vpn.hartwellbyrne.com  user: litsupport-contractor  pass: {v}",
            "the contract reviewers share one AnyConnect login: reviewpool / {v}",
            "Zugangsdaten VPN für den externen Dienstleister: extdl01, Passwort {v}",
        ],
    ),
    (
        "totp_seed_base32",
        g_totp,
        [
            "otpauth://totp/HBL:svc-relativity?secret={v}&issuer=RelativityOne",
            "MFA seed for the shared docketing account (so the whole team can add it to their authenticator): {v}",
            "Duo can't enroll the scanner service acct, used TOTP instead, key {v}",
            "2FA secret key: {v}",
        ],
    ),
    (
        "mfa_backup_codes",
        g_backup,
        [
            "M365 break-glass recovery codes: {v}",
            "backup codes for PACER's new MFA (docketing acct):\n{v}",
            "NetDocuments admin MFA recovery codes -> {v}",
        ],
    ),
    (
        "mfp_smtp_relay_password",
        g_pw,
        [
            "Ricoh scan-to-email: SMTP smtp.office365.com:587, user scanner@hartwellbyrne.com, pw {v}",
            "Canon imageRUNNER SMTP auth for scan2mail: scan@hbl.law / {v}",
            "SMTP_PASSWORD={v}",
            "scanners send as scanner@ — the mailbox password is {v}, excluded from MFA by CA policy 'Legacy Scanners'",
        ],
    ),
    (
        "mfp_admin_password",
        g_pw,
        [
            "changed the Xerox AltaLink admin pw on all floors from 1111 to {v}",
            "Konica bizhub web admin (Admin mode) password now {v}",
            "MFP admin: {v} (same on 3rd, 7th, 12th floor)",
            "HP E-series EWS admin password set via Web Jetadmin: {v}",
        ],
    ),
    (
        "scan_to_folder_smb_password",
        g_pw,
        [
            "scan-to-folder \\\\fs02\\scans$ uses HBL\\svc-scan pw {v}",
            "net use S: \\\\fs02\\scans$ /user:HBL\\svc-scan {v}",
            "svc-scan password (SMB scan share, printers 1-40): {v}",
        ],
    ),
    (
        "billing_sql_connection_string",
        g_sqlconn,
        [
            "Elite 3E reporting conn: Server=SQL3E01;Database=TE_3E_PROD;User Id=rpt_reader;Password={v};",
            '<add name="Aderant" connectionString="Data Source=ADERANTSQL;Initial Catalog=ExpertPROD;User ID=aderant_app;Password={v}" />',
            "billing db (Aderant Expert) read-only: aderant_ro pwd {v}",
            'ConnectionStrings__Billing="Server=tcp:hbl-billing.database.windows.net,1433;Initial Catalog=billing;User ID=billingsvc;Password={v};Encrypt=True"',
        ],
    ),
    (
        "postgres_url_with_password",
        g_gen,
        [
            "DATABASE_URL=postgresql://intake_app:{v}@pg-intake.internal:5432/matter_intake",
            'psql "postgres://conflicts:{v}@10.20.4.15/conflicts"',
            "conflicts-check db: postgres://conflicts_ro:{v}@pgconf01:5432/conflicts?sslmode=require",
        ],
    ),
    (
        "ldap_bind_password",
        g_pw,
        [
            "ldap bind for the MFP address book: CN=svc-ldap,OU=Service,DC=hbl,DC=local / {v}",
            'ldapsearch -H ldaps://dc01.hbl.local -D "svc-ldap@hbl.local" -w \'{v}\' -b "DC=hbl,DC=local"',
            "BindPassword={v}",
            "the iManage LDAP sync bind acct password is {v}",
        ],
    ),
    (
        "rsa_private_key_pem",
        g_rsa,
        [
            "private key for the extranet wildcard cert (*.hartwellbyrne.com), keep w/ the pfx:\n{v}",
            "{v}",
            "key for SAML signing on the client portal\n```\n{v}\n```",
        ],
    ),
    (
        "openssh_private_key",
        g_openssh,
        [
            "sftp deploy key for the vendor (Epiq) drop box:\n{v}",
            "{v}",
            "id_ed25519 for the backup box, copy to ~/.ssh on jump01\n{v}",
        ],
    ),
    (
        "gcp_service_account_private_key",
        g_gcp,
        [
            '{{"type": "service_account", "project_id": "hbl-translation", "private_key_id": "{a}", "private_key": "{v}", "client_email": "doc-translate@hbl-translation.iam.gserviceaccount.com", "client_id": "{b}"}}',
            'translate-sa.json (Google Translate API for foreign-language review docs):\n{{\n  "type": "service_account",\n  "private_key": "{v}",\n  "client_email": "doc-translate@hbl-translation.iam.gserviceaccount.com"\n}}',
        ],
    ),
    (
        "github_pat_classic",
        g_github,
        [
            "PAT for the intake-bot repo (repo scope): {v}",
            "git clone https://{v}@github.com/hbl-it/matter-intake.git",
            "GITHUB_TOKEN={v}",
            "gh auth login --with-token <<< {v}",
        ],
    ),
    (
        "github_pat_fine_grained",
        g_github_fg,
        [
            "fine-grained token for hbl-it/relativity-scripts (contents rw): {v}",
            "export GH_TOKEN={v}",
            "token: {v}",
        ],
    ),
    (
        "slack_bot_token",
        g_slack,
        [
            "litsupport alerts bot token {v}",
            "SLACK_BOT_TOKEN={v}",
            "curl -H 'Authorization: Bearer {v}' https://slack.com/api/chat.postMessage -d channel=C0LITSUP",
        ],
    ),
    (
        "slack_webhook_url",
        g_slack_hook,
        [
            "processing-job-done webhook -> {v}",
            "SLACK_WEBHOOK={v}",
            'curl -X POST -d \'{{"text":"Relativity job finished"}}\' {v}',
        ],
    ),
    (
        "teams_incoming_webhook_url",
        g_teams_hook,
        [
            "Teams webhook for #eDiscovery-alerts: {v}",
            "$hook = '{v}'",
            "url for the Teams connector that posts scanner errors: {v}",
        ],
    ),
    (
        "sendgrid_api_key",
        g_sendgrid,
        [
            "SendGrid key for extranet notifications {v}",
            "SENDGRID_API_KEY={v}",
            "mail:\n  provider: sendgrid\n  api_key: {v}",
        ],
    ),
    (
        "stripe_live_secret_key",
        g_stripe,
        [
            "client payment portal (retainers) stripe secret: {v}",
            "STRIPE_SECRET_KEY={v}",
            "curl https://api.stripe.com/v1/charges -u {v}:",
        ],
    ),
    (
        "twilio_auth_token",
        g_twilio,
        [
            "Twilio for the SMS court-date reminders: SID {a} token {v}",
            "TWILIO_ACCOUNT_SID={a}\nTWILIO_AUTH_TOKEN={v}",
            "twilio creds {a}:{v}",
        ],
    ),
    (
        "azure_storage_account_key",
        g_azstorage,
        [
            "DefaultEndpointsProtocol=https;AccountName=hblediscoverystg;AccountKey={v};EndpointSuffix=core.windows.net",
            "storage acct hblediscoverystg key1 = {v}",
            'az storage blob upload-batch -d productions --account-name hblediscoverystg --account-key "{v}" -s ./PROD007',
        ],
    ),
    (
        "azure_sas_signature",
        g_sas,
        [
            "SAS for the vendor to upload collections (rw, 30 days): https://hblediscoverystg.blob.core.windows.net/collections?sv=2022-11-02&ss=b&srt=co&sp=rwl&se=2027-01-31T00:00:00Z&spr=https&sig={v}",
            'azcopy copy ./Custodian_07 "https://hblediscoverystg.blob.core.windows.net/intake?sp=racwl&st=2026-12-01&se=2026-12-31&spr=https&sv=2022-11-02&sr=c&sig={v}" --recursive',
            "sig={v}",
        ],
    ),
    (
        "basic_auth_header",
        g_basic,
        [
            "Authorization: Basic {v}",
            'curl -H "Authorization: Basic {v}" https://ndsync.hbl.local/api/status',
            "basic auth header the ND sync service expects: {v}",
        ],
    ),
    (
        "url_embedded_password",
        g_human_url,
        [
            "time entry export: https://billingexport:{v}@timeapi.hbl.local/export?period=2026-11",
            "ftp://hblupload:{v}@ftp.courtreporting-vendor.com/transcripts/",
            "http://admin:{v}@10.30.1.50/ (Ricoh 7th floor web UI)",
        ],
    ),
    (
        "wifi_psk",
        g_human,
        [
            "HBL-Guest wifi password this month: {v}",
            "Wi-Fi corporate (HBL-Staff, WPA2-PSK, not 802.1x yet): {v}",
            "deposition suite wifi for visiting counsel — network HBL-Depo, key {v}",
            "Mot de passe wifi salle de conférence : {v}",
        ],
    ),
    (
        "bitlocker_recovery_key",
        g_bitlocker,
        [
            "BitLocker recovery for LT-0142 (partner laptop, stuck at recovery screen) key id {a} recovery password {v}",
            "{v}",
            "read the partner's recovery key over the phone: {v}",
            "| LT-0377 | {a} | {v} |",
        ],
    ),
    (
        "laps_local_admin_password",
        g_gen,
        [
            "LAPS pw for WS-LIT-044 (reviewer VDI), valid till Friday: {v}",
            "Get-LapsADPassword WS-DOCKET-02 -AsPlainText -> Password: {v}",
            "local admin on the Relativity processing worker RPW03: .\\Administrator / {v}",
        ],
    ),
    (
        "okta_api_token",
        g_okta,
        [
            "Okta API token (super admin, created for the HR sync): {v}",
            "Authorization: SSWS {v}",
            "OKTA_API_TOKEN={v}",
        ],
    ),
    (
        "duo_secret_key",
        g_alnum40,
        [
            "Duo Auth Proxy for VPN: ikey DIWJ8X0M2KQ7ZP4RN5T1 skey {v}",
            "[radius_server_auto]\nikey=DIWJ8X0M2KQ7ZP4RN5T1\nskey={v}\napi_host=api-4f2a91c0.duosecurity.com",
            "duo secret key for the Citrix gateway integration is {v}",
        ],
    ),
    (
        "openai_api_key",
        g_openai,
        [
            "key for the privilege-log summarizer pilot (OpenAI): {v}",
            "OPENAI_API_KEY={v}",
            'client = OpenAI(api_key="{v}")',
        ],
    ),
    (
        "production_volume_password",
        g_gen,
        [
            "PROD007 (Acme v. Northwind) encrypted zip, password to send to opposing counsel in a separate email: {v}",
            "Vol HBL_PROD_012 — 7z pw {v}",
            "7z x HBL_PROD_014.7z -p{v}",
            "Production password for the SEC subpoena response volume: {v}",
            "Contraseña del volumen de producción enviado a la otra parte: {v}",
        ],
    ),
    (
        "sftp_delivery_password",
        g_human,
        [
            "opposing counsel's SFTP for productions: sftp.kirkmore-ediscovery.com user hbl_in pw {v}",
            "sftp hbl_upload@transfer.epiqglobal.com  (pw: {v})",
            "WinSCP saved session 'Consilio drop': host sftp.consilio.com, user hbl-lit, password {v}",
        ],
    ),
    (
        "password_in_prose_no_keyword",
        g_human,
        [
            "Margaret's new Windows login after the reset is {v} — she'll change it Monday",
            "for the docketing shared mailbox just use {v}, same as last year + the new digits",
            "told the temp at reception to sign in to the front desk PC with {v}",
            "the old partner's iManage account still works with {v} if we need to pull his files",
            "Jorge: the login for the court reporter portal is our firm name + {v}? no wait, it's just {v}",
        ],
    ),
]

BENIGN = [
    (
        "client_matter_number",
        b_matter,
        [
            "matter {v} (Acme Corp / Northwind litigation) — new workspace requested",
            "iManage workspace for client-matter {v} created, security = private",
            "time entries on {v} are frozen until the conflict clears",
            "| {v} | Acme Corp | Litigation | Open |",
        ],
    ),
    (
        "bates_number",
        b_bates,
        [
            "the hot doc is {v}, email from CFO",
            "privilege clawback: {v} was produced by mistake",
            "see {v} at p. 3",
            "Bates {v} has a bad OCR layer, re-image",
        ],
    ),
    (
        "bates_range",
        b_bates_range,
        [
            "PROD007 Bates range {v}",
            "volume 12 covers {v}, 48,213 pages",
            "{v}",
            "Die Produktion umfasst die Bates-Nummern {v}.",
        ],
    ),
    (
        "federal_case_number",
        b_fedcase,
        [
            "Case No. {v} (S.D.N.Y.)",
            "filed the motion in {v} via ECF at 11:52pm",
            "NEF for {v}: order granting extension",
            "docket sheet pull for {v} every morning, add to the docketing script",
        ],
    ),
    (
        "state_index_number",
        b_index,
        [
            "NYSCEF Index No. {v}",
            "Index {v}, Sup Ct NY County",
            "e-filed the RJI under index no. {v}",
        ],
    ),
    (
        "document_sha256",
        b_hex(64),
        [
            "SHA-256 of the signed engagement letter: {v}",
            "hash {v} matches the custodian's original",
            "sha256sum PROD007.zip -> {v}",
            "{v}  HBL_PROD_007.zip",
        ],
    ),
    (
        "document_md5_dedupe",
        b_hex(32),
        [
            "Relativity dedupe: MD5 {v} appears 412 times across custodians",
            "MD5Hash field = {v}",
            "global dupe on md5 {v}, suppressed from review",
            "El hash MD5 del documento original es {v}",
        ],
    ),
    (
        "sha1_hash",
        b_hex(40),
        [
            "SHA1 {v} for the native of REL00012345",
            "processing hash (SHA1): {v}",
            "| DOC-0042 | {v} | 2.1 MB |",
        ],
    ),
    (
        "git_commit_sha",
        b_hex(40),
        [
            "deployed the docket-scraper fix at commit {v}",
            "revert {v}, it broke the PACER login step",
            "git checkout {v}",
        ],
    ),
    (
        "relativity_artifact_id",
        b_int(1000000, 9999999),
        [
            "Relativity workspace artifact ID {v} (Acme v. Northwind)",
            "saved search artifact {v} is the privilege screen",
            "ArtifactID={v}",
        ],
    ),
    (
        "relativity_workspace_guid",
        b_uuid,
        [
            "workspace GUID {v} for the template workspace",
            "field Guid {v} = 'Responsiveness'",
            "application guid {v} (Trace install)",
        ],
    ),
    (
        "imanage_document_reference",
        b_imanage,
        [
            "see iManage doc HBL_ACTIVE!{v}",
            "HBL_ACTIVE/{v} is the latest draft of the SPA",
            "doc # {v} checked out by jsmith since Tuesday",
            "iManage-Dok.-Nr. {v} bitte nicht löschen",
        ],
    ),
    (
        "netdocuments_document_id",
        b_nd,
        [
            "ND doc {v} v.3 is the final",
            "NetDocuments ID {v}, cabinet Litigation",
            "link the workspace to {v}",
        ],
    ),
    (
        "docusign_envelope_id",
        b_uuid,
        [
            "DocuSign envelope {v} stuck in 'sent', signer never got it",
            "EnvelopeId: {v} status=completed",
            "voided envelope {v} (wrong engagement letter version)",
        ],
    ),
    (
        "docusign_integration_key_client_id",
        b_uuid,
        [
            "DocuSign integration key (client id, not secret) {v}; secret is in Secret Server",
            "DOCUSIGN_INTEGRATION_KEY={v}",
            "consent URL: https://account.docusign.com/oauth/auth?response_type=code&scope=signature%20impersonation&client_id={v}&redirect_uri=https://esign.hbl.local/callback",
        ],
    ),
    (
        "azure_tenant_or_client_id",
        b_uuid,
        [
            "tenant id {v}",
            "AZURE_TENANT_ID={v}",
            "app reg client id for iManage-Graph-Sync is {v} (secret in vault)",
            "Connect-MgGraph -TenantId {v} -Scopes User.Read.All",
        ],
    ),
    (
        "aws_documented_example_key",
        b_lit("AKIAIOSFODNN7EXAMPLE"),
        [
            "the s3 runbook uses the AWS doc example {v} — replace with the real one from Secret Server",
            "aws_access_key_id = {v}",
            "| example | {v} | from docs.aws.amazon.com, not a real key |",
        ],
    ),
    (
        "aws_documented_example_secret",
        b_lit("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
        [
            "aws_secret_access_key = {v}   # AWS docs example, not ours",
            "template line from the AWS docs: {v}",
            "AWS_SECRET_ACCESS_KEY={v}  # placeholder from the AWS CLI guide",
        ],
    ),
    (
        "angle_placeholder",
        b_lit("<your-token>"),
        [
            "Authorization: Bearer {v}",
            "ND_CLIENT_SECRET={v}",
            "curl -u admin:{v} https://rel.hbl.local/",
        ],
    ),
    (
        "changeme_placeholder",
        b_lit("changeme"),
        [
            "scanner config template: SMTP_PASSWORD={v} (fill in per site)",
            "password: {v}",
            "the vendor's sample imanage.ini ships with ServicePassword={v}",
        ],
    ),
    (
        "env_var_reference",
        b_lit("${RELATIVITY_CLIENT_SECRET}"),
        [
            "client_secret: {v}",
            "set in the pipeline, never in the repo: {v}",
            "RELATIVITY_SECRET={v}",
        ],
    ),
    (
        "env_var_reference_windows",
        b_lit("%SCAN_SMTP_PW%"),
        [
            "the scan profile reads the password from {v}",
            "net use S: \\\\fs02\\scans$ /user:HBL\\svc-scan {v}",
        ],
    ),
    (
        "vault_reference",
        b_lit("Secret Server #4411"),
        [
            "svc-imanage password: see {v}",
            "DocuSign secret key lives in {v} (folder IT/eSign)",
            "pw -> {v}, ask Dana for access",
            "contraseña: en {v}",
        ],
    ),
    (
        "vault_reference_keeper",
        b_lit("Keeper > IT Shared > Relativity > hbl-sysadmin"),
        [
            "RelativityOne sysadmin password is in {v}",
            "password: {v}",
            "Relativity sysadmin: see {v} (MFA required to open)",
        ],
    ),
    (
        "redacted_value",
        b_lit("[REDACTED]"),
        [
            "Elite 3E conn: Server=SQL3E01;Database=TE_3E_PROD;User Id=rpt_reader;Password={v};",
            "PSK {v} (see vault)",
            "M365 break-glass pw: {v}",
        ],
    ),
    (
        "masked_last4",
        b_masked,
        [
            "Stripe key on file ends in {v}",
            "PACER pwd: {v}",
            "Azure secret shown in the portal: {v}",
        ],
    ),
    (
        "password_policy_text",
        b_lit("at least 14 characters"),
        [
            "New firm password policy: {v}, no reuse of last 24, MFA required for VPN and extranet.",
            "Extranet client passwords must be {v} and include a number and a symbol; expire every 90 days.",
            "Politique de mots de passe : {v}, pas de mot du dictionnaire seul.",
        ],
    ),
    (
        "ssh_public_key",
        b_sshpub,
        [
            "added vendor's public key to the sftp jail: {v} epiq-transfer",
            "{v} litsupport@jump01",
            "authorized_keys on sftp01 now has {v} (Consilio)",
        ],
    ),
    (
        "pem_certificate",
        b_cert,
        [
            "extranet wildcard cert (public part, chain goes after it):\n{v}",
            "{v}",
            "SAML signing cert to upload to RelativityOne IdP settings:\n{v}",
        ],
    ),
    (
        "cert_thumbprint",
        b_hex(40, True),
        [
            "wildcard cert thumbprint {v}, expires 2027-03",
            "Set-AuthConfig -NewCertificateThumbprint {v}",
            "ADFS token-signing thumbprint: {v}",
        ],
    ),
    (
        "ssh_host_fingerprint",
        b_sshfp,
        [
            "sftp.consilio.com host key fingerprint ED25519 {v} (verified by phone)",
            "ECDSA key fingerprint is {v}.",
            "expected fingerprint for transfer.epiqglobal.com: {v}",
        ],
    ),
    (
        "stripe_publishable_key",
        b_pk,
        [
            "publishable key for the payment page JS (public): {v}",
            "STRIPE_PUBLISHABLE_KEY={v}",
            "Stripe.js init: Stripe('{v}')",
        ],
    ),
    (
        "recaptcha_site_key",
        b_recaptcha,
        [
            "reCAPTCHA site key on the extranet login page: {v}",
            '<div class="g-recaptcha" data-sitekey="{v}"></div>',
            "RECAPTCHA_SITE_KEY={v}",
        ],
    ),
    (
        "stripe_documented_test_card",
        b_lit("4242 4242 4242 4242"),
        [
            "test the retainer payment in test mode with card {v}, any future date, any CVC",
            "card: {v}",
            "Stripe's documented test Visa {v} declines in live mode, that's expected",
        ],
    ),
    (
        "github_pat_stated_revoked",
        b_revoked,
        [
            "REVOKED 2026-11-30: old intake-bot PAT {v} was pasted in Teams, deleted in GitHub and replaced",
            "token {v} is revoked (GitHub confirms 'Bad credentials'), ignore it in the old runbook",
        ],
    ),
    (
        "printer_serial_number",
        b_serial,
        [
            "Ricoh IM C4500 7th floor, serial {v}, lease ends 2027",
            "Xerox service call for S/N {v}: fuser error",
            "| 12F-MFP-02 | Konica bizhub C450i | {v} |",
        ],
    ),
    (
        "mac_address",
        b_mac,
        [
            "reserved DHCP for the 3rd floor scanner MAC {v}",
            "MAC {v} → 10.30.1.50",
            "the rogue device on Guest wifi was {v}",
        ],
    ),
    (
        "ticket_number",
        b_ticket,
        [
            "see {v} for the Relativity upgrade plan",
            "{v}: partner can't open ND from Outlook",
            "closed {v}, scanner SMTP fixed",
        ],
    ),
    (
        "bitlocker_key_id",
        b_uuid_up,
        [
            "BitLocker key ID {v} (recovery password in Entra, not here)",
            "laptop LT-0142 shows recovery key ID {v}; looked it up in Intune",
            "Key ID: {v}",
        ],
    ),
    (
        "windows_sid",
        b_sid,
        [
            "orphaned SID {v} on the scans$ share ACL",
            "svc-imanage SID is {v}",
            "ACE for {v} removed",
        ],
    ),
    (
        "graph_message_id",
        b_graph,
        [
            "Graph message id for the misdirected email: {v}",
            "Search-Mailbox hit: ItemId {v}",
            "purged item {v} from all mailboxes (compliance search)",
        ],
    ),
    (
        "fedex_tracking_number",
        b_fedex,
        [
            "hard drive w/ collection for custodian 07 shipped FedEx {v}",
            "tracking: {v}",
            "encrypted drive to Epiq, FedEx Priority {v}, password sent separately by phone",
        ],
    ),
    (
        "cmecf_document_stamp",
        b_stamp,
        [
            "NEF document stamp: [STAMP dcecfStamp_ID=1046708974 [Date=12/3/2026] [FileNumber=31245789-0] [{v}]]",
            "ecf stamp hash {v} — used to verify the filed PDF",
        ],
    ),
    (
        "efiling_envelope_number",
        b_int(10000000, 99999999),
        [
            "eFileTX envelope # {v} accepted by the clerk",
            "Odyssey envelope {v} rejected: missing lead document",
            "Envelope Number: {v}",
        ],
    ),
    (
        "duo_integration_key_ikey",
        b_ikey,
        [
            "Duo integration key for the VPN app: {v} (secret key + api host in Secret Server)",
            "ikey={v}",
            "Citrix gateway Duo ikey {v}",
        ],
    ),
    (
        "westlaw_citation",
        b_wl,
        [
            "cite: Acme Corp. v. Northwind Inc., {v} (S.D.N.Y. 2024)",
            "{v} — TAR/predictive coding case the team keeps citing",
            "add {v} to the e-discovery sanctions memo",
        ],
    ),
    (
        "container_image_digest",
        b_digest,
        [
            "docket-scraper image pinned to {v}",
            "image: hblacr.azurecr.io/intake-bot@{v}",
            "rolled back to digest {v}",
        ],
    ),
    (
        "load_file_control_number",
        b_ctrl,
        [
            "\u00feControlNumber\u00fe\u0014\u00feBegBates\u00fe\n\u00fe{v}\u00fe\u0014\u00feHBL0000001\u00fe",
            "control number {v} has no native, only TIFFs",
            "overlay failed at {v}: field 'Custodian' too long",
        ],
    ),
    (
        "forensic_image_hash",
        b_hex(32),
        [
            "FTK Imager: Custodian07_Laptop.E01 acquisition MD5 {v}, verification MD5 {v} — verified",
            "E01 acquired, MD5 checksum: {v}",
            "chain of custody form: image hash {v}",
        ],
    ),
    (
        "xxxx_placeholder",
        b_xxxx,
        [
            "client_secret={v}",
            "Password: {v} (real one in vault)",
            "sk_live_{v}",
        ],
    ),
    (
        "uuid_correlation_id",
        b_uuid,
        [
            "RelativityOne support asked for the correlation id: {v}",
            "M365 sign-in failure, request id {v}, CA policy blocked legacy auth",
            "x-ms-request-id: {v}",
        ],
    ),
    (
        "netdocuments_repository_id",
        lambda r: {"v": "CA-" + _s(r, UP + DG, 8)},
        [
            "ND repository id {v} (prod cabinet)",
            "repository: {v}",
            "our NetDocuments repo is {v}, support needs it for every ticket",
        ],
    ),
    (
        "docusign_api_account_id",
        b_uuid,
        [
            "DocuSign API Account ID {v} (prod), base URI https://na3.docusign.net",
            "accountId={v}",
            "GET /restapi/v2.1/accounts/{v}/envelopes?from_date=2026-11-01",
        ],
    ),
    (
        "adobe_sign_agreement_id",
        lambda r: {"v": "CBJCHBCAABAA" + _s(r, B64U, 32)},
        [
            "Adobe Sign agreement {v} is out for signature with the client",
            "agreementId: {v} status SIGNED",
            "cancelled agreement {v}, wrong fee schedule attached",
        ],
    ),
    (
        "collection_id",
        lambda r: {"v": f"COL-{r.randint(2020, 2026)}-{r.randint(1, 9999):04d}"},
        [
            "custodian 07 laptop collection {v} received at the lab",
            "{v}: 212 GB PST + OneDrive",
            "chain of custody updated for {v}",
        ],
    ),
    (
        "private_ip_address",
        lambda r: {"v": f"10.{r.randint(0, 255)}.{r.randint(0, 255)}.{r.randint(1, 254)}"},
        [
            "RELSQL01 is {v}",
            "scanner on 7th floor moved to {v}, update the DNS A record",
            "ping {v}",
        ],
    ),
    (
        "base64_pdf_fragment",
        lambda r: {
            "v": base64.b64encode(
                b"%PDF-1.7\n%" + bytes(r.randrange(256) for _ in range(45))
            ).decode()
        },
        [
            "the DocuSign API returned documentBase64 starting with {v}... so the PDF is there",
            '"documentBase64": "{v}"',
            "paste from the Adobe Sign webhook payload: {v}",
        ],
    ),
    (
        "azure_subscription_id",
        b_uuid,
        [
            "eDiscovery storage lives in subscription {v}",
            "az account set --subscription {v}",
            "Subscription ID: {v}",
        ],
    ),
    (
        "attorney_bar_number",
        lambda r: {"v": str(r.randint(1000000, 5999999))},
        [
            "NY bar reg no. {v} needed for the NYSCEF account setup",
            "attorney registration {v} (J. Hartwell) linked to the e-filing acct",
        ],
    ),
    (
        "otp_code_already_used",
        lambda r: {"v": f"{r.randint(0, 999999):06d}"},
        [
            "Duo push failed so I typed the passcode {v} from the hardware token; it worked and is single-use, already spent",
            "user read me the SMS code {v} (used, expired 30s later)",
        ],
    ),
]


def _render(t, d):
    out = t
    for k, val in d.items():
        out = out.replace("{" + k + "}", val)
    return out.replace("{{", "{").replace("}}", "}")


def corpus() -> list[dict]:
    r = random.Random(SEED)
    rows = []
    for label, table in (("secret", SECRET), ("benign", BENIGN)):
        for kind, gen, templates in table:
            for t in templates:
                d = gen(r)
                text = _render(t, d)
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

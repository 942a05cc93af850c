# ruff: noqa: E501
"""Blind secret-detector corpus 66: managed service provider (MSP) operations.

Brief: memory notes of an MSP supporting many small businesses -- RMM/PSA tools, remote-support sessions, per-client Microsoft 365 and Google tenants, firewalls and VPNs, backup appliances and cloud backup, registrars and DNS, printers and NAS boxes, documentation wikis -- with live credentials next to look-alikes such as tenant ids, ticket numbers, serials, licence keys, MAC addresses, hashes, public keys and placeholders.

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Run: python blind_secrets_66.py [out.jsonl]

Kinds, secret: m365_global_admin_password, entra_app_client_secret, gcp_service_account_private_key, google_oauth_client_secret, firewall_admin_password, fortigate_api_token, ipsec_preshared_key, wireguard_private_key, openvpn_static_key, datto_rmm_api_secret, connectwise_manage_private_key, psa_basic_auth_header, remote_support_unattended_password, itglue_api_key, hudu_api_key, godaddy_api_secret, cloudflare_api_token, domain_epp_auth_code, backup_encryption_passphrase, backblaze_b2_application_key, s3_compatible_secret_access_key, azure_storage_account_key, azure_sas_token, nas_admin_password, smtp_relay_password, m365_app_password, sendgrid_api_key, snmp_rw_community, snmpv3_auth_passphrase, ssh_private_key, url_embedded_credentials, wifi_wpa2_psk, bitlocker_recovery_key, laps_local_admin_password, sql_connection_string_password, slack_webhook_url, teams_incoming_webhook_url, github_personal_access_token, ncentral_api_jwt, duo_secret_key, password_manager_master_password, totp_seed, meraki_api_key, stripe_live_secret_key, idrac_ilo_password, domain_admin_password
Kinds, benign: m365_tenant_id, entra_app_client_id, entra_secret_id_not_value, psa_ticket_number, hardware_serial_number, mac_address, windows_product_key_licence, git_commit_sha, sha256_file_hash, md5_checksum, ssh_public_key, ssh_host_key_fingerprint, tls_certificate_pem, certificate_thumbprint, placeholder_value, env_var_reference, password_vault_reference, masked_or_redacted_secret, aws_documented_example_key, stripe_publishable_key, recaptcha_site_key, password_policy_text, revoked_key_said_revoked, remote_support_device_id, dkim_public_key_txt, domain_verification_txt, ip_address_and_subnet, azure_subscription_id, rmm_device_uid, aws_access_key_id_alone, duo_integration_key_alone, itglue_document_url_ids, bitlocker_key_protector_id, powershell_encoded_command_benign, firmware_version_string, vendor_default_credential_doc, av_licence_key, pgp_key_fingerprint, google_workspace_customer_id, autopilot_hardware_hash, stripe_test_card_number, wifi_ssid_name, psa_api_public_key_alone, backup_job_id, expired_otp_code, wireguard_public_key, remote_session_guid, dns_record_values
"""

import base64
import json
import random
import string
import sys

SEED = 6666

ALNUM = string.ascii_letters + string.digits
LOWER = string.ascii_lowercase
UPPER = string.ascii_uppercase
DIGITS = string.digits
HEX = "0123456789abcdef"
HEXU = "0123456789ABCDEF"
B64URL = ALNUM + "-_"
B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
PWSYM = "!@#$%^&*-_=+?"
WORDS = [
    "Tulip",
    "Harbor",
    "Copper",
    "Maple",
    "Falcon",
    "River",
    "Summer",
    "Winter",
    "Pepper",
    "Orange",
    "Bakery",
    "Dental",
    "Granite",
    "Willow",
    "Tiger",
    "Rocket",
    "Sunset",
    "Coffee",
    "Bluebird",
    "Lemon",
    "Garden",
    "Panther",
    "Autumn",
    "Marble",
    "Cedar",
    "Velvet",
    "Anchor",
    "Bridge",
    "Canyon",
    "Meadow",
]


def s(r, n, alpha=ALNUM):
    return "".join(r.choice(alpha) for _ in range(n))


def rbytes(r, n):
    return bytes(r.getrandbits(8) for _ in range(n))


def b64(r, n):
    return base64.b64encode(rbytes(r, n)).decode()


def b64url(r, n):
    return base64.urlsafe_b64encode(rbytes(r, n)).decode().rstrip("=")


def guid(r):
    h = s(r, 32, HEX)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{r.choice('89ab')}{h[17:20]}-{h[20:]}"


def human_pw(r):
    style = r.randrange(4)
    w = r.choice(WORDS)
    if style == 0:
        return f"{w}{r.randrange(10, 9999)}{r.choice('!@#$?')}"
    if style == 1:
        return f"{w}{r.choice(WORDS).lower()}{r.randrange(1, 99)}{r.choice('!*#')}"
    if style == 2:
        return f"{r.choice('!#$')}{w}{r.randrange(1990, 2027)}{s(r, 2, DIGITS)}"
    return f"{w.lower()}{r.choice('.-_')}{r.choice(WORDS)}{r.randrange(100, 999)}"


def gen_pw(r, n=16, sym=PWSYM):
    core = list(s(r, n - 3) + r.choice(UPPER) + r.choice(DIGITS) + r.choice(sym))
    r.shuffle(core)
    return "".join(core)


def pem_body(r, prefix, nbytes, width=64):
    body = prefix + b64(r, nbytes)
    return "\n".join(body[i : i + width] for i in range(0, len(body), width))


def ipv4(r):
    return f"{r.choice([81, 84, 86, 145, 185, 213, 62])}.{r.randrange(1, 255)}.{r.randrange(1, 255)}.{r.randrange(2, 254)}"


# ---------------------------------------------------------------- secret kinds


def k_m365_global_admin_password(r):
    p = [human_pw(r) for _ in range(4)]
    return [
        (
            f"Client Hendriks Bakkerij M365: breakglass GA is bgadmin@hendriksbakkerij.onmicrosoft.com / {p[0]} -- excluded from CA policies, do NOT enable MFA on it",
            p[0],
        ),
        (
            f"onboarding notes acme-dental: global admin creds handed over by previous IT guy, admin@acmedental.com pw {p[1]} (need to rotate after cutover)",
            p[1],
        ),
        (
            f"| Tenant | GA account | Password |\n|---|---|---|\n| vanderlinden.nl | it-admin@vanderlinden.nl | {p[2]} |",
            p[2],
        ),
        (
            f"Kerstin said the new Global Admin passwort für Müller GmbH ist {p[3]} , hat sie am Telefon durchgegeben",
            p[3],
        ),
    ]


def k_entra_app_client_secret(r):
    def sec():
        return s(r, 3, ALNUM) + "8Q~" + s(r, 34, ALNUM + "_.~-")

    v = [sec() for _ in range(4)]
    return [
        (
            f"Graph app reg for the licence report script (client Oakridge Law): tenant oakridgelaw.onmicrosoft.com, client secret {v[0]} expires 2027-06",
            v[0],
        ),
        (
            f'$ClientSecret = "{v[1]}"\nConnect-MgGraph -TenantId $TenantId -ClientSecretCredential $cred',
            v[1],
        ),
        (f"AZURE_CLIENT_SECRET={v[2]}", v[2]),
        (
            f"new secret value for the CIPP SAM app (copy it now, portal hides it later):\n{v[3]}",
            v[3],
        ),
    ]


def k_gcp_service_account_private_key(r):
    rows = []
    for client, proj in [
        ("greenfield-school", "gf-workspace-sync"),
        ("Bright Accountancy", "bright-gws-admin"),
        ("Lakeside Vets", "lakeside-dwd"),
        ("Peak Physio", "peak-backup-gws"),
    ]:
        key = (
            "-----BEGIN PRIVATE KEY-----\\n"
            + pem_body(r, "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ", 600).replace(
                "\n", "\\n"
            )
            + "\\n-----END PRIVATE KEY-----\\n"
        )
        kid = s(r, 40, HEX)
        doc = (
            '{"type": "service_account", "project_id": "'
            + proj
            + '", "private_key_id": "'
            + kid
            + '", "private_key": "'
            + key
            + '", "client_email": "backupify@'
            + proj
            + '.iam.gserviceaccount.com"}'
        )
        rows.append(
            (
                f"{client} Google Workspace domain-wide delegation key for the backup tool, json as downloaded:\n{doc}",
                key,
            )
        )
    return rows


def k_google_oauth_client_secret(r):
    v = ["GOCSPX-" + s(r, 28, B64URL) for _ in range(4)]
    return [
        (
            f"Google OAuth client for the GWS migration tool (client: Lakeside Vets) -- client id 4{s(r, 11, DIGITS)}-{s(r, 32, LOWER + DIGITS)}.apps.googleusercontent.com secret {v[0]}",
            v[0],
        ),
        (f"GOOGLE_CLIENT_SECRET={v[1]}", v[1]),
        (f"--client-secret {v[2]}", v[2]),
        (f"bitte nicht teilen: client_secret für das Workspace-Projekt lautet {v[3]}", v[3]),
    ]


def k_firewall_admin_password(r):
    p = [human_pw(r), gen_pw(r, 14), human_pw(r), gen_pw(r, 18)]
    return [
        (
            f"FortiGate 60F @ Oakridge Law (fw01.oakridge.lan) admin / {p[0]}  -- MGMT only from our office IP",
            p[0],
        ),
        (
            f"sonicwall tz370 at the dentist, user admin pass {p[1]} (changed from default during install 14/03)",
            p[1],
        ),
        (f"pfsense at Peak Physio login is admin {p[2]}, webgui on 8443", p[2]),
        (
            f"Watchguard T40 Firebox status: admin account password reset to {p[3]} after the firmware upgrade, update IT Glue pls",
            p[3],
        ),
    ]


def k_fortigate_api_token(r):
    v = [s(r, 30, ALNUM) for _ in range(4)]
    return [
        (f"FortiGate REST API admin 'rmm-api' token for backups: {v[0]}", v[0]),
        (
            f'curl -k -H "Authorization: Bearer {v[1]}" https://fw01.lakesidevets.local/api/v2/monitor/system/status',
            v[1],
        ),
        (f"fortigate:\n  host: 10.20.0.1\n  api_key: {v[2]}\n  verify_ssl: false", v[2]),
        (f"https://203.0.113.14:8443/api/v2/cmdb/firewall/address?access_token={v[3]}", v[3]),
    ]


def k_ipsec_preshared_key(r):
    v = [gen_pw(r, 24), s(r, 32, ALNUM), human_pw(r), gen_pw(r, 20)]
    return [
        (
            f"S2S VPN Oakridge main <-> Oakridge branch: IKEv2, AES256/SHA256, DH14, PSK {v[0]}",
            v[0],
        ),
        (f"set psksecret {v[1]}", v[1]),
        (f"Azure VNG connection 'conn-hq' shared key = {v[2]} (same on the SonicWall side)", v[2]),
        (f"pre-shared key voor de VPN tunnel naar kantoor Utrecht: {v[3]}", v[3]),
    ]


def k_wireguard_private_key(r):
    v = [b64(r, 32) for _ in range(4)]
    return [
        (f"[Interface]\nPrivateKey = {v[0]}\nAddress = 10.99.0.2/32\nDNS = 10.20.0.10", v[0]),
        (
            f"wg tunnel for the tech laptop (mike): privkey {v[1]} -- peer is the UDM at Bright Accountancy",
            v[1],
        ),
        (
            f"echo '{v[2]}' > /etc/wireguard/private.key && chmod 600 /etc/wireguard/private.key",
            v[2],
        ),
        (f"Unifi teleport/wireguard client conf private key:\n{v[3]}", v[3]),
    ]


def k_openvpn_static_key(r):
    rows = []
    for ctx in [
        "ta.key for the pfSense OpenVPN server at Peak Physio:",
        "tls-auth key (client configs need it inline):",
        "<tls-crypt>",
        "OpenVPN static key, copied from the old Synology VPN Server package:",
    ]:
        lines = "\n".join(s(r, 32, HEX) for _ in range(16))
        block = (
            f"-----BEGIN OpenVPN Static key V1-----\n{lines}\n-----END OpenVPN Static key V1-----"
        )
        tail = "\n</tls-crypt>" if ctx == "<tls-crypt>" else ""
        rows.append((f"{ctx}\n{block}{tail}", block))
    return rows


def k_datto_rmm_api_secret(r):
    keys = [s(r, 20, UPPER + DIGITS) for _ in range(4)]
    secs = [s(r, 32, UPPER + DIGITS) for _ in range(4)]
    return [
        (
            f"Datto RMM API user 'psa-sync': key {keys[0]} secret {secs[0]} (merlot platform)",
            secs[0],
        ),
        (f"$env:DRMM_API_SECRET = '{secs[1]}'", secs[1]),
        (
            f"drmm:\n  api_url: https://merlot-api.centrastage.net\n  api_key: {keys[2]}\n  api_secret: {secs[2]}",
            secs[2],
        ),
        (
            f"Rotated the RMM API secret, new one is {secs[3]} - updated the Hudu integration too",
            secs[3],
        ),
    ]


def k_connectwise_manage_private_key(r):
    v = [s(r, 16, ALNUM) for _ in range(4)]
    return [
        (
            f"CW Manage API member 'automate-int' public key {s(r, 16, ALNUM)} private key {v[0]}",
            v[0],
        ),
        (f"CWM_PRIVATE_KEY={v[1]}", v[1]),
        (f"| integration | pub | priv |\n| BrightGauge | {s(r, 16, ALNUM)} | {v[2]} |", v[2]),
        (f"for the PSA script the privkey is {v[3]} (company id mspco)", v[3]),
    ]


def k_psa_basic_auth_header(r):
    rows = []
    for tmpl in [
        'curl -H "Authorization: Basic {h}" -H "clientId: {cid}" https://api-eu.myconnectwise.net/v4_6_release/apis/3.0/service/tickets',
        "headers = {{'Authorization': 'Basic {h}', 'clientId': '{cid}'}}",
        "Authorization: Basic {h}",
        "Postman env for the Autotask/CW sync -> auth header value: Basic {h}",
    ]:
        raw = f"mspco+{s(r, 16, ALNUM)}:{s(r, 16, ALNUM)}"
        h = base64.b64encode(raw.encode()).decode()
        rows.append((tmpl.format(h=h, cid=guid(r)), h))
    return rows


def k_remote_support_unattended_password(r):
    v = [gen_pw(r, 12), human_pw(r), s(r, 10, ALNUM), gen_pw(r, 16)]
    return [
        (
            f"TeamViewer on the reception PC at Hendriks (ID 1 482 993 017) unattended pw: {v[0]}",
            v[0],
        ),
        (
            f"AnyDesk unattended access on the CNC workstation -> {v[1]} , ask Piet before connecting",
            v[1],
        ),
        (f"Splashtop streamer security code for the accounting server: {v[2]}", v[2]),
        (f"contraseña de acceso desatendido del AnyDesk en recepción: {v[3]}", v[3]),
    ]


def k_itglue_api_key(r):
    v = ["ITG." + s(r, 32, HEX) + "." + s(r, 86, B64URL) for _ in range(4)]
    return [
        (f"IT Glue API key (read/write, no password access) for the Hudu migration: {v[0]}", v[0]),
        (
            f"curl -H 'x-api-key: {v[1]}' -H 'Content-Type: application/vnd.api+json' https://api.eu.itglue.com/organizations",
            v[1],
        ),
        (f"ITGLUE_API_KEY={v[2]}", v[2]),
        (f"itglue key w/ password access (careful!!)\n{v[3]}", v[3]),
    ]


def k_hudu_api_key(r):
    v = [s(r, 24, ALNUM) for _ in range(4)]
    return [
        (f"Hudu API key for the asset sync job: {v[0]} (instance docs.mspco.nl)", v[0]),
        (
            f"Invoke-RestMethod -Uri https://docs.mspco.nl/api/v1/companies -Headers @{{'x-api-key'='{v[1]}'}}",
            v[1],
        ),
        (f"HUDU_API_KEY={v[2]}", v[2]),
        (f"New-HuduAPIKey {v[3]}\nNew-HuduBaseURL https://docs.mspco.nl", v[3]),
    ]


def k_godaddy_api_secret(r):
    keys = [s(r, 12, ALNUM) + "_" + s(r, 22, ALNUM) for _ in range(4)]
    secs = [s(r, 22, ALNUM) for _ in range(4)]
    return [
        (f"GoDaddy prod API for the DNS automation: key {keys[0]} secret {secs[0]}", secs[0]),
        (
            f'curl -H "Authorization: sso-key {keys[1]}:{secs[1]}" https://api.godaddy.com/v1/domains/brightaccountancy.co.uk/records',
            f"{keys[1]}:{secs[1]}",
        ),
        (f"GODADDY_API_SECRET={secs[2]}", secs[2]),
        (
            f"certbot dns plugin creds\ndns_godaddy_key = {keys[3]}\ndns_godaddy_secret = {secs[3]}",
            secs[3],
        ),
    ]


def k_cloudflare_api_token(r):
    v = [s(r, 40, B64URL) for _ in range(4)]
    return [
        (f"Cloudflare token (Zone:DNS:Edit, all client zones) -> {v[0]}", v[0]),
        (
            f'curl -H "Authorization: Bearer {v[1]}" https://api.cloudflare.com/client/v4/zones',
            v[1],
        ),
        (f"dns_cloudflare_api_token = {v[2]}", v[2]),
        (f"CF_API_TOKEN={v[3]}  # used by the acme.sh job on the jump host", v[3]),
    ]


def k_domain_epp_auth_code(r):
    v = [
        gen_pw(r, 16, "!#$%&*+-?"),
        s(r, 12, ALNUM),
        gen_pw(r, 14, "!#$%&*+-?"),
        s(r, 16, ALNUM + "#$%"),
    ]
    return [
        (
            f"transfer of lakesidevets.com from Network Solutions -> EPP/auth code {v[0]} (valid 5 days)",
            v[0],
        ),
        (f"authinfo code for oakridgelaw.nl: {v[1]} -- start transfer at TransIP tomorrow", v[1]),
        (f"Domain transfer ticket: client sent the auth code in the ticket reply: {v[2]}", v[2]),
        (f"code de transfert (AUTH-INFO) pour boulangerie-martin.fr : {v[3]}", v[3]),
    ]


def k_backup_encryption_passphrase(r):
    v = [human_pw(r) + " " + r.choice(WORDS).lower(), gen_pw(r, 24), human_pw(r), gen_pw(r, 32)]
    return [
        (
            f"Veeam B&R at Hendriks: job 'Daily-VMs' encryption password is \"{v[0]}\" -- WITHOUT IT THE BACKUPS ARE UNREADABLE, keep in IT Glue",
            v[0],
        ),
        (f"Datto SIRIS agent encryption passphrase for the SQL box: {v[1]}", v[1]),
        (f"Synology Hyper Backup encryption pwd (Peak Physio, task to C2): {v[2]}", v[2]),
        (f"restic repo at wasabi: RESTIC_PASSWORD={v[3]}", v[3]),
    ]


def k_backblaze_b2_application_key(r):
    kids = ["005" + s(r, 22, HEX) for _ in range(4)]
    v = ["K005" + s(r, 27, ALNUM + "+/") for _ in range(4)]
    return [
        (f"B2 bucket msp-nas-offsite: keyID {kids[0]} applicationKey {v[0]}", v[0]),
        (f"b2 authorize-account {kids[1]} {v[1]}", v[1]),
        (
            f"Synology Cloud Sync -> Backblaze B2\n  Access key: {kids[2]}\n  Secret key: {v[2]}",
            v[2],
        ),
        (f"B2_APPLICATION_KEY={v[3]}", v[3]),
    ]


def k_s3_compatible_secret_access_key(r):
    ids = ["AKIA" + s(r, 16, UPPER + "234567") for _ in range(4)]
    v = [s(r, 40, ALNUM + "+/") for _ in range(4)]
    return [
        (
            f"Wasabi sub-account for Lakeside Vets MSP360 backups: access {s(r, 20, UPPER + DIGITS)} secret {v[0]}",
            v[0],
        ),
        (f"[msp-backups]\naws_access_key_id = {ids[1]}\naws_secret_access_key = {v[1]}", v[1]),
        (
            f"AWS_ACCESS_KEY_ID={ids[2]} AWS_SECRET_ACCESS_KEY={v[2]} aws s3 ls s3://oakridge-veeam-sobr",
            v[2],
        ),
        (f"the IAM user for the Veeam capacity tier, secret: {v[3]}", v[3]),
    ]


def k_azure_storage_account_key(r):
    v = [b64(r, 64) for _ in range(4)]
    return [
        (
            f"DefaultEndpointsProtocol=https;AccountName=stoakridgebackup;AccountKey={v[0]};EndpointSuffix=core.windows.net",
            v[0],
        ),
        (f"storage acct key1 for the Azure Files share at Peak Physio: {v[1]}", v[1]),
        (
            f"net use Z: \\\\sthendriksfiles.file.core.windows.net\\data /user:localhost\\sthendriksfiles {v[2]}",
            v[2],
        ),
        (f"AZURE_STORAGE_KEY={v[3]}", v[3]),
    ]


def k_azure_sas_token(r):
    rows = []
    for tmpl in [
        "https://stmspbackup.blob.core.windows.net/veeam?{q}",
        "azcopy copy 'C:\\Exports\\*' 'https://stbrightarchive.blob.core.windows.net/pst-import?{q}' --recursive",
        "SAS for the M365 PST import (Network upload), expires end of month: {q}",
        'AZ_SAS="?{q}"',
    ]:
        sig = b64(r, 32).replace("+", "%2B").replace("/", "%2F").replace("=", "%3D")
        q = f"sv=2022-11-02&ss=b&srt=co&sp=rwdlac&se=2027-01-31T18:00:00Z&st=2026-12-01T09:00:00Z&spr=https&sig={sig}"
        rows.append((tmpl.format(q=q), q))
    return rows


def k_nas_admin_password(r):
    v = [human_pw(r), gen_pw(r, 14), human_pw(r), human_pw(r)]
    return [
        (
            f"Synology DS920+ at Hendriks (nas01, 192.168.10.20) admin account 'mspadmin' pw {v[0]}",
            v[0],
        ),
        (f"QNAP TS-453D: admin/{v[1]} -- default admin disabled, use this one", v[1]),
        (f"nas login for bright accountancy is mspadmin and {v[2]}", v[2]),
        (f"Le mot de passe du NAS Synology chez Martin est {v[3]}", v[3]),
    ]


def k_smtp_relay_password(r):
    v = [human_pw(r), gen_pw(r, 16), human_pw(r), gen_pw(r, 20)]
    return [
        (
            f"Scan-to-email on the Konica C300i at Oakridge: smtp.office365.com:587, user scanner@oakridgelaw.nl, pw {v[0]}",
            v[0],
        ),
        (f"Ricoh MP C3004 SMTP auth -> scan@lakesidevets.com / {v[1]}", v[1]),
        (f"smtp2go relay user for all client printers: printer-relay@mspco.nl pass {v[2]}", v[2]),
        (f"SMTP_PASSWORD={v[3]}", v[3]),
    ]


def k_m365_app_password(r):
    v = [s(r, 16, LOWER) for _ in range(4)]
    return [
        (
            f"app password for the old MFP (basic auth exception) on scanner@hendriks.nl: {v[0]}",
            v[0],
        ),
        (
            f"Gmail app password for the printer relay at Greenfield school: {' '.join(v[1][i : i + 4] for i in range(0, 16, 4))}",
            " ".join(v[1][i : i + 4] for i in range(0, 16, 4)),
        ),
        (f"Outlook 2010 on Piet's pc still needs an app pw, generated {v[2]}", v[2]),
        (f"app-wachtwoord voor de scanner: {v[3]}", v[3]),
    ]


def k_sendgrid_api_key(r):
    v = ["SG." + s(r, 22, B64URL) + "." + s(r, 43, B64URL) for _ in range(4)]
    return [
        (f"SendGrid key for the client alerts (mail send only): {v[0]}", v[0]),
        (f"SENDGRID_API_KEY={v[1]}", v[1]),
        (f"relay: smtp.sendgrid.net:587 user 'apikey' password {v[2]}", v[2]),
        (f"{v[3]}", v[3]),
    ]


def k_snmp_rw_community(r):
    v = [
        s(r, 12, ALNUM),
        r.choice(WORDS).lower() + "RW" + s(r, 4, DIGITS),
        s(r, 16, ALNUM),
        r.choice(WORDS) + s(r, 3, DIGITS) + "rw",
    ]
    return [
        (f"snmp-server community {v[0]} RW 10", v[0]),
        (
            f"HP switches at Oakridge: read-write community string {v[1]} (read-only is public, don't care)",
            v[1],
        ),
        (f"snmpset -v2c -c {v[2]} 10.20.0.5 1.3.6.1.2.1.1.6.0 s 'Server room'", v[2]),
        (
            f"RW community for the printers at Greenfield (used by the RMM to reset counters) = {v[3]}",
            v[3],
        ),
    ]


def k_snmpv3_auth_passphrase(r):
    v = [gen_pw(r, 16) for _ in range(4)]
    return [
        (
            f"snmp-server user rmm-mon RMMGROUP v3 auth sha {v[0]} priv aes 128 {s(r, 16, ALNUM)}",
            v[0],
        ),
        (
            f"snmpwalk -v3 -l authPriv -u rmmmon -a SHA -A '{v[1]}' -x AES -X 'X{s(r, 14, ALNUM)}' 10.30.0.1",
            v[1],
        ),
        (f"SNMPv3 for the Meraki MX at Hendriks: user auvik, auth pass {v[2]}", v[2]),
        (f"v3 authPassphrase: {v[3]}", v[3]),
    ]


def k_ssh_private_key(r):
    rows = []
    for ctx in [
        "jump host key for the client Linux boxes (id_ed25519):",
        "deploy key on the backup VM, ~/.ssh/id_rsa:",
        "",
        "Unifi UDM ssh key Mike pasted in Teams:",
    ]:
        if "rsa" in ctx:
            block = (
                "-----BEGIN RSA PRIVATE KEY-----\n"
                + pem_body(r, "MIIEpAIBAAKCAQEA", 1180)
                + "\n-----END RSA PRIVATE KEY-----"
            )
        else:
            block = (
                "-----BEGIN OPENSSH PRIVATE KEY-----\n"
                + pem_body(
                    r,
                    "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZWQyNTUxOQAAACD",
                    230,
                    70,
                )
                + "\n-----END OPENSSH PRIVATE KEY-----"
            )
        rows.append(((ctx + "\n" if ctx else "") + block, block))
    return rows


def k_url_embedded_credentials(r):
    v = [
        gen_pw(r, 14, "!*-_"),
        human_pw(r).replace("#", "").replace("?", "").replace("@", ""),
        s(r, 18, ALNUM),
        gen_pw(r, 12, "-_"),
    ]
    return [
        (
            f"UniFi controller backup pull: https://mspadmin:{v[0]}@unifi.mspco.nl:8443/api/backup",
            f"mspadmin:{v[0]}",
        ),
        (f"ftp://scans:{v[1]}@192.168.1.50/scans  (old Kyocera scan to folder)", f"scans:{v[1]}"),
        (f"rtsp://viewer:{v[2]}@cam-entrance.hendriks.local:554/stream1", f"viewer:{v[2]}"),
        (
            f"git clone https://deploy:{v[3]}@git.mspco.nl/scripts/rmm-components.git",
            f"deploy:{v[3]}",
        ),
    ]


def k_wifi_wpa2_psk(r):
    v = [
        human_pw(r),
        gen_pw(r, 20),
        r.choice(WORDS) + r.choice(WORDS) + s(r, 4, DIGITS),
        gen_pw(r, 16),
    ]
    return [
        (f"Staff wifi Oakridge (SSID OAK-STAFF) WPA2 key: {v[0]}", v[0]),
        (f"WIFI:T:WPA;S:Hendriks-Office;P:{v[1]};;", v[1]),
        (
            f"corp ssid at lakeside vets is LV-Clinic, password {v[2]} (guest one is on the reception desk)",
            v[2],
        ),
        (f"WLAN-Schlüssel für das Büro-Netz (nicht Gast): {v[3]}", v[3]),
    ]


def k_bitlocker_recovery_key(r):
    def rk():
        return "-".join(f"{r.randrange(0, 720896 // 11) * 11:06d}" for _ in range(8))

    v = [rk() for _ in range(4)]
    return [
        (
            f"BitLocker recovery for LT-OAK-014 (Sarah's laptop, stuck at recovery screen): {v[0]}",
            v[0],
        ),
        (f"Recovery key: {v[1]}\nKey ID: {guid(r).upper()[:8]}", v[1]),
        (f"read the 48 digit key to the user over the phone -> {v[2]}", v[2]),
        (f"herstelsleutel voor de laptop van Piet: {v[3]}", v[3]),
    ]


def k_laps_local_admin_password(r):
    v = [gen_pw(r, 14, "!#%+-.") for _ in range(4)]
    return [
        (f"LAPS pw for HEN-WS-07 (.\\Administrator), expires tomorrow: {v[0]}", v[0]),
        (
            f"Get-LapsAADPassword -DeviceIds PC-LV-03 -IncludePasswords -AsPlainText\nPassword : {v[1]}",
            v[1],
        ),
        (f"local admin on the server room kiosk pc = {v[2]}", v[2]),
        (
            f"ComputerName  Account        Password\n------------  -------        --------\nBA-LT-22      Administrator  {v[3]}",
            v[3],
        ),
    ]


def k_sql_connection_string_password(r):
    v = [
        gen_pw(r, 16, "!#*-_"),
        human_pw(r).replace(";", ""),
        gen_pw(r, 12, "!#*-_"),
        gen_pw(r, 20, "-_"),
    ]
    return [
        (f"Server=HEN-SQL01\\EXACT;Database=Exact001;User Id=sa;Password={v[0]};", v[0]),
        (
            f"Dental practice software DB: Data Source=10.40.0.10;Initial Catalog=DentalPro;uid=dpuser;pwd={v[1]}",
            v[1],
        ),
        (f"mysql -h 10.20.0.30 -u glpi -p'{v[2]}' glpi", v[2]),
        (f"DATABASE_URL=postgresql://rmmreport:{v[3]}@pg01.mspco.nl:5432/reporting", v[3]),
    ]


def k_slack_webhook_url(r):
    v = [
        f"https://hooks.slack.com/services/T{s(r, 8, UPPER + DIGITS)}/B{s(r, 10, UPPER + DIGITS)}/{s(r, 24, ALNUM)}"
        for _ in range(4)
    ]
    return [
        (f"RMM alert webhook -> #noc-alerts: {v[0]}", v[0]),
        (
            f"curl -X POST -H 'Content-type: application/json' --data '{{\"text\":\"backup failed\"}}' {v[1]}",
            v[1],
        ),
        (f"SLACK_WEBHOOK_URL={v[2]}", v[2]),
        (f"{v[3]}", v[3]),
    ]


def k_teams_incoming_webhook_url(r):
    v = [
        f"https://mspco.webhook.office.com/webhookb2/{guid(r)}@{guid(r)}/IncomingWebhook/{s(r, 32, HEX)}/{guid(r)}/V2{s(r, 43, B64URL)}"
        for _ in range(4)
    ]
    return [
        (f"Teams webhook for the Backups channel (Veeam ONE notifications): {v[0]}", v[0]),
        (
            f"Invoke-RestMethod -Method Post -Uri '{v[1]}' -Body $json -ContentType 'application/json'",
            v[1],
        ),
        (f"teams_webhook: {v[2]}", v[2]),
        (f"webhook van het NOC kanaal:\n{v[3]}", v[3]),
    ]


def k_github_personal_access_token(r):
    v = [
        "ghp_" + s(r, 36, ALNUM),
        "github_pat_" + s(r, 22, ALNUM) + "_" + s(r, 59, ALNUM),
        "ghp_" + s(r, 36, ALNUM),
        "ghp_" + s(r, 36, ALNUM),
    ]
    return [
        (f"PAT for pulling the RMM script repo on the build box: {v[0]}", v[0]),
        (f"fine-grained token (repo mspco/intune-baselines, read-only contents) {v[1]}", v[1]),
        (f"export GITHUB_TOKEN={v[2]}", v[2]),
        (
            f"git remote set-url origin https://x-access-token:{v[3]}@github.com/mspco/client-scripts.git",
            v[3],
        ),
    ]


def k_ncentral_api_jwt(r):
    rows = []
    for tmpl in [
        "N-central API-only user JWT (user api-automation@mspco.nl): {t}",
        "NCENTRAL_JWT={t}",
        "curl -X POST https://ncentral.mspco.nl/api/auth/authenticate -H 'Authorization: Bearer {t}'",
        "jwt for the n-able integration, never expires:\n{t}",
    ]:
        hdr = "eyJhbGciOiJIUzI1NiJ9"
        payload = (
            base64.urlsafe_b64encode(
                json.dumps(
                    {
                        "iss": "N-able",
                        "userid": r.randrange(100000000, 999999999),
                        "iat": r.randrange(1700000000, 1790000000),
                    }
                ).encode()
            )
            .decode()
            .rstrip("=")
        )
        t = f"{hdr}.{payload}.{b64url(r, 32)}"
        rows.append((tmpl.format(t=t), t))
    return rows


def k_duo_secret_key(r):
    v = [s(r, 40, ALNUM) for _ in range(4)]
    return [
        (
            f"Duo Auth API for the RD Gateway at Oakridge: ikey DI{s(r, 18, UPPER + DIGITS)} skey {v[0]} host api-{s(r, 8, HEX)}.duosecurity.com",
            v[0],
        ),
        (
            f"[radius_server_auto]\nikey=DI{s(r, 18, UPPER + DIGITS)}\nskey={v[1]}\napi_host=api-{s(r, 8, HEX)}.duosecurity.com",
            v[1],
        ),
        (f"duo secret key (Windows Logon app, Hendriks): {v[2]}", v[2]),
        (f"DUO_SKEY={v[3]}", v[3]),
    ]


def k_password_manager_master_password(r):
    v = [
        f"{r.choice(WORDS).lower()}-{r.choice(WORDS).lower()}-{r.choice(WORDS).lower()}-{r.randrange(10, 99)}"
        for _ in range(2)
    ] + [human_pw(r), gen_pw(r, 22)]
    return [
        (f"Keeper master pw for the shared msp-ops account: {v[0]}", v[0]),
        (
            f"Bitwarden org admin (ops@mspco.nl) master password {v[1]} -- emergency access only",
            v[1],
        ),
        (
            f"if the IT Glue vault is down, the breakglass 1Password account is noc@mspco.nl with {v[2]}",
            v[2],
        ),
        (f"Hoofdwachtwoord van de Passportal-kluis: {v[3]}", v[3]),
    ]


def k_totp_seed(r):
    v = [s(r, 32, B32) for _ in range(4)]
    return [
        (f"otpauth://totp/GoDaddy:dns@mspco.nl?secret={v[0]}&issuer=GoDaddy", v[0]),
        (
            f"MFA seed for the shared registrar account (add to your authenticator): {' '.join(v[1][i : i + 4] for i in range(0, 32, 4))}",
            " ".join(v[1][i : i + 4] for i in range(0, 32, 4)),
        ),
        (f"TOTP secret for breakglass GA (Oakridge) in case the yubikey is lost: {v[2]}", v[2]),
        (f"2fa key for the Pax8 login: {v[3]}", v[3]),
    ]


def k_meraki_api_key(r):
    v = [s(r, 40, HEX) for _ in range(4)]
    return [
        (f"Meraki dashboard API key (org: Lakeside Vets) {v[0]}", v[0]),
        (
            f"curl -H 'X-Cisco-Meraki-API-Key: {v[1]}' https://api.meraki.com/api/v1/organizations",
            v[1],
        ),
        (f"MERAKI_DASHBOARD_API_KEY={v[2]}", v[2]),
        (
            f"curl -H 'Authorization: Bearer {v[3]}' https://api.meraki.com/api/v1/networks/L_{s(r, 18, DIGITS)}/devices",
            v[3],
        ),
    ]


def k_stripe_live_secret_key(r):
    v = ["sk_live_" + s(r, 99, ALNUM) for _ in range(2)] + [
        "rk_live_" + s(r, 99, ALNUM),
        "sk_live_" + s(r, 24, ALNUM),
    ]
    return [
        (f"Webshop Boulangerie Martin (WooCommerce) Stripe secret: {v[0]}", v[0]),
        (f"STRIPE_SECRET_KEY={v[1]}", v[1]),
        (f"restricted key for the invoicing integration (charges write) {v[2]}", v[2]),
        (f"old stripe key still in wp-config on the shop: define('STRIPE_SK', '{v[3]}');", v[3]),
    ]


def k_idrac_ilo_password(r):
    v = [gen_pw(r, 12), human_pw(r), gen_pw(r, 16), human_pw(r)]
    return [
        (f"iDRAC on HEN-HV01 (https://10.10.0.5) root / {v[0]}", v[0]),
        (f"iLO5 for the DL380 at Oakridge: Administrator pw {v[1]} (sticker pw was changed)", v[1]),
        (f"racadm -r 10.40.0.6 -u root -p '{v[2]}' serveraction powercycle", v[2]),
        (f"IPMI of the backup server: ADMIN {v[3]}", v[3]),
    ]


def k_domain_admin_password(r):
    v = [human_pw(r), gen_pw(r, 20), human_pw(r), gen_pw(r, 16)]
    return [
        (f"AD domain admin at Hendriks: HENDRIKS\\msp-da  {v[0]}", v[0]),
        (f"runas /user:OAKRIDGE\\admin.msp cmd -- pw {v[1]}", v[1]),
        (
            f"svc account for Veeam (bright.local\\svc-veeam, Domain Admins, ugh) password={v[2]}",
            v[2],
        ),
        (f"Piet heeft het domeinbeheerderswachtwoord gewijzigd naar {v[3]}", v[3]),
    ]


SECRET_KINDS = [
    k_m365_global_admin_password,
    k_entra_app_client_secret,
    k_gcp_service_account_private_key,
    k_google_oauth_client_secret,
    k_firewall_admin_password,
    k_fortigate_api_token,
    k_ipsec_preshared_key,
    k_wireguard_private_key,
    k_openvpn_static_key,
    k_datto_rmm_api_secret,
    k_connectwise_manage_private_key,
    k_psa_basic_auth_header,
    k_remote_support_unattended_password,
    k_itglue_api_key,
    k_hudu_api_key,
    k_godaddy_api_secret,
    k_cloudflare_api_token,
    k_domain_epp_auth_code,
    k_backup_encryption_passphrase,
    k_backblaze_b2_application_key,
    k_s3_compatible_secret_access_key,
    k_azure_storage_account_key,
    k_azure_sas_token,
    k_nas_admin_password,
    k_smtp_relay_password,
    k_m365_app_password,
    k_sendgrid_api_key,
    k_snmp_rw_community,
    k_snmpv3_auth_passphrase,
    k_ssh_private_key,
    k_url_embedded_credentials,
    k_wifi_wpa2_psk,
    k_bitlocker_recovery_key,
    k_laps_local_admin_password,
    k_sql_connection_string_password,
    k_slack_webhook_url,
    k_teams_incoming_webhook_url,
    k_github_personal_access_token,
    k_ncentral_api_jwt,
    k_duo_secret_key,
    k_password_manager_master_password,
    k_totp_seed,
    k_meraki_api_key,
    k_stripe_live_secret_key,
    k_idrac_ilo_password,
    k_domain_admin_password,
]


# ---------------------------------------------------------------- benign kinds


def b_m365_tenant_id(r):
    v = [guid(r) for _ in range(4)]
    return [
        (
            f"Oakridge Law tenant id {v[0]} (oakridgelaw.onmicrosoft.com), GDAP relationship approved 02/11",
            v[0],
        ),
        (f"Connect-MgGraph -TenantId {v[1]} -Scopes 'User.Read.All'", v[1]),
        (
            f"| client | tenant id | primary domain |\n| Hendriks | {v[2]} | hendriksbakkerij.nl |",
            v[2],
        ),
        (f"Tenant-ID von Müller GmbH: {v[3]}", v[3]),
    ]


def b_entra_app_client_id(r):
    v = [guid(r) for _ in range(4)]
    return [
        (f"CIPP SAM app client id {v[0]} -- secret lives in Key Vault, not here", v[0]),
        (f"AZURE_CLIENT_ID={v[1]}", v[1]),
        (f"Application (client) ID: {v[2]}", v[2]),
        (
            f"app reg 'Veeam M365 backup' appId {v[3]} needs admin consent again after the permission change",
            v[3],
        ),
    ]


def b_entra_secret_id_not_value(r):
    v = [guid(r) for _ in range(4)]
    return [
        (f"client secret ID (not the value!) {v[0]} expires 2027-03-01, set reminder in PSA", v[0]),
        (f"Secret ID: {v[1]}  Description: licence-report  Expires: 6/30/2027", v[1]),
        (f"Remove-MgApplicationPassword -ApplicationId $app.Id -KeyId {v[2]}", v[2]),
        (f"keyId {v[3]} is the old secret, deleted it", v[3]),
    ]


def b_psa_ticket_number(r):
    v = [
        f"T{r.randrange(20260000, 20269999)}.{r.randrange(1, 9999):04d}",
        f"#{r.randrange(100000, 999999)}",
        f"SR-{r.randrange(10000, 99999)}",
        f"{r.randrange(1000000, 9999999)}",
    ]
    return [
        (
            f"Autotask ticket {v[0]} - printer offline at Greenfield, closed after driver reinstall",
            v[0],
        ),
        (f"see CW ticket {v[1]} for the whole Exchange migration saga", v[1]),
        (f"Vendor case with Fortinet {v[2]}, RMA approved for the 60F", v[2]),
        (f"Microsoft support case {v[3]} opened for the stuck mailbox move", v[3]),
    ]


def b_hardware_serial_number(r):
    v = [
        s(r, 7, UPPER.replace("O", "").replace("I", "") + DIGITS),
        "PF" + s(r, 6, UPPER + DIGITS),
        "FGT60F" + s(r, 10, UPPER + DIGITS),
        s(r, 4, DIGITS) + "PCN" + s(r, 6, DIGITS),
    ]
    return [
        (f"Dell service tag {v[0]} (Latitude 5440, warranty to 2028)", v[0]),
        (f"Lenovo S/N {v[1]} - replaced keyboard under warranty", v[1]),
        (
            f"FortiGate serial: {v[2]} -- register on support.fortinet.com under the client account",
            v[2],
        ),
        (f"Synology DS920+ serial {v[3]}", v[3]),
    ]


def b_mac_address(r):
    def mac(sep=":"):
        return sep.join(s(r, 2, HEXU) for _ in range(6))

    v = [mac(), mac("-"), mac().lower(), s(r, 4, HEX) + "." + s(r, 4, HEX) + "." + s(r, 4, HEX)]
    return [
        (f"DHCP reservation for the Konica at Oakridge: MAC {v[0]} -> 10.20.0.40", v[0]),
        (f"Physical Address. . . . . . . . . : {v[1]}", v[1]),
        (
            f"unknown device on the guest vlan, mac {v[2]}, vendor lookup says Espressif (smart plug?)",
            v[2],
        ),
        (f"show mac address-table | i {v[3]}", v[3]),
    ]


def b_windows_product_key_licence(r):
    al = "BCDFGHJKMPQRTVWXY2346789"
    v = ["-".join(s(r, 5, al) for _ in range(5)) for _ in range(4)]
    return [
        (
            f"Office 2019 HB volume licence (Hendriks, 3 seats) key {v[0]} -- licence, not a login",
            v[0],
        ),
        (f"slmgr /ipk {v[1]}", v[1]),
        (f"Win11 Pro upgrade key from the reseller invoice: {v[2]}", v[2]),
        (f"productsleutel Windows Server 2022 Std (OEM sticker): {v[3]}", v[3]),
    ]


def b_git_commit_sha(r):
    v = [s(r, 40, HEX), s(r, 7, HEX), s(r, 40, HEX), s(r, 12, HEX)]
    return [
        (f"rmm-components repo: reverted the bad Defender script in commit {v[0]}", v[0]),
        (f"git cherry-pick {v[1]}", v[1]),
        (f"Intune baseline v3 deployed from {v[2]} on all pilot clients", v[2]),
        (f"fixed in {v[3]} (the printer mapping script)", v[3]),
    ]


def b_sha256_file_hash(r):
    v = [s(r, 64, HEX) for _ in range(3)] + [s(r, 64, HEXU)]
    return [
        (
            f"Huntress flagged C:\\Users\\Public\\svc.exe, SHA256 {v[0]} -- quarantined, no other hits",
            v[0],
        ),
        (f"Get-FileHash .\\ScreenConnect.ClientSetup.msi -> {v[1]}, matches vendor page", v[1]),
        (f"sha256sum DSM_DS920+_72806.pat\n{v[2]}  DSM_DS920+_72806.pat", v[2]),
        (f"Algorithm : SHA256\nHash      : {v[3]}\nPath      : C:\\Temp\\FortiClientVPN.exe", v[3]),
    ]


def b_md5_checksum(r):
    v = [s(r, 32, HEX) for _ in range(3)] + [s(r, 32, HEXU)]
    return [
        (f"firmware image md5 {v[0]} verified before flashing the switch", v[0]),
        (f"md5: {v[1]}", v[1]),
        (f"The IOC list from the vendor has md5 {v[2]} (not seen in our fleet)", v[2]),
        (f"certutil -hashfile backup.vbk MD5 -> {v[3]}", v[3]),
    ]


def b_ssh_public_key(r):
    v = [
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + b64(r, 32)[:43],
        "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ" + b64(r, 256)[:340],
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + b64(r, 32)[:43],
        "ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBB"
        + b64(r, 64)[:86],
    ]
    return [
        (f"add Mike's public key to the jump host authorized_keys: {v[0]} mike@mspco", v[0]),
        (f"{v[1]} backup@hen-bkp01", v[1]),
        (f"pubkey for the UDM ssh (public, fine to share): {v[2]}", v[2]),
        (f"authorized_keys on the pfSense:\n{v[3]} noc", v[3]),
    ]


def b_ssh_host_key_fingerprint(r):
    v = ["SHA256:" + b64(r, 32)[:43] for _ in range(3)] + [
        ":".join(s(r, 2, HEX) for _ in range(16))
    ]
    return [
        (
            f"first connect to bkp01 showed ED25519 key fingerprint is {v[0]} -- verified on console",
            v[0],
        ),
        (f"known host fp for the client sftp: {v[1]}", v[1]),
        (f"256 {v[2]} root@nas01 (ED25519)", v[2]),
        (f"old switch shows MD5 fingerprint {v[3]}", v[3]),
    ]


def b_tls_certificate_pem(r):
    rows = []
    for ctx in [
        "Root CA of the FortiGate SSL inspection, push via Intune to Oakridge devices:",
        "server.crt for the RD Gateway:",
        "",
        "chain cert from Sectigo for mail.lakesidevets.com",
    ]:
        block = (
            "-----BEGIN CERTIFICATE-----\n"
            + pem_body(r, "MIIDazCCAlOgAwIBAgIU", 820)
            + "\n-----END CERTIFICATE-----"
        )
        rows.append(((ctx + "\n" if ctx else "") + block, block))
    return rows


def b_certificate_thumbprint(r):
    v = [s(r, 40, HEXU) for _ in range(3)] + [" ".join(s(r, 2, HEX) for _ in range(20))]
    return [
        (f"RD Gateway cert thumbprint {v[0]} (expires 2027-02)", v[0]),
        (f"Get-ChildItem Cert:\\LocalMachine\\My\\{v[1]}", v[1]),
        (f"ADFS token-signing thumbprint: {v[2]}", v[2]),
        (f"Zertifikat-Fingerabdruck (SHA1): {v[3]}", v[3]),
    ]


def b_placeholder_value(r):
    return [
        (
            "template for new client onboarding: GA password: <set-by-client>, breakglass: <generate in IT Glue>",
            "<set-by-client>",
        ),
        ("api_key: <your-hudu-api-key>", "<your-hudu-api-key>"),
        ("PSK = changeme   # placeholder in the sample config, real one is in IT Glue", "changeme"),
        ("FORTIGATE_TOKEN=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"),
    ]


def b_env_var_reference(r):
    return [
        ("connect script reads $env:CW_PRIVATE_KEY, never hardcode it", "$env:CW_PRIVATE_KEY"),
        ("password: ${NAS_ADMIN_PASSWORD}", "${NAS_ADMIN_PASSWORD}"),
        ("docker run -e HUDU_API_KEY=$HUDU_API_KEY mspco/asset-sync", "$HUDU_API_KEY"),
        ("client_secret = os.environ['AZURE_CLIENT_SECRET']", "os.environ['AZURE_CLIENT_SECRET']"),
    ]


def b_password_vault_reference(r):
    v = [
        str(r.randrange(1000000, 9999999)),
        f"{s(r, 26, LOWER + DIGITS)}",
        str(r.randrange(10000, 99999)),
        guid(r),
    ]
    return [
        (
            f"Firewall admin pw is in IT Glue: https://mspco.eu.itglue.com/{r.randrange(1000000, 9999999)}/passwords/{v[0]}",
            v[0],
        ),
        (f"op://MSP-Clients/{v[1]}/password", v[1]),
        (f"Keeper record UID {v[2]} has the NAS login (shared folder 'Hendriks')", v[2]),
        (f"Azure Key Vault secret kv-msp-prod/oakridge-sam-secret version {v[3]}", v[3]),
    ]


def b_masked_or_redacted_secret(r):
    v = [
        "sk_live_" + "*" * 20 + s(r, 4, ALNUM),
        "ITG." + s(r, 4, HEX) + "…[redacted]",
        "*" * 12,
        "GOCSPX-****" + s(r, 4, B64URL),
    ]
    return [
        (f"Stripe dashboard shows the key as {v[0]} -- rotate if the agency still has it", v[0]),
        (f"log line: Using IT Glue key {v[1]}", v[1]),
        (f"psk: {v[2]} (masked in the export)", v[2]),
        (f"client secret shown as {v[3]} in the console, full value gone", v[3]),
    ]


def b_aws_documented_example_key(r):
    return [
        ("AWS docs example, do not use: AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE"),
        (
            "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY   (sample from the CLI docs, used in the training slide)",
            "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        ),
        ("Wasabi KB example uses access key AKIAIOSFODNN7EXAMPLE as well", "AKIAIOSFODNN7EXAMPLE"),
        (
            "readme for the s3 backup script: export AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE",
            "AKIAIOSFODNN7EXAMPLE",
        ),
    ]


def b_stripe_publishable_key(r):
    v = ["pk_live_" + s(r, 99, ALNUM) for _ in range(2)] + [
        "pk_test_" + s(r, 99, ALNUM),
        "pk_live_" + s(r, 24, ALNUM),
    ]
    return [
        (
            f"Publishable key on the bakery webshop checkout page (public, it's in the html): {v[0]}",
            v[0],
        ),
        (f"STRIPE_PUBLISHABLE_KEY={v[1]}", v[1]),
        (f"test mode pk for the staging shop: {v[2]}", v[2]),
        (f'data-key="{v[3]}"', v[3]),
    ]


def b_recaptcha_site_key(r):
    v = ["6L" + s(r, 38, B64URL) for _ in range(3)]
    return [
        (f"reCAPTCHA site key for the contact form at lakesidevets.com: {v[0]} (public)", v[0]),
        (f'<div class="g-recaptcha" data-sitekey="{v[1]}"></div>', v[1]),
        (f"Turnstile/recaptcha: sitekey {v[2]}, the secret is in the WP plugin settings", v[2]),
        (
            "Google's test site key for dev forms: 6LeIxAcTAAAAAJcZVRqyHh4xZZz8aNa4ZQxzF8aN (always passes)",
            "6LeIxAcTAAAAAJcZVRqyHh4xZZz8aNa4ZQxzF8aN",
        ),
    ]


def b_password_policy_text(r):
    return [
        (
            "Client password policy (standard tier): min 14 chars, no expiry, banned list incl. company name + season+year like Summer2024!",
            "Summer2024!",
        ),
        (
            "Never store passwords in tickets. Use the IT Glue password object and link it; techs who paste creds in ticket notes get a talking-to.",
            "IT Glue password object",
        ),
        (
            "LAPS: 20 chars, complexity 4, rotate after use, post-auth action reset+logoff",
            "20 chars",
        ),
        (
            "Richtlinie: Passwörter mindestens 12 Zeichen, keine Wiederverwendung der letzten 24",
            "12 Zeichen",
        ),
    ]


def b_revoked_key_said_revoked(r):
    v = [
        "SG." + s(r, 22, B64URL) + "." + s(r, 43, B64URL),
        "ghp_" + s(r, 36, ALNUM),
        s(r, 40, HEX),
        "GOCSPX-" + s(r, 28, B64URL),
    ]
    return [
        (
            f"REVOKED 03/12: the SendGrid key {v[0]} leaked in a public repo, deleted in the console, new key issued (in vault)",
            v[0],
        ),
        (f"old PAT {v[1]} -- revoked by GitHub secret scanning, dead", v[1]),
        (f"Meraki key {v[2]} was revoked when Jan left; kept here only to match audit logs", v[2]),
        (f"deleted OAuth client secret {v[3]} (client reset it, no longer valid)", v[3]),
    ]


def b_remote_support_device_id(r):
    v = [
        " ".join(str(r.randrange(100, 999)) for _ in range(3)),
        str(r.randrange(100000000, 1999999999)),
        str(r.randrange(100000000, 999999999)),
        str(r.randrange(1000000000, 1999999999)),
    ]
    return [
        (f"TeamViewer ID of the reception pc at Lakeside: 1 {v[0]}", v[0]),
        (f"AnyDesk address {v[1]} (CNC pc, Hendriks)", v[1]),
        (f"customer reads out her TV id {v[2]}, connected via quick support", v[2]),
        (f"RustDesk ID: {v[3]}", v[3]),
    ]


def b_dkim_public_key_txt(r):
    v = [
        "v=DKIM1; k=rsa; p=MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA" + b64(r, 270)[:352]
        for _ in range(3)
    ] + ["v=DKIM1; k=rsa; p=MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQ" + b64(r, 128)[:171]]
    return [
        (f'google._domainkey.greenfieldschool.org TXT "{v[0]}"', v[0]),
        (f"DKIM record for Mailchimp at the bakery (public DNS record):\n{v[1]}", v[1]),
        (f"selector1._domainkey TXT {v[2]}", v[2]),
        (f"old 1024-bit dkim on the registrar, replace: {v[3]}", v[3]),
    ]


def b_domain_verification_txt(r):
    v = [
        f"MS=ms{r.randrange(10000000, 99999999)}",
        "google-site-verification=" + s(r, 43, B64URL),
        "atlassian-domain-verification=" + s(r, 64, B64URL + "/+"),
        f"apple-domain-verification={s(r, 16, ALNUM)}",
    ]
    return [
        (f"add TXT @ {v[0]} to verify oakridgelaw.nl in M365", v[0]),
        (f'@ TXT "{v[1]}"', v[1]),
        (f"TXT record for Jira verification at Peak Physio: {v[2]}", v[2]),
        (f"DNS-TXT-Eintrag zur Verifizierung: {v[3]}", v[3]),
    ]


def b_ip_address_and_subnet(r):
    v = [
        ipv4(r),
        f"10.{r.randrange(0, 255)}.{r.randrange(0, 255)}.0/24",
        ipv4(r),
        f"192.168.{r.randrange(0, 255)}.{r.randrange(2, 254)}",
    ]
    return [
        (f"Oakridge WAN static IP {v[0]}, gw .1, ISP KPN zakelijk", v[0]),
        (f"new VLAN 30 for cameras: {v[1]}", v[1]),
        (f"whitelist our office IP {v[2]} on the client firewalls for mgmt", v[2]),
        (f"printer moved to {v[3]}, updated the GPO", v[3]),
    ]


def b_azure_subscription_id(r):
    v = [guid(r) for _ in range(4)]
    return [
        (f"CSP Azure plan subscription for Oakridge: {v[0]}", v[0]),
        (f"az account set --subscription {v[1]}", v[1]),
        (
            f"/subscriptions/{v[2]}/resourceGroups/rg-backup/providers/Microsoft.Storage/storageAccounts/stoakridgebackup",
            v[2],
        ),
        (f"Pax8 subscription id {v[3]} = M365 Business Premium x12", v[3]),
    ]


def b_rmm_device_uid(r):
    v = [guid(r) for _ in range(3)] + [str(r.randrange(100000, 999999))]
    return [
        (f"Datto RMM device UID {v[0]} (HEN-WS-07), offline since Friday", v[0]),
        (f"site uid for Lakeside Vets in RMM: {v[1]}", v[1]),
        (f"ScreenConnect session for HEN-SQL01 -> SessionID={v[2]}", v[2]),
        (f"NinjaOne node id {v[3]}", v[3]),
    ]


def b_aws_access_key_id_alone(r):
    v = ["AKIA" + s(r, 16, UPPER + "234567") for _ in range(4)]
    return [
        (f"CloudTrail shows calls from access key id {v[0]} (the veeam user) -- expected", v[0]),
        (
            f"IAM user backup-oakridge has key {v[1]}, last used 2 days ago; secret is only in Veeam",
            v[1],
        ),
        (
            f"aws iam update-access-key --access-key-id {v[2]} --status Inactive --user-name old-backup",
            v[2],
        ),
        (f"key id on the Wasabi report: {v[3]}", v[3]),
    ]


def b_duo_integration_key_alone(r):
    v = ["DI" + s(r, 18, UPPER + DIGITS) for _ in range(4)]
    return [
        (f"Duo app 'RD Gateway' integration key {v[0]} -- skey in IT Glue", v[0]),
        (f"ikey={v[1]}\napi_host=api-{s(r, 8, HEX)}.duosecurity.com", v[1]),
        (f"which Duo app is {v[2]}? looks like the old OWA one, can delete", v[2]),
        (f"Duo integratiesleutel: {v[3]}", v[3]),
    ]


def b_itglue_document_url_ids(r):
    v = [
        f"https://mspco.eu.itglue.com/{r.randrange(1000000, 9999999)}/docs/{r.randrange(1000000, 9999999)}"
        for _ in range(2)
    ] + [
        f"https://docs.mspco.nl/kb/{s(r, 12, LOWER + DIGITS)}",
        f"https://mspco.eu.itglue.com/{r.randrange(1000000, 9999999)}/configurations/{r.randrange(10000000, 99999999)}",
    ]
    return [
        (f"firewall runbook: {v[0]}", v[0]),
        (f"onboarding checklist lives at {v[1]}", v[1]),
        (f"Hudu KB article on resetting the Konica scan profile: {v[2]}", v[2]),
        (f"config record for the NAS {v[3]}", v[3]),
    ]


def b_bitlocker_key_protector_id(r):
    v = ["{" + guid(r).upper() + "}" for _ in range(4)]
    return [
        (
            f"Recovery key ID: {v[0]}  (first 8 chars shown on the blue screen, look it up in Entra)",
            v[0],
        ),
        (f"manage-bde -protectors -get C: -> ID: {v[1]}", v[1]),
        (f"key protector {v[2]} backed up to Azure AD OK", v[2]),
        (f"BitLocker-Schlüssel-ID {v[3]}", v[3]),
    ]


def b_powershell_encoded_command_benign(r):
    rows = []
    for tmpl in [
        "RMM component runs: powershell.exe -NoProfile -EncodedCommand {e}",
        "decoded the scary encoded cmd from the alert, it's just our own inventory script: {e}",
        "-enc {e}",
        "base64 blob in the task scheduler xml = {e} (Get-Service check)",
    ]:
        cmd = f"Get-Service -Name Spooler | Restart-Service; Start-Sleep {r.randrange(2, 600)}"
        e = base64.b64encode(cmd.encode("utf-16-le")).decode()
        rows.append((tmpl.format(e=e), e))
    return rows


def b_firmware_version_string(r):
    v = [
        f"v7.{r.randrange(0, 4)}.{r.randrange(0, 15)} build{r.randrange(1000, 2999)}",
        f"DSM 7.2.{r.randrange(0, 3)}-{r.randrange(60000, 79999)} Update {r.randrange(1, 6)}",
        f"{r.randrange(6, 8)}.{r.randrange(0, 9)}.{r.randrange(10, 99)}.{r.randrange(1000, 9999)}",
        f"BIOS 1.{r.randrange(10, 30)}.{r.randrange(0, 9)}",
    ]
    return [
        (f"FortiOS {v[0]} on all client 60Fs, next one is the 40F at Peak", v[0]),
        (f"NAS at Hendriks on {v[1]}", v[1]),
        (f"SonicOS {v[2]} fixes the SSLVPN CVE", v[2]),
        (f"Latitude fleet on {v[3]} pushed via Dell Command Update", v[3]),
    ]


def b_vendor_default_credential_doc(r):
    return [
        (
            "Ubiquiti factory default is ubnt/ubnt -- we always change it during adoption",
            "ubnt/ubnt",
        ),
        (
            "Konica default admin password per the manual is 1234567812345678 (changed on install, see IT Glue)",
            "1234567812345678",
        ),
        (
            "Synology no longer has a default pw, you set one on first boot. HP printers: EWS admin pw = the PIN on the sticker until changed",
            "the PIN on the sticker",
        ),
        (
            "reminder: Dell iDRAC ships with root/calvin on older units, ours all have unique passwords now",
            "root/calvin",
        ),
    ]


def b_av_licence_key(r):
    v = [
        "-".join(s(r, 4, UPPER + DIGITS) for _ in range(5)),
        "EAV-" + s(r, 10, DIGITS),
        "-".join(s(r, 5, UPPER + DIGITS) for _ in range(4)),
        s(r, 8, UPPER + DIGITS),
    ]
    return [
        (f"ESET PROTECT licence key for Hendriks (25 seats): {v[0]}", v[0]),
        (f"ESET public licence ID / username {v[1]}", v[1]),
        (f"Veeam licence file serial {v[2]}, renew before March", v[2]),
        (f"Adobe VIP agreement number {v[3]}", v[3]),
    ]


def b_pgp_key_fingerprint(r):
    v = [
        " ".join(s(r, 4, HEXU) for _ in range(10)),
        s(r, 40, HEXU),
        "0x" + s(r, 16, HEXU),
        s(r, 40, HEX),
    ]
    return [
        (f"our security@ PGP key fingerprint: {v[0]}", v[0]),
        (f"gpg --recv-keys {v[1]}", v[1]),
        (f"client's encrypted mail key id {v[2]}", v[2]),
        (f"Signing key for the rmm agent packages: {v[3]}", v[3]),
    ]


def b_google_workspace_customer_id(r):
    v = ["C0" + s(r, 7, LOWER + DIGITS) for _ in range(4)]
    return [
        (f"Greenfield school Google Workspace customer ID {v[0]}", v[0]),
        (f"gam info customer -> Customer ID: {v[1]}", v[1]),
        (f"Workspace reseller sub for Bright Accountancy, customerId={v[2]}", v[2]),
        (f"ID de cliente de Google Workspace: {v[3]}", v[3]),
    ]


def b_autopilot_hardware_hash(r):
    v = ["T0" + b64(r, 300) for _ in range(4)]
    return [
        (f"Autopilot hash for LT-OAK-015 (import CSV col 3): {v[0]}", v[0]),
        (
            f"Device Serial Number,Windows Product ID,Hardware Hash\n{s(r, 7, UPPER + DIGITS)},,{v[1]}",
            v[1],
        ),
        (f"hw hash from Get-WindowsAutopilotInfo: {v[2]}", v[2]),
        (f"{v[3]}", v[3]),
    ]


def b_stripe_test_card_number(r):
    return [
        (
            "Stripe test card for the staging shop: 4242 4242 4242 4242, any future date, any CVC",
            "4242 4242 4242 4242",
        ),
        ("declined-card test: 4000000000000002", "4000000000000002"),
        ("3DS test card 4000 0027 6000 3184 (from stripe docs)", "4000 0027 6000 3184"),
        ("Mollie test mode uses the public test cards, e.g. 5555555555554444", "5555555555554444"),
    ]


def b_wifi_ssid_name(r):
    v = [
        f"OAK-STAFF-{s(r, 4, HEXU)}",
        f"Hendriks-Guest-{s(r, 4, HEXU)}",
        f"LV-IoT-{s(r, 4, UPPER)}",
        f"DIRECT-{s(r, 2, UPPER)}-Konica C300i",
    ]
    return [
        (f"SSID {v[0]} is WPA2-Ent (RADIUS via NPS), no psk", v[0]),
        (f"guest ssid {v[1]} with captive portal", v[1]),
        (f"hidden ssid for cameras: {v[2]}", v[2]),
        (f"turn off wifi direct on the printer, it broadcasts {v[3]}", v[3]),
    ]


def b_psa_api_public_key_alone(r):
    v = [s(r, 16, ALNUM) for _ in range(3)] + ["M3" + s(r, 20, UPPER + DIGITS)]
    return [
        (f"CW Manage API member 'brightgauge' public key {v[0]} (private key in IT Glue)", v[0]),
        (f"which integration uses public key {v[1]}? audit log shows it hammering the API", v[1]),
        (f"clientId for the CW Manage integration = {guid(r)}, pub key {v[2]}", v[2]),
        (
            f"Autotask API tracking identifier: {v[3]} -- not a secret, identifies the integration vendor",
            v[3],
        ),
    ]


def b_backup_job_id(r):
    v = [guid(r) for _ in range(2)] + [str(r.randrange(1000, 99999)), s(r, 24, HEX)]
    return [
        (f"Veeam job id {v[0]} keeps failing on VSS", v[0]),
        (f"Get-VBRJob | ? Id -eq '{v[1]}'", v[1]),
        (f"Datto SIRIS agent {v[2]} screenshot verification failed", v[2]),
        (f"Acronis plan id {v[3]}", v[3]),
    ]


def b_expired_otp_code(r):
    v = [s(r, 6, DIGITS) for _ in range(4)]
    return [
        (
            f"user read me the code {v[0]} over the phone, already used for the MFA re-registration",
            v[0],
        ),
        (f"SMS verification code {v[1]} from Microsoft (expired, took too long)", v[1]),
        (f"ScreenConnect support session code {v[2]} -- session ended, code dead", v[2]),
        (f"Bestätigungscode {v[3]} war abgelaufen, neuer angefordert", v[3]),
    ]


def b_wireguard_public_key(r):
    v = [b64(r, 32) for _ in range(4)]
    return [
        (
            f"[Peer]\nPublicKey = {v[0]}\nAllowedIPs = 10.99.0.0/24\nEndpoint = vpn.brightaccountancy.co.uk:51820",
            v[0],
        ),
        (f"server pubkey (share with the client, it's public): {v[1]}", v[1]),
        (f"wg show -> peer: {v[2]}", v[2]),
        (f"public key van de UDM wireguard server: {v[3]}", v[3]),
    ]


def b_remote_session_guid(r):
    v = [guid(r) for _ in range(4)]
    return [
        (f"ScreenConnect session {v[0]} recorded, video saved to the ticket", v[0]),
        (f"https://mspco.screenconnect.com/Host#Access/All%20Machines//{v[1]}/Join", v[1]),
        (f"Splashtop session log id {v[2]}", v[2]),
        (f"Teams meeting id for the handover call: {v[3]}", v[3]),
    ]


def b_dns_record_values(r):
    v = [
        f"{s(r, 8, LOWER)}-{s(r, 4, LOWER)}.mail.protection.outlook.com",
        f"v=spf1 ip4:{ipv4(r)} include:spf.protection.outlook.com -all",
        f"_{s(r, 32, HEX)}.{s(r, 10, LOWER)}.acm-validations.aws.",
        f"{s(r, 30, LOWER + DIGITS)}.comodoca.com",
    ]
    return [
        (f"MX 0 {v[0]}", v[0]),
        (f"SPF for Oakridge: {v[1]}", v[1]),
        (f"CNAME for the ACM cert validation: {v[2]}", v[2]),
        (f"DCV CNAME target {v[3]}", v[3]),
    ]


BENIGN_KINDS = [
    b_m365_tenant_id,
    b_entra_app_client_id,
    b_entra_secret_id_not_value,
    b_psa_ticket_number,
    b_hardware_serial_number,
    b_mac_address,
    b_windows_product_key_licence,
    b_git_commit_sha,
    b_sha256_file_hash,
    b_md5_checksum,
    b_ssh_public_key,
    b_ssh_host_key_fingerprint,
    b_tls_certificate_pem,
    b_certificate_thumbprint,
    b_placeholder_value,
    b_env_var_reference,
    b_password_vault_reference,
    b_masked_or_redacted_secret,
    b_aws_documented_example_key,
    b_stripe_publishable_key,
    b_recaptcha_site_key,
    b_password_policy_text,
    b_revoked_key_said_revoked,
    b_remote_support_device_id,
    b_dkim_public_key_txt,
    b_domain_verification_txt,
    b_ip_address_and_subnet,
    b_azure_subscription_id,
    b_rmm_device_uid,
    b_aws_access_key_id_alone,
    b_duo_integration_key_alone,
    b_itglue_document_url_ids,
    b_bitlocker_key_protector_id,
    b_powershell_encoded_command_benign,
    b_firmware_version_string,
    b_vendor_default_credential_doc,
    b_av_licence_key,
    b_pgp_key_fingerprint,
    b_google_workspace_customer_id,
    b_autopilot_hardware_hash,
    b_stripe_test_card_number,
    b_wifi_ssid_name,
    b_psa_api_public_key_alone,
    b_backup_job_id,
    b_expired_otp_code,
    b_wireguard_public_key,
    b_remote_session_guid,
    b_dns_record_values,
]


def _kind(fn):
    return fn.__name__[2:]


def corpus() -> list[dict]:
    r = random.Random(SEED)
    rows = []
    for label, kinds in (("secret", SECRET_KINDS), ("benign", BENIGN_KINDS)):
        for fn in kinds:
            for text, value in fn(r):
                if value not in text:
                    raise ValueError(f"value not in text for {_kind(fn)}")
                rows.append({"label": label, "kind": _kind(fn), "text": text, "value": value})
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

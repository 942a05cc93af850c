"""Blind secrets corpus 17: IT and security administrators' notes.

Brief: IT and security administrators' notes: Active Directory and LDAP binds,
Okta / Entra ID / Google Workspace admin, VPNs (OpenVPN, IPsec PSKs, WireGuard),
firewalls and switches, backup software, MDM, password managers, SSO/SAML/OIDC
client secrets, certificate and HSM work, break-glass procedures, audit findings;
plus hard look-alikes (SIDs, object GUIDs, thumbprints, serial numbers, hashes in
audit logs, public certificates, policy ids, masked values).

Written blind on 2026-12-06: the author did not read the detector, its tests or any
earlier corpus.

Run:
    python benchmarks/data/blind_secrets/blind_secrets_17.py out.jsonl
(without an argument the JSONL goes to stdout). Every random value comes from
random.Random(SEED); no real credential appears anywhere.

Kinds, secret:
    ad_bind_password, ldap_uri_credentials, ad_service_account_password, dsrm_password,
    laps_password, keytab_base64, ntlm_hash_dump, aad_connect_sync_password,
    okta_api_token, okta_client_secret, okta_session_cookie, entra_client_secret,
    entra_session_cookie, azure_storage_key, gcp_service_account_key,
    google_oauth_client_secret, workspace_admin_password, openvpn_static_key,
    openvpn_auth_user_pass, ipsec_psk, wireguard_private_key, wireguard_preshared_key,
    fortigate_api_key, panos_api_key, cisco_type7_password, snmp_community_rw,
    snmpv3_auth_pass, switch_admin_password, radius_shared_secret, tacacs_key, wifi_psk,
    veeam_encryption_password, restic_repo_password, aws_backup_keypair,
    backup_db_connection_string, jamf_client_secret, workspace_one_api_key,
    scep_challenge_password, onepassword_secret_key, onepassword_master_password,
    onepassword_service_account_token, bitwarden_api_secret, keepass_master_password,
    saml_signing_private_key, oidc_client_secret, keycloak_client_secret,
    jwt_hs256_secret, pfx_export_password, hsm_crypto_officer_pin, hsm_so_pin,
    ca_key_passphrase, tls_ec_private_key, break_glass_password, totp_seed,
    mfa_recovery_codes, bitlocker_recovery_key, filevault_recovery_key,
    esxi_root_password, bmc_password, vault_root_token, vault_unseal_key, github_pat,
    slack_webhook, ssh_private_key, scim_bearer_token, duo_secret_key,
    proxmox_api_token, cloudflare_api_token, tailscale_auth_key, crowdstrike_secret,
    meraki_api_key, smtp_relay_password, ansible_vault_password, sentinelone_api_token
Kinds, benign:
    object_sid, well_known_sid, object_guid, gpo_guid, cert_thumbprint,
    cert_serial_number, cert_sha256_fingerprint, public_certificate_pem, csr_pem,
    ssh_public_key, ssh_host_key_fingerprint, wireguard_public_key,
    tailscale_node_public_key, okta_object_ids, entra_app_and_tenant_ids,
    entra_secret_id_and_hint, google_oauth_client_id, conditional_access_policy_id,
    bitlocker_key_protector_id, device_serial_number, yubikey_serial, mac_address,
    mdm_device_udid, hsm_key_label_handle, kms_key_arn, keyvault_key_version_url,
    masked_password, masked_token, password_manager_reference, keyvault_reference,
    env_var_reference, ci_secret_reference, placeholder_password, docs_example_key,
    revoked_token_fragment, audit_sha256_file_hash, git_commit_sha,
    container_image_digest, audit_event_correlation_id, lm_hash_constant,
    hibp_hash_prefix, saml_metadata_ids, saml_authn_request_b64, jwks_public_key,
    oidc_nonce_state, pgp_public_key_fingerprint, ipsec_proposal_settings,
    openvpn_config_no_key, firewall_rule_ids, password_policy_talk,
    incident_talk_no_secret, rotation_log_no_value, registry_key_path,
    kerberos_token_size_talk, aws_access_key_id_only, duo_integration_key_only,
    onepassword_item_uuid, snmp_engine_id, crl_ocsp_urls, license_activation_id,
    ticket_and_cve_ids, random_looking_hostname, backup_job_ids, key_ceremony_talk,
    base64_non_secret, wifi_ssid_only, x509_public_key_pem, age_recipient,
    dkim_public_key, dns_verification_txt, keycloak_realm_public_key,
    pkce_code_challenge, autopilot_hardware_hash, subject_key_identifier, gpg_keygrip,
    cert_template_oid, intune_policy_id, workspace_customer_id, jamf_management_id,
    apns_topic, fortigate_serial, ipsec_spi_log, acme_account_url, firmware_checksum,
    token_lifetime_talk, password_field_schema, vault_secret_path, veeam_password_hint,
    entra_error_code, windows_logon_event, okta_factor_and_policy_ids, masked_psk,
    cert_request_id, hsm_partition_serial, yubikey_otp_public_id, revoked_token_talk
"""

from __future__ import annotations

import base64
import json
import random
import sys
import uuid

SEED = 517017

UP = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
LO = "abcdefghijklmnopqrstuvwxyz"
DG = "0123456789"
AN = UP + LO + DG
HEX = "0123456789abcdef"
B64 = AN + "+/"
B64U = AN + "-_"
B32 = UP + "234567"


def corpus() -> list[dict]:
    r = random.Random(SEED)

    def pick(alpha: str, n: int) -> str:
        return "".join(r.choice(alpha) for _ in range(n))

    def b64bytes(n: int) -> str:
        return base64.b64encode(bytes(r.randrange(256) for _ in range(n))).decode()

    def b64lines(nbytes: int, width: int = 64, head: str = "") -> str:
        s = head + b64bytes(nbytes)
        return "\n".join(s[i : i + width] for i in range(0, len(s), width))

    def uid() -> str:
        return str(uuid.UUID(int=r.getrandbits(128), version=4))

    words = [
        "harbor",
        "lantern",
        "tundra",
        "ember",
        "kettle",
        "granite",
        "velvet",
        "orbit",
        "cobalt",
        "meadow",
        "falcon",
        "quartz",
        "saffron",
        "willow",
        "puzzle",
        "glacier",
        "mosaic",
        "thistle",
        "beacon",
        "copper",
        "juniper",
        "raven",
        "sparrow",
        "pylon",
    ]

    def password() -> str:
        style = r.randrange(4)
        if style == 0:
            return (
                r.choice(words).capitalize()
                + r.choice("!#$%&*@")
                + r.choice(words).capitalize()
                + pick(DG, 4)
            )
        if style == 1:
            return pick(AN + "!#%^*-_=+", r.randint(18, 26))
        if style == 2:
            return "-".join(r.sample(words, 4)) + "-" + pick(DG, 2)
        return pick(UP, 1) + pick(LO, 5) + pick(DG, 3) + r.choice("!?.$") + pick(AN, 6)

    hosts = [
        "dc01.corp.example.net",
        "dc02.ad.contoso-int.local",
        "fw-edge-01",
        "sw-core-a",
        "vpn.hq.internal",
        "veeam-br01",
        "nas-backup-02",
        "ca-issuing-01",
        "hsm-a.dc3",
        "jamf.mdm.internal",
        "vcsa01.lab",
        "esx-07.dc3",
        "radius01",
        "okta-agent-02",
        "bastion-eu",
        "pbs01",
        "kv-prod-weu",
        "idp.internal",
    ]
    users = [
        "svc_ldapbind",
        "svc-veeam",
        "svc_adsync",
        "j.moreau",
        "a.okafor",
        "k.lindqvist",
        "breakglass01",
        "svc_scan",
        "m.tanaka",
        "netops",
        "svc-jamf",
        "r.alvarez",
    ]
    tickets = ["INC0041872", "CHG0019233", "SEC-2211", "OPS-7781", "RITM0088412", "IT-5530"]

    def ctx(t: str) -> str:
        t = t.replace("{h}", r.choice(hosts)).replace("{u}", r.choice(users))
        t = t.replace("{t}", r.choice(tickets))
        t = t.replace("{d}", f"2026-{r.randint(1, 11):02d}-{r.randint(1, 28):02d}")
        t = t.replace("{ip}", f"10.{r.randint(0, 250)}.{r.randint(0, 250)}.{r.randint(2, 250)}")
        return t

    rows: list[dict] = []

    def add(label: str, kind: str, gen, templates: list[str]) -> None:
        for tpl in templates:
            v = gen() if gen else ""
            text = ctx(tpl).replace("{v}", v)
            rows.append({"label": label, "kind": kind, "text": text, "value": v})

    S, B = "secret", "benign"

    # ------------------------------------------------------------------ secrets
    add(
        S,
        "ad_bind_password",
        password,
        [
            "LDAP bind for the wiki: CN=svc_ldapbind,OU=Service Accounts,DC=corp,DC=example,"
            "DC=net / password {v}",
            "gitea auth source -> ldaps://{h}:636, bind user svc_ldapbind@corp, bind pw: {v}\n"
            "search base OU=Staff,DC=corp,DC=example,DC=net",
            "Note to self: Jenkins LDAP plugin manager password is {v} (bind DN "
            "cn=jenkins-ro,ou=apps,dc=example,dc=org). Don't rotate before the upgrade.",
            "ldapsearch -H ldaps://{h} -D 'svc_scan@ad.example.net' -w '{v}' -b "
            "'DC=ad,DC=example,DC=net' '(sAMAccountName=k.lindqvist)'",
        ],
    )
    add(
        S,
        "ldap_uri_credentials",
        password,
        [
            "sssd fallback we used during the outage: "
            "ldap://cn=readonly,dc=example,dc=org:{v}@{ip}:389",
        ],
    )
    add(
        S,
        "ldap_uri_credentials",
        lambda: pick(AN, 20),
        [
            'grafana ldap.toml while debugging: bind_dn = "cn=grafana,ou=svc,dc=corp,dc=lan"\n'
            'bind_password = "{v}"\nhost = "{h}"',
            "AUTH_LDAP_URL=ldaps://svc_wiki:{v}@{h}:636/ou=people,dc=corp,dc=lan",
        ],
    )
    add(
        S,
        "ad_service_account_password",
        password,
        [
            "{d}: reset svc-veeam in AD ({t}). New password {v} - also updated in the Veeam "
            "credential manager.",
            "SQL agent runs as CORP\\svc_sqlagent, pw {v}. Set 'password never expires' per DBA.",
            "Passwort für CORP\\svc_print (Druckserver) nach Reset: {v}",
        ],
    )
    add(
        S,
        "dsrm_password",
        password,
        [
            "DSRM password for all DCs in site AMS (set via ntdsutil {d}): {v}",
            "If you need to boot {h} into Directory Services Restore Mode, the DSRM pw is {v}",
        ],
    )
    add(
        S,
        "laps_password",
        lambda: pick(AN + "!#%+", 20),
        [
            "Get-LapsADPassword WS-0441 -AsPlainText -> Password: {v} (expires in 30 days)",
            "LAPS pulled for laptop LT-K.LINDQVIST so the tech could log in as .\\Administrator: "
            "{v}",
        ],
    )
    add(
        S,
        "keytab_base64",
        lambda: "BQIAAAB" + b64bytes(90),
        [
            "keytab for HTTP/{h}@CORP.EXAMPLE.NET, base64 so it survives the ticket: {v}",
            "krb5 keytab (svc_sso) pasted from ktpass output, base64:\n{v}",
        ],
    )
    add(
        S,
        "ntlm_hash_dump",
        lambda: pick(HEX, 32),
        [
            "pentest finding: secretsdump gave us svc_backup:1107:aad3b435b51404eeaad3b435b51404ee:"
            "{v}::: and pass-the-hash to {h} worked. Account still enabled as of {d}.",
            "NT hash for CORP\\svc_adsync (still valid, usable for PtH until rotation): {v}",
        ],
    )
    add(
        S,
        "aad_connect_sync_password",
        password,
        [
            "Entra Connect on {h}: the on-prem AD DS connector account MSOL_4f2a9c1e07b3 has "
            "password {v}. Needed if we rebuild the sync server.",
            "AAD Connect staging server reinstall - AD connector acct pw: {v}",
        ],
    )
    add(
        S,
        "okta_api_token",
        lambda: "00" + pick(B64U, 40),
        [
            "Okta API token for the offboarding script (created by a.okafor, read/write users): "
            "{v}",
            "curl -H 'Authorization: SSWS {v}' https://example.okta.com/api/v1/users?limit=200",
            "OKTA_API_TOKEN={v}  # admin token, scoped to Org Admin",
        ],
    )
    add(
        S,
        "okta_client_secret",
        lambda: pick(B64U, 64),
        [
            "Okta OIDC app 'Grafana' -> client id 0oa9x2kq1bRz4T5wd697, client secret {v}",
            "okta terraform provider private app secret (don't lose it again): {v}",
        ],
    )
    add(
        S,
        "okta_session_cookie",
        lambda: "102" + pick(B64U, 22),
        [
            "Reproduced the bug with my live Okta session, cookie sid={v} (still logged in)",
            "Copied cookie from browser for the support case: sid: {v}; idx was expired",
        ],
    )
    add(
        S,
        "entra_client_secret",
        lambda: pick(AN, 3) + "8Q~" + pick(AN + "_.-~", 34),
        [
            "Entra app reg 'HR-Provisioning' client secret (value, not the ID!): {v} - expires {d}",
            "AZURE_CLIENT_SECRET={v}\nAZURE_TENANT_ID=7c1e5a3b-0d2f-4e8a-9b61-3f5d2c8a9e04",
            "Nouveau secret client pour l'appli SharePoint-Sync : {v} (valable 12 mois)",
        ],
    )
    add(
        S,
        "entra_session_cookie",
        lambda: "0.A" + pick(B64U, 180),
        [
            "Token-theft IR: attacker replayed ESTSAUTHPERSISTENT={v} from the user's browser; "
            "cookie still valid, revoke sessions for m.tanaka",
        ],
    )
    add(
        S,
        "azure_storage_key",
        lambda: b64bytes(64),
        [
            "Backup SA 'stbackupweu01' key1: {v}",
            "DefaultEndpointsProtocol=https;AccountName=stvbrimmut01;AccountKey={v};"
            "EndpointSuffix=core.windows.net",
        ],
    )
    add(
        S,
        "gcp_service_account_key",
        lambda: (
            "-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC"
            + b64bytes(630)
            + "\\n-----END PRIVATE KEY-----\\n"
        ),
        [
            '{"type": "service_account", "client_email": "gam-admin@it-tools.iam.gserviceaccount'
            '.com", "private_key": "{v}"}',
            "GAM domain-wide delegation SA key (oauth2service.json, field private_key): {v}",
        ],
    )
    add(
        S,
        "google_oauth_client_secret",
        lambda: "GOCSPX-" + pick(B64U, 28),
        [
            "Workspace OAuth client for the asset tool: client_secret {v}",
            'client_secrets.json -> "client_secret": "{v}" (GAM project)',
            "google oauth secret rotated on {d}, new value {v}",
        ],
    )
    add(
        S,
        "workspace_admin_password",
        password,
        [
            "Super admin admin-emergency@example.org password: {v} (2SV is a hardware key in safe "
            "B)",
            "Google Workspace super admin for the acquisition tenant: it-admin@newco.example / {v}",
        ],
    )
    add(
        S,
        "openvpn_static_key",
        lambda: pick(HEX, 512),
        [
            "tls-crypt key from /etc/openvpn/server/ta.key (joined into one line): {v}",
            "OpenVPN Static key V1 for the site link, all 16 lines concatenated: {v}",
        ],
    )
    add(
        S,
        "openvpn_auth_user_pass",
        password,
        [
            "auth-user-pass file for the kiosk clients:\nkiosk-vpn\n{v}",
            "OpenVPN AS local user 'contractor-ext' password set to {v} until the project ends",
        ],
    )
    add(
        S,
        "ipsec_psk",
        lambda: pick(AN, 32),
        [
            "IPsec tunnel to Azure VNG (IKEv2, aes256/sha256/dh14) - PSK: {v}",
            'strongSwan ipsec.secrets: {ip} 203.0.113.17 : PSK "{v}"',
            "Partner VPN with the logistics vendor, pre-shared key {v}, peer 198.51.100.40",
        ],
    )
    add(
        S,
        "wireguard_private_key",
        lambda: b64bytes(32),
        [
            "[Interface]\nPrivateKey = {v}\nAddress = 10.66.0.2/32\nListenPort = 51820",
            "wg0 on the jump box, private key {v} (pubkey is in the peers list)",
            "WireGuard Schlüssel für das Laptop von r.alvarez (privat): {v}",
        ],
    )
    add(
        S,
        "wireguard_preshared_key",
        lambda: b64bytes(32),
        [
            "[Peer]\nPublicKey = Hq3Yz0i1rJ8wNfX0vQ6k2m9S4dTqL7pB1cE5aG8uW2Y=\nPresharedKey = {v}\n"
            "AllowedIPs = 10.66.0.0/24",
        ],
    )
    add(
        S,
        "fortigate_api_key",
        lambda: pick(AN, 30),
        [
            "FortiGate REST API admin 'ansible-api' token: {v} (trusted host {ip}/32)",
            "curl -k 'https://{h}/api/v2/cmdb/firewall/address?access_token={v}'",
        ],
    )
    add(
        S,
        "panos_api_key",
        lambda: "LUFRPT1" + b64bytes(54),
        [
            "PAN-OS keygen result for user 'automation': <key>{v}</key>",
            "Panorama API key for the ticket-to-rule bot: {v}",
        ],
    )
    add(
        S,
        "cisco_type7_password",
        lambda: f"{r.randint(0, 15):02d}" + pick("0123456789ABCDEF", 18),
        [
            "old core switch config still has: username netops privilege 15 password 7 {v}",
            "line vty 0 4\n password 7 {v}\n login",
        ],
    )
    add(
        S,
        "snmp_community_rw",
        lambda: r.choice(words) + pick(AN, 8) + "RW",
        [
            "snmp-server community {v} RW 10  <- RW community on the access switches, LibreNMS "
            "uses it",
            "SNMP write community (all floors): {v}",
        ],
    )
    add(
        S,
        "snmpv3_auth_pass",
        password,
        [
            "snmp-server user librenms NMS-GRP v3 auth sha {v} priv aes 128 {v}",
            "SNMPv3 user 'zabbix' authPass={v} (SHA) on the UPS cards",
        ],
    )
    add(
        S,
        "switch_admin_password",
        password,
        [
            "Aruba CX stack admin login after factory reset: admin / {v}",
            "sw-core-a local fallback account 'netops' (when TACACS is down): {v}",
            "Mot de passe admin des switches du 3e étage : {v}",
        ],
    )
    add(
        S,
        "radius_shared_secret",
        lambda: pick(AN, 24),
        [
            "NPS client entry for the WLC {ip}: shared secret {v}",
            "radius-server host {ip} key {v}",
        ],
    )
    add(
        S,
        "tacacs_key",
        lambda: pick(AN + "#$", 22),
        [
            "tacacs server ISE-1\n address ipv4 {ip}\n key 0 {v}",
            "TACACS+ key for ClearPass on all Nexus boxes: {v}",
        ],
    )
    add(
        S,
        "wifi_psk",
        password,
        [
            "Corp-IoT SSID WPA2 passphrase (printers, badge readers): {v}",
            "Gast-WLAN Passwort diese Woche: {v}",
        ],
    )
    add(
        S,
        "veeam_encryption_password",
        password,
        [
            "Veeam backup job 'FS-Daily' encryption password: {v}. Without it the .vbk files are "
            "unreadable - keep it in the DR binder too.",
            "Veeam config backup encryption pw {v} (needed for config restore on {h})",
            "VBR tape media set password set on {d}: {v}",
        ],
    )
    add(
        S,
        "restic_repo_password",
        password,
        [
            "RESTIC_REPOSITORY=s3:s3.eu-central-1.amazonaws.com/acme-restic\nRESTIC_PASSWORD={v}",
            "borg repo passphrase for nas-backup-02: {v}",
        ],
    )
    add(
        S,
        "aws_backup_keypair",
        lambda: pick(AN + "+/", 40),
        [
            "Offsite backup IAM user: aws_access_key_id = AKIA" + "Q7M3VX2LHJ5TR8WZ" + "\n"
            "aws_secret_access_key = {v}",
            "Synology Hyper Backup S3 target: access key AKIA4WZL7MQ2RTX9PNCE, secret {v}",
        ],
    )
    add(
        S,
        "backup_db_connection_string",
        password,
        [
            "Veeam config DB: Server={h};Database=VeeamBackup;User Id=veeam_sql;Password={v};",
            "postgresql://bacula:{v}@{ip}:5432/bacula",
        ],
    )
    add(
        S,
        "jamf_client_secret",
        lambda: pick(AN + "-_", 64),
        [
            "Jamf Pro API client 'inventory-sync' client_id 3f1c9a2e-5b7d-4e0f-8a6c-1d2b3e4f5a6b, "
            "client_secret {v}",
            "JAMF_CLIENT_SECRET={v}",
        ],
    )
    add(
        S,
        "workspace_one_api_key",
        lambda: b64bytes(33),
        [
            "Workspace ONE UEM REST: aw-tenant-code: {v}",
            "WS1 API key for the ServiceNow integration is {v} (admin account api-snow)",
        ],
    )
    add(
        S,
        "scep_challenge_password",
        lambda: pick("0123456789ABCDEF", 16),
        [
            "NDES mscep_admin gave challenge password {v} for the one-off router enrollment",
            "SCEP static challenge configured in Intune profile: {v}",
        ],
    )
    add(
        S,
        "onepassword_secret_key",
        lambda: (
            "A3-"
            + pick(UP + DG, 6)
            + "-"
            + pick(UP + DG, 6)
            + "-"
            + "-".join(pick(UP + DG, 5) for _ in range(4))
        ),
        [
            "1Password emergency kit for it-admin@example.org - Secret Key {v}",
            "Team account secret key (for the new laptop sign-in): {v}",
        ],
    )
    add(
        S,
        "onepassword_master_password",
        lambda: "-".join(r.sample(words, 5)),
        [
            "1Password master password for the shared IT vault account: {v}",
            "Emergency kit copy: account it-ops@example.org, master password {v}",
        ],
    )
    add(
        S,
        "onepassword_service_account_token",
        lambda: "ops_eyJ" + pick(B64U, 300),
        [
            "OP_SERVICE_ACCOUNT_TOKEN={v}",
            "1Password service account 'ci-readonly' token: {v}",
        ],
    )
    add(
        S,
        "bitwarden_api_secret",
        lambda: pick(AN, 30),
        [
            "Bitwarden org API key: client_id organization.5d2e9a41-6b3c-4f70-9e18-2c7a0b4d6f13 "
            "client_secret {v}",
            "BW_CLIENTID=user.8c4f1e2a-3b5d-4a6e-9f70-1b2c3d4e5f60\nBW_CLIENTSECRET={v}",
        ],
    )
    add(
        S,
        "keepass_master_password",
        password,
        [
            "NetOps.kdbx master password: {v} (key file on the USB in safe A)",
            "KeePass DB on the admin share - master pw {v}",
        ],
    )
    add(
        S,
        "saml_signing_private_key",
        lambda: (
            "-----BEGIN RSA PRIVATE KEY-----\n"
            + b64lines(260, 76, "MIIEowIBAAKCAQEA")
            + "\n-----END RSA PRIVATE KEY-----"
        ),
        [
            "IdP signing key for the ADFS replacement (test tenant):\n{v}",
        ],
    )
    add(
        S,
        "oidc_client_secret",
        lambda: pick(B64U, 43),
        [
            "ArgoCD dex OIDC: clientID argocd, clientSecret: {v}",
            "OIDC client for the VPN portal - client_secret={v} (confidential client, PKCE off)",
            "oauth2-proxy --client-secret={v} --cookie-secret not set yet",
        ],
    )
    add(
        S,
        "keycloak_client_secret",
        lambda: pick(AN, 32),
        [
            "Keycloak realm 'corp', client 'nextcloud' -> Credentials tab secret: {v}",
            "KC_CLIENT_SECRET={v} # regenerated after the audit",
        ],
    )
    add(
        S,
        "jwt_hs256_secret",
        lambda: pick(HEX, 64),
        [
            "SSO bridge signs its session JWTs with HS256, secret {v}",
            "JWT_SECRET={v}",
        ],
    )
    add(
        S,
        "pfx_export_password",
        password,
        [
            "Exported wildcard cert to wildcard-2027.pfx, PFX password {v}",
            "Import-PfxCertificate -FilePath .\\adfs-signing.pfx -Password (ConvertTo-SecureString "
            "'{v}' -AsPlainText -Force)",
            "p12 für den Exchange-Connector, Kennwort: {v}",
        ],
    )
    add(
        S,
        "hsm_crypto_officer_pin",
        lambda: pick(AN, 16),
        [
            "Luna partition 'pki-prod' Crypto Officer password: {v}",
            "pkcs11-tool --module /usr/lib/libCryptoki2_64.so --login --pin {v} --list-objects",
        ],
    )
    add(
        S,
        "hsm_so_pin",
        lambda: pick(DG, 8),
        [
            "YubiHSM / token SO PIN after init on {d}: {v}",
            "SmartCard-HSM initialised with SO-PIN {v} and user PIN 648213",
        ],
    )
    add(
        S,
        "ca_key_passphrase",
        password,
        [
            "Offline root CA key passphrase (ca-root-2036.key): {v}",
            "easy-rsa CA passphrase for the OpenVPN PKI: {v}",
        ],
    )
    add(
        S,
        "tls_ec_private_key",
        lambda: (
            "-----BEGIN EC PRIVATE KEY-----\n"
            + b64lines(110, 64, "MHcCAQEEI")
            + "\n-----END EC PRIVATE KEY-----"
        ),
        [
            "private key for vpn.hq.internal (live cert, expires next year):\n{v}",
            "{v}\n^ key for the RADIUS EAP-TLS server cert",
        ],
    )
    add(
        S,
        "break_glass_password",
        lambda: pick(AN + "!@#$%^&*", 28),
        [
            "Break-glass: bg-admin01@example.onmicrosoft.com / {v}. Excluded from CA policies, "
            "sign-in alerts go to SOC.",
            "Emergency access account #2 password (sealed envelope copy, updated {d}): {v}",
            "Notfallkonto Entra: breakglass02, Kennwort {v}",
        ],
    )
    add(
        S,
        "totp_seed",
        lambda: pick(B32, 32),
        [
            "otpauth://totp/Example:bg-admin01?secret={v}&issuer=Entra&digits=6",
            "MFA seed for the shared netops TOTP (so on-call can enroll): {v}",
            "breakglass02 authenticator secret key (base32): {v}",
        ],
    )
    add(
        S,
        "mfa_recovery_codes",
        lambda: " ".join(pick(DG, 4) + " " + pick(DG, 4) for _ in range(4)),
        [
            "Google backup codes for it-admin super admin (unused): {v}",
            "Okta recovery codes break-glass account: {v}",
        ],
    )
    add(
        S,
        "bitlocker_recovery_key",
        lambda: "-".join(f"{r.randrange(0, 65535) * 11:06d}" for _ in range(8)),
        [
            "BitLocker recovery for LT-0193 (user locked out after BIOS update): {v}",
            "Key protector ID 1A2B3C4D-... recovery password {v} - read it to the user by phone",
            "Clé de récupération BitLocker du PC de la compta : {v}",
        ],
    )
    add(
        S,
        "filevault_recovery_key",
        lambda: "-".join(pick("ABCDEFGHJKLMNPQRSTUVWXYZ23456789", 4) for _ in range(6)),
        [
            "FileVault personal recovery key from Jamf for MBP C02FK1XYMD6M: {v}",
            "Escrowed FV2 key for a.okafor's Mac: {v}",
        ],
    )
    add(
        S,
        "esxi_root_password",
        password,
        [
            "ESXi root on esx-01..08 (lockdown mode off during migration): {v}",
            "vCenter SSO administrator@vsphere.local pw: {v}",
        ],
    )
    add(
        S,
        "bmc_password",
        password,
        [
            "iDRAC root for the new R760s: {v} (changed from calvin)",
            "iLO Administrator on {h}: {v}",
        ],
    )
    add(
        S,
        "vault_root_token",
        lambda: "hvs." + pick(AN + "_-", 91),
        [
            "vault operator generate-root result: {v} - revoke after the PKI fix!",
            "VAULT_TOKEN={v} vault write pki_int/roles/corp allowed_domains=corp.example.net",
        ],
    )
    add(
        S,
        "vault_unseal_key",
        lambda: b64bytes(33),
        [
            "Unseal Key 3: {v}",
            "my unseal share (keep off the wiki): {v}",
        ],
    )
    add(
        S,
        "github_pat",
        lambda: "ghp_" + pick(AN, 36),
        [
            "PAT used by the AD-to-GitHub team sync script: {v}",
            "git clone https://x-access-token:{v}@github.com/example-it/intune-scripts.git",
        ],
    )
    add(
        S,
        "slack_webhook",
        lambda: (
            "https://hooks.slack.com/services/T"
            + pick(UP + DG, 8)
            + "/B"
            + pick(UP + DG, 10)
            + "/"
            + pick(AN, 24)
        ),
        [
            "Audit alert webhook (posts to #sec-alerts): {v}",
            "veeam post-job script curl -X POST -d @msg.json {v}",
        ],
    )
    add(
        S,
        "ssh_private_key",
        lambda: (
            "-----BEGIN OPENSSH PRIVATE KEY-----\n"
            + b64lines(220, 70, "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ")
            + "\n-----END OPENSSH PRIVATE KEY-----"
        ),
        [
            "deploy key for the switch config backups (oxidized):\n{v}",
        ],
    )
    add(
        S,
        "scim_bearer_token",
        lambda: pick(B64U, 48),
        [
            "Okta -> Slack SCIM provisioning, API token: Bearer {v}",
            "SCIM endpoint https://scim.vendor.example/v2 with token {v} (Entra provisioning)",
        ],
    )
    add(
        S,
        "duo_secret_key",
        lambda: pick(AN, 40),
        [
            "Duo Auth Proxy [radius_server_auto] ikey=DIWJ8X9AVVPWHL7U1FQR skey={v} "
            "api_host=api-1a2b3c4d.duosecurity.com",
            "Duo Windows Logon app secret key: {v}",
        ],
    )
    add(
        S,
        "proxmox_api_token",
        uid,
        [
            "Authorization: PVEAPIToken=root@pam!backup-sync={v}",
            "PBS API token backup@pbs!veeam -> secret {v}",
        ],
    )
    add(
        S,
        "cloudflare_api_token",
        lambda: pick(B64U, 40),
        [
            "Cloudflare token for DNS-01 (Zone.DNS edit, all zones): {v}",
            "CF_API_TOKEN={v}",
        ],
    )
    add(
        S,
        "tailscale_auth_key",
        lambda: "tskey-auth-k" + pick(AN, 10) + "CNTRL-" + pick(AN, 33),
        [
            "Tailscale reusable auth key for the branch routers (expires in 90d): {v}",
            "tailscale up --authkey={v} --advertise-routes=10.20.0.0/16",
        ],
    )
    add(
        S,
        "crowdstrike_secret",
        lambda: pick(AN, 40),
        [
            "Falcon API client 'soar-ro' id 8f3a1c5e7b9d4f2a6c8e0b1d3f5a7c9e secret {v}",
            "FALCON_CLIENT_SECRET={v}",
        ],
    )
    add(
        S,
        "meraki_api_key",
        lambda: pick(HEX, 40),
        [
            "X-Cisco-Meraki-API-Key: {v}",
            "Meraki dashboard API key for the inventory export (org-wide RW): {v}",
        ],
    )
    add(
        S,
        "smtp_relay_password",
        password,
        [
            "Scan-to-email on the MFPs uses scanner@example.org via smtp.office365.com:587, pw {v}",
            "Veeam notifications SMTP auth: alerts@example.org / {v}",
        ],
    )
    add(
        S,
        "ansible_vault_password",
        lambda: "-".join(r.sample(words, 4)),
        [
            "ansible-vault password for the network repo: {v}",
            "echo '{v}' > ~/.vault_pass && ansible-playbook site.yml --vault-password-file "
            "~/.vault_pass",
        ],
    )
    add(
        S,
        "sentinelone_api_token",
        lambda: pick(AN, 80),
        [
            "S1 console API token (service user api-svc, 6 months): {v}",
            "Authorization: ApiToken {v}",
        ],
    )

    # extra secret rows with different placements and wording
    add(
        S,
        "ad_bind_password",
        password,
        [
            "{v} <- that's the new bind pw for svc_ldapbind, old one is dead",
            "ldap:\n  url: ldaps://{h}\n  bindDN: CN=svc_gitlab,OU=SVC,DC=corp,DC=lan\n  "
            "password: {v}",
        ],
    )
    add(
        S,
        "ipsec_psk",
        password,
        [
            "Phase1 PSK für den Tunnel nach Hamburg: {v} (IKEv1 main mode, leider)",
            '{ip} %any : PSK "{v}"',
        ],
    )
    add(
        S,
        "break_glass_password",
        password,
        [
            "If Okta is down: log into the firewall with local user 'emergency' and {v}",
        ],
    )
    add(
        S,
        "radius_shared_secret",
        password,
        [
            "Meraki MR SSID 'Corp' RADIUS: host {ip} port 1812 secret {v}",
        ],
    )
    add(
        S,
        "okta_api_token",
        lambda: "00" + pick(B64U, 40),
        [
            "token for okta-terraform state pipeline = {v}",
        ],
    )
    add(
        S,
        "entra_client_secret",
        lambda: pick(AN, 3) + "7Q~" + pick(AN + "_.-~", 34),
        [
            "Intune Graph app 'DeviceCleanup' secret {v} / app id "
            "2d9f8c71-4a3b-4e56-8c10-9f7b6a5d4e32",
        ],
    )
    add(
        S,
        "wireguard_private_key",
        lambda: b64bytes(32),
        [
            "wg genkey output for site-b router: {v}",
        ],
    )
    add(
        S,
        "veeam_encryption_password",
        lambda: "-".join(r.sample(words, 3)) + pick(DG, 3),
        [
            "Cloud Connect tenant 'example-dr' password: {v}",
        ],
    )
    add(
        S,
        "laps_password",
        lambda: pick(AN, 16),
        [
            "Windows LAPS (Entra) for DESKTOP-7QX2K: Administrator {v}",
        ],
    )
    add(
        S,
        "vault_root_token",
        lambda: "hvs." + pick(AN, 24),
        [
            "dev vault on the lab box (reachable from corp VPN) root token: {v}",
        ],
    )
    add(
        S,
        "google_oauth_client_secret",
        lambda: "GOCSPX-" + pick(B64U, 28),
        [
            "{v} is the client secret for the Workspace SSO test app",
        ],
    )
    add(
        S,
        "pfx_export_password",
        lambda: pick(AN, 14),
        [
            "Code signing cert token password (EV, on the SafeNet dongle): {v}",
        ],
    )
    add(
        S,
        "snmp_community_rw",
        lambda: pick(LO + DG, 12),
        [
            "UPS network cards: SNMP set community '{v}', get community public",
        ],
    )
    add(
        S,
        "switch_admin_password",
        lambda: pick(AN + "!$", 14),
        [
            "enable secret 0 {v}  (will convert to type 9 after the change window)",
        ],
    )
    add(
        S,
        "esxi_root_password",
        lambda: pick(AN + "!#", 16),
        [
            "{h} root / {v} - host is isolated for forensics, don't change",
        ],
    )
    add(
        S,
        "duo_secret_key",
        lambda: pick(AN, 40),
        [
            "duo_unix login_duo.conf:\n[duo]\nikey = DIX3F8N2R6T1V9K4M7QA\nskey = {v}\nhost = "
            "api-9f8e7d6c.duosecurity.com",
        ],
    )
    add(
        S,
        "oidc_client_secret",
        lambda: pick(AN, 40),
        [
            "Entra-to-AWS IAM Identity Center? no - that's SAML. The OIDC one for Tableau: secret "
            "{v}",
        ],
    )
    add(
        S,
        "bmc_password",
        lambda: pick(AN, 12),
        [
            "Supermicro IPMI ADMIN pw from the sticker on node pve03: {v}",
        ],
    )
    add(
        S,
        "github_pat",
        lambda: "github_pat_" + pick(AN, 22) + "_" + pick(AN, 59),
        [
            "fine-grained token for the Intune scripts repo (contents:write): {v}",
        ],
    )
    add(
        S,
        "totp_seed",
        lambda: pick(B32, 16),
        [
            "FortiToken-less fallback: TOTP secret for vpn user contractor-ext = {v}",
        ],
    )
    add(
        S,
        "jwt_hs256_secret",
        lambda: b64bytes(48),
        [
            "NEXTAUTH_SECRET={v}",
        ],
    )
    add(
        S,
        "keycloak_client_secret",
        lambda: pick(AN, 32),
        [
            "Keycloak broker to Entra: client secret on the Keycloak side is {v}",
        ],
    )
    add(
        S,
        "smtp_relay_password",
        lambda: pick(LO, 16),
        [
            "Google Workspace app password for the scanner relay (scan@example.org): {v}",
        ],
    )

    # ------------------------------------------------------------------ benign
    def sid() -> str:
        return (
            "S-1-5-21-"
            + "-".join(str(r.randint(10**9, 4 * 10**9)) for _ in range(3))
            + (f"-{r.randint(1100, 99999)}")
        )

    add(
        B,
        "object_sid",
        sid,
        [
            "Orphaned ACE on \\\\fs01\\finance: {v} (deleted user, account gone since spring)",
            "objectSid of svc-veeam is {v}; use it in the SIDHistory cleanup script",
            "Event 4728: member {v} added to Domain Admins by j.moreau - expected, {t}",
        ],
    )
    add(
        B,
        "well_known_sid",
        lambda: r.choice(["S-1-5-32-544", "S-1-5-18", "S-1-5-32-555", "S-1-5-11", "S-1-1-0"]),
        [
            "Restricted groups GPO grants {v} logon rights; audit says fine.",
            "icacls shows {v}:(OI)(CI)F on C:\\ProgramData\\Veeam - that's expected",
        ],
    )
    add(
        B,
        "object_guid",
        uid,
        [
            "objectGUID of OU=Workstations is {v} - Entra Connect uses it as sourceAnchor filter",
            "Get-ADUser k.lindqvist | select ObjectGUID -> {v}",
            "ms-DS-ConsistencyGuid for the migrated user = {v} (base64 in the metaverse)",
        ],
    )
    add(
        B,
        "gpo_guid",
        lambda: "{" + uid().upper() + "}",
        [
            "GPO 'Disable NTLMv1' lives in SYSVOL\\Policies\\{v}",
            "Stale GPO {v} - linked nowhere, delete after {d}",
        ],
    )
    add(
        B,
        "cert_thumbprint",
        lambda: pick("0123456789ABCDEF", 40),
        [
            "ADFS token-signing cert thumbprint {v} (expires {d}) - update the RP trust in Okta",
            "Set-AdfsSslCertificate -Thumbprint {v}",
            "Intune trusted cert profile pushes root CA, thumbprint {v}",
        ],
    )
    add(
        B,
        "cert_serial_number",
        lambda: ":".join(pick("0123456789abcdef", 2) for _ in range(16)),
        [
            "Revoked the leaked VPN user cert, serial {v}; CRL republished.",
            "openssl x509 -serial says serial={v} for the wildcard cert",
        ],
    )
    add(
        B,
        "cert_sha256_fingerprint",
        lambda: ":".join(pick("0123456789ABCDEF", 2) for _ in range(32)),
        [
            "Okta IdP cert SHA-256 fingerprint: {v}. Paste this into the SP config, not the cert.",
            "Pinned server cert fingerprint for the VPN client: {v}",
        ],
    )
    add(
        B,
        "public_certificate_pem",
        lambda: (
            "-----BEGIN CERTIFICATE-----\n"
            + b64lines(260, 76, "MIIDdzCCAl+gAwIBAgIU")
            + "\n-----END CERTIFICATE-----"
        ),
        [
            "SAML IdP signing certificate (public, from metadata) for the SP team:\n{v}",
            "Root CA cert to add to the MDM trust profile:\n{v}",
        ],
    )
    add(
        B,
        "csr_pem",
        lambda: (
            "-----BEGIN CERTIFICATE REQUEST-----\n"
            + b64lines(220, 64, "MIICijCCAXICAQAwRTEL")
            + "\n-----END CERTIFICATE REQUEST-----"
        ),
        [
            "CSR for portal.example.org sent to the CA (key never left the HSM):\n{v}",
        ],
    )
    add(
        B,
        "ssh_public_key",
        lambda: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + b64bytes(31)[:-1],
        [
            "authorized_keys on the bastion for netops: {v} netops@laptop",
            "Oxidized's public key to add on the switches: {v} oxidized@nms",
        ],
    )
    add(
        B,
        "ssh_host_key_fingerprint",
        lambda: "SHA256:" + b64bytes(32).rstrip("="),
        [
            "Host key of bastion-eu is ED25519 {v} - verify before accepting",
            "known_hosts mismatch on fw-edge-01, expected {v} (firmware upgrade regenerated it)",
        ],
    )
    add(
        B,
        "wireguard_public_key",
        lambda: b64bytes(32),
        [
            "[Peer]\n# r.alvarez laptop\nPublicKey = {v}\nAllowedIPs = 10.66.0.14/32",
            "Server public key for the client configs: {v} (safe to share)",
            "wg show: peer: {v} latest handshake: 42 seconds ago",
        ],
    )
    add(
        B,
        "tailscale_node_public_key",
        lambda: "nodekey:" + pick(HEX, 64),
        [
            "Node bastion-eu in the admin console: {v} - key expiry disabled on purpose",
        ],
    )
    add(
        B,
        "okta_object_ids",
        lambda: r.choice(["00u", "00g", "0oa", "aus"]) + pick(AN, 17),
        [
            "Okta id for the group 'VPN-Users' / user / app: {v}",
            "GET /api/v1/apps/{v}/users returned 412 users",
            "Okta authorization server id {v} (custom AS for the internal APIs)",
        ],
    )
    add(
        B,
        "entra_app_and_tenant_ids",
        uid,
        [
            "Entra tenant id {v} - needed in the SAML entityID for the AWS app",
            "Application (client) ID {v}, no secret yet, uses certificate credentials",
            "Object ID of the enterprise app 'Zoom' {v}",
        ],
    )
    add(
        B,
        "entra_secret_id_and_hint",
        uid,
        [
            "App reg 'HR-Provisioning' secret ID {v}, hint 'Qx8', expires {d}. Value is in Key "
            "Vault.",
            "Removed old client secret (Secret ID {v}); only the certificate credential remains.",
        ],
    )
    add(
        B,
        "google_oauth_client_id",
        lambda: pick(DG, 12) + "-" + pick(LO + DG, 32) + ".apps.googleusercontent.com",
        [
            "Workspace domain-wide delegation: client ID {v}, scopes admin.directory.user",
            "OAuth client ID {v} (public, goes into the frontend config)",
        ],
    )
    add(
        B,
        "conditional_access_policy_id",
        uid,
        [
            "CA policy 'Require compliant device' id {v} - break-glass accounts excluded",
            "Sign-in log: appliedConditionalAccessPolicies[0].id = {v}, result: success",
            "Okta policy id vs Entra? Entra CA id {v} is the one blocking legacy auth",
        ],
    )
    add(
        B,
        "bitlocker_key_protector_id",
        lambda: uid().upper(),
        [
            "BitLocker recovery key ID for LT-0193 is {v} (first 8 chars shown on the blue "
            "screen); "
            "the 48-digit key itself is in Entra, not here.",
            "manage-bde -protectors -get C: -> Numerical Password ID: {v} (password itself not "
            "shown)",
        ],
    )
    add(
        B,
        "device_serial_number",
        lambda: r.choice(["C02", "FVF", "5CG", "FOC", "PF"]) + pick(UP + DG, 9),
        [
            "Laptop serial {v} marked lost in Intune, wipe sent {d}",
            "Switch serial {v} RMA'd to Cisco, {t}",
            "Dell service tag / Seriennummer: {v}",
        ],
    )
    add(
        B,
        "yubikey_serial",
        lambda: str(r.randint(10_000_000, 29_999_999)),
        [
            "Issued YubiKey serial {v} to breakglass01 envelope B (FIDO2 only, PIN with CISO)",
            "Okta factor registered: YubiKey 5C NFC serial {v}",
        ],
    )
    add(
        B,
        "mac_address",
        lambda: ":".join(pick("0123456789abcdef", 2) for _ in range(6)),
        [
            "NAC exception for the badge reader, MAC {v}",
            "DHCP reservation {ip} -> {v} (printer 3rd floor)",
        ],
    )
    add(
        B,
        "mdm_device_udid",
        lambda: pick("0123456789ABCDEF", 8) + "-" + pick("0123456789ABCDEF", 16),
        [
            "iPad UDID {v} stuck in 'awaiting configuration' in Jamf",
            "ABM device {v} reassigned to the new MDM server",
        ],
    )
    add(
        B,
        "hsm_key_label_handle",
        lambda: str(r.randint(100, 9999)),
        [
            "HSM object handle {v}, label 'pki-issuing-2026', CKA_EXTRACTABLE=false",
            "Luna partition serial 1 548 339 / key handle {v} used by the code-signing service",
        ],
    )
    add(
        B,
        "kms_key_arn",
        lambda: "arn:aws:kms:eu-central-1:" + pick(DG, 12) + ":key/" + uid(),
        [
            "Backup vault encrypted with CMK {v}",
            "Key policy on {v} only allows the Backup role to Decrypt",
        ],
    )
    add(
        B,
        "keyvault_key_version_url",
        lambda: "https://kv-prod-weu.vault.azure.net/keys/adfs-signing/" + pick(HEX, 32),
        [
            "Signing key now lives in Key Vault: {v} (non-exportable, HSM-backed)",
            "key rotation created version {v}",
        ],
    )
    add(
        B,
        "masked_password",
        lambda: r.choice(["********", "••••••••••", "xxxxxxxx", "<redacted>"]),
        [
            "svc_ldapbind password: {v} (see vault entry LDAP/bind)",
            "Veeam job shows encryption password {v} - real one is in the DR binder",
            "Audit export had 'Password={v}' in the connection string, good",
        ],
    )
    add(
        B,
        "masked_token",
        lambda: pick(AN, 4) + "*" * 28 + pick(AN, 4),
        [
            "Okta admin console lists token 'offboarding' as {v}, last used {d}",
            "Found in the log but masked: Authorization: SSWS {v}",
        ],
    )
    add(
        B,
        "password_manager_reference",
        lambda: (
            "op://IT-Infra/"
            + r.choice(["ldap-bind", "veeam-encryption", "fortigate-api", "breakglass-01"])
            + "/password"
        ),
        [
            "bind pw is at {v}, inject with op run",
            "ansible: lookup('community.general.onepassword', ...) -> reads {v}",
            "Break-glass secret moved to {v} (access logged, 2 approvers)",
        ],
    )
    add(
        B,
        "keyvault_reference",
        lambda: (
            "@Microsoft.KeyVault(SecretUri=https://kv-prod-weu"
            ".vault.azure.net/secrets/okta-api-token/" + pick(HEX, 32) + ")"
        ),
        [
            "App setting OKTA_TOKEN = {v}",
            "Switched the function app to {v} instead of the pasted value",
        ],
    )
    add(
        B,
        "env_var_reference",
        lambda: r.choice(
            ["$LDAP_BIND_PASSWORD", "${VEEAM_ENC_PW}", "%SVC_PASSWORD%", "$env:OKTA_API_TOKEN"]
        ),
        [
            'ldapsearch -D svc_scan@corp -w "{v}" ... (export it from the vault first)',
            "script reads the token from {v}; never hardcode it",
        ],
    )
    add(
        B,
        "ci_secret_reference",
        lambda: (
            "${{ secrets."
            + r.choice(["AZURE_CLIENT_SECRET", "OKTA_TOKEN", "WG_PRIVATE_KEY", "TAILSCALE_AUTHKEY"])
            + " }}"
        ),
        [
            "workflow step env: TOKEN: {v}",
            "GH Actions uses {v} for the nightly Intune export",
        ],
    )
    add(
        B,
        "placeholder_password",
        lambda: r.choice(
            [
                "<CHANGE_ME>",
                "YOUR_PASSWORD_HERE",
                "P@ssw0rd-PLACEHOLDER",
                "changeme",
                "<psk-from-vault>",
            ]
        ),
        [
            'Template for new sites: ipsec.secrets -> %any : PSK "{v}"',
            "runbook step 4: bind password = {v} (fill in from 1Password, do not commit)",
            "wg template: PrivateKey = {v}",
        ],
    )
    add(
        B,
        "docs_example_key",
        lambda: r.choice(["AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"]),
        [
            "The AWS docs sample {v} showed up in our config template - it's the docs placeholder.",
            "grep hit on {v} in the backup README is the AWS documentation example, not ours",
        ],
    )
    add(
        B,
        "revoked_token_fragment",
        lambda: "00" + pick(B64U, 6) + "…",
        [
            "Okta token starting {v} was revoked {d} after the leak; replacement stored in vault",
            "Rotated: old GitHub PAT (prefix {v}) deleted, new one in 1Password",
        ],
    )
    add(
        B,
        "audit_sha256_file_hash",
        lambda: pick(HEX, 64),
        [
            "Defender alert: file hash {v} (mimikatz variant) on WS-0441, quarantined",
            "Get-FileHash veeam-installer.iso -> SHA256 {v}, matches vendor page",
            "IOC from the IR report: SHA-256 {v}",
        ],
    )
    add(
        B,
        "git_commit_sha",
        lambda: pick(HEX, 40),
        [
            "Firewall rule change merged in commit {v} ({t})",
            "Reverted the GPO export to {v} after the bad push",
        ],
    )
    add(
        B,
        "container_image_digest",
        lambda: "sha256:" + pick(HEX, 64),
        [
            "Keycloak pinned to quay.io/keycloak/keycloak@{v}",
            "vault image digest {v} signed by HashiCorp, verified with cosign",
        ],
    )
    add(
        B,
        "audit_event_correlation_id",
        uid,
        [
            "Entra sign-in failure, Correlation ID {v}, error AADSTS50126 - user typed wrong pw",
            "Okta System Log reqId {v} shows the admin role grant",
            "Google admin audit event id {v}: 2SV enforcement changed",
        ],
    )
    add(
        B,
        "lm_hash_constant",
        lambda: "aad3b435b51404eeaad3b435b51404ee",
        [
            "Every account in the dump shows LM hash {v} - that's the empty-LM constant, LM is "
            "disabled.",
        ],
    )
    add(
        B,
        "hibp_hash_prefix",
        lambda: pick("0123456789ABCDEF", 5),
        [
            "Password filter checks HIBP range API with the first 5 SHA-1 chars only ({v}), "
            "k-anonymity",
        ],
    )
    add(
        B,
        "saml_metadata_ids",
        lambda: "https://sts.windows.net/" + uid() + "/",
        [
            "SAML entityID for Entra: {v} ; ACS https://signin.aws.amazon.com/saml",
            "IdP Issuer mismatch: expected {v}",
        ],
    )
    add(
        B,
        "saml_authn_request_b64",
        lambda: base64.b64encode(
            ('<samlp:AuthnRequest ID="_' + pick(HEX, 32) + '" Version="2.0"/>').encode()
        ).decode(),
        [
            "Captured SAMLRequest (just the AuthnRequest, no assertion): {v}",
        ],
    )
    add(
        B,
        "jwks_public_key",
        lambda: b64bytes(96).replace("+", "-").replace("/", "_").rstrip("="),
        [
            '{"kty":"RSA","use":"sig","kid":"k1","e":"AQAB","n":"{v}"} <- public JWK from the IdP',
            "JWKS 'n' value for the new signing key (public): {v}",
        ],
    )
    add(
        B,
        "oidc_nonce_state",
        lambda: pick(B64U, 32),
        [
            "id_token claims: aud=grafana, nonce={v}, amr=[pwd,mfa] - login loop was clock skew",
            "OIDC redirect had state={v} twice, caused the CSRF error",
        ],
    )
    add(
        B,
        "pgp_public_key_fingerprint",
        lambda: " ".join(pick("0123456789ABCDEF", 4) for _ in range(10)),
        [
            "security@ PGP key fingerprint: {v}",
            "Verify the backup vendor's release signature against {v}",
        ],
    )
    add(
        B,
        "ipsec_proposal_settings",
        lambda: "aes256-sha256-modp2048",
        [
            "Tunnel to Azure: IKEv2, proposal {v}, lifetime 28800s, DPD on. PSK lives in Key "
            "Vault.",
            "Mismatch on phase 2: we offer {v}, partner offers aes128-sha1",
        ],
    )
    add(
        B,
        "openvpn_config_no_key",
        lambda: "/etc/openvpn/server/ta.key",
        [
            "server.conf: tls-crypt {v}\ncipher AES-256-GCM\nauth SHA256",
            "ta.key path is {v}; the file itself stays on the server",
        ],
    )
    add(
        B,
        "firewall_rule_ids",
        lambda: str(r.randint(1000, 99999)),
        [
            "Policy ID {v} (any->any from guest VLAN) disabled after the audit",
            "FortiGate policy {v} hit count 0 for 90 days, cleanup",
        ],
    )
    add(
        B,
        "password_policy_talk",
        None,
        [
            "Fine-grained password policy for admins: min length 16, history 24, lockout 10 tries.",
            "Decided to drop forced 90-day password rotation (NIST 800-63B); keep banned-password "
            "list.",
            "Password spraying alert turned out to be the old scanner with a stale password - "
            "fixed.",
        ],
    )
    add(
        B,
        "incident_talk_no_secret",
        None,
        [
            "Someone pasted an API key in #it-help; key revoked within 10 min, message deleted, "
            "{t}.",
            "Audit finding: local admin password identical across kiosks. Fix = deploy LAPS.",
            "Don't put the IPsec PSK in the ticket again - send a 1Password share link.",
        ],
    )
    add(
        B,
        "rotation_log_no_value",
        None,
        [
            "{d} rotated: svc_ldapbind, svc-veeam, krbtgt (twice, 10h apart). Values in vault "
            "only.",
            "Break-glass test {d}: login OK, password rotated and resealed, envelope #14.",
        ],
    )
    add(
        B,
        "registry_key_path",
        lambda: r.choice(
            [
                "HKLM\\SYSTEM\\CurrentControlSet\\Control\\Lsa\\LmCompatibilityLevel",
                "HKLM\\SOFTWARE\\Policies\\Microsoft\\FVE",
                "HKLM\\SOFTWARE\\Microsoft\\Windows\\CurrentVersion\\Policies\\System",
            ]
        ),
        [
            "Set registry key {v} via GPO",
            "Audit wants key {v} checked on all servers",
        ],
    )
    add(
        B,
        "kerberos_token_size_talk",
        None,
        [
            "Users in 400+ groups hit Kerberos token bloat; raised MaxTokenSize, cleaned groups.",
            "krbtgt key rotation done, tickets re-issued, no errors in event 4769.",
        ],
    )
    add(
        B,
        "aws_access_key_id_only",
        lambda: "AKIA" + pick(UP + DG, 16),
        [
            "CloudTrail: key id {v} used from an unknown IP - deactivated, secret was never in "
            "the repo",
            "IAM user backup-offsite has access key id {v} (secret in vault)",
        ],
    )
    add(
        B,
        "duo_integration_key_only",
        lambda: "DI" + pick(UP + DG, 18),
        [
            "Duo RDP app integration key {v}; skey is in 1Password 'Duo RDP'",
        ],
    )
    add(
        B,
        "onepassword_item_uuid",
        lambda: pick(LO + DG, 26),
        [
            "1Password item id for the Veeam encryption pw: {v}",
            "op item get {v} --fields label=password   (run it, don't paste the output)",
        ],
    )
    add(
        B,
        "snmp_engine_id",
        lambda: "800000090300" + pick("0123456789ABCDEF", 12),
        [
            "SNMPv3 engineID of sw-core-a: {v}",
        ],
    )
    add(
        B,
        "crl_ocsp_urls",
        lambda: "http://pki.example.net/crl/issuing-" + pick(DG, 2) + ".crl",
        [
            "CDP in the new template: {v}, OCSP http://ocsp.example.net",
        ],
    )
    add(
        B,
        "license_activation_id",
        uid,
        [
            "Veeam license instance id {v} (shown in the console, not the license file)",
        ],
    )
    add(
        B,
        "ticket_and_cve_ids",
        lambda: "CVE-2026-" + pick(DG, 5),
        [
            "FortiOS SSL-VPN {v} patched on {d}, {t} closed",
            "Need to check {v} on the Ivanti box before Monday",
        ],
    )
    add(
        B,
        "random_looking_hostname",
        lambda: "ip-" + pick(DG, 2) + "-" + pick(LO + DG, 10),
        [
            "Rogue host {v} seen on the VPN pool, owner unknown",
        ],
    )
    add(
        B,
        "backup_job_ids",
        uid,
        [
            "Veeam job id {v} failed with 'insufficient space'",
            "restic snapshot {v} restored to /srv/restore",
        ],
    )
    add(
        B,
        "key_ceremony_talk",
        None,
        [
            "Root CA key ceremony {d}: 3 of 5 custodians, HSM quorum met, scripts signed, video "
            "kept.",
            "Key custodian card set B is in safe 2; nobody holds more than one share.",
        ],
    )
    add(
        B,
        "base64_non_secret",
        lambda: base64.b64encode(
            ("CN=" + r.choice(users) + ",OU=Staff,DC=corp,DC=lan").encode()
        ).decode(),
        [
            "LDIF exported the DN as base64: dn:: {v}",
        ],
    )
    add(
        B,
        "wifi_ssid_only",
        lambda: "Corp-" + r.choice(["IoT", "Guest", "Secure", "Lab"]),
        [
            "SSID {v} moved to VLAN 40, WPA3-Enterprise, certs from Intune",
        ],
    )

    # more hard benign rows with varied wording
    add(
        B,
        "object_sid",
        sid,
        [
            "Audit: {v} has DCSync rights (Replicating Directory Changes All). Removed.",
        ],
    )
    add(
        B,
        "cert_thumbprint",
        lambda: pick(HEX, 40),
        [
            "thumbprint {v} is the old IdP signing cert, remove from SP after rollover",
        ],
    )
    add(
        B,
        "wireguard_public_key",
        lambda: b64bytes(32),
        [
            "branch-3 router pubkey {v}",
        ],
    )
    add(
        B,
        "masked_password",
        lambda: pick(AN, 2) + "************",
        [
            "1Password Watchtower: 'fortigate admin' ({v}) reused on 3 items",
        ],
    )
    add(
        B,
        "audit_sha256_file_hash",
        lambda: pick(HEX, 64),
        [
            "sha256({h}-config.bak) = {v}",
        ],
    )
    add(
        B,
        "placeholder_password",
        lambda: "xxxx-xxxx-xxxx-xxxx",
        [
            "Recovery key format for the wiki example: {v}",
        ],
    )
    add(
        B,
        "entra_app_and_tenant_ids",
        uid,
        [
            "tenantId: {v}\nclientId: 6a2b1c9d-3e4f-4a5b-8c7d-0e1f2a3b4c5d\nclientSecret: (in KV)",
        ],
    )
    add(
        B,
        "okta_object_ids",
        lambda: "00u" + pick(AN, 17),
        [
            "Deactivated user {v} (j.moreau leaver)",
        ],
    )
    add(
        B,
        "revoked_token_fragment",
        lambda: "ghp_" + pick(AN, 4) + "...",
        [
            "PAT {v} expired {d}; sync script now uses the GitHub App",
        ],
    )

    # third batch of benign look-alikes
    add(
        B,
        "ssh_public_key",
        lambda: "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ" + pick(B64, 300),
        [
            "Public key for the backup user on the NAS (rsync over ssh): {v} backup@veeam-br01",
            "pubkey to paste into the FortiGate admin profile (key auth): {v}",
        ],
    )
    add(
        B,
        "x509_public_key_pem",
        lambda: (
            "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE"
            + b64bytes(48)[:28]
            + "\n"
            + b64bytes(24)[:24]
            + "\n-----END PUBLIC KEY-----"
        ),
        [
            "Public half of the HSM signing key (exported for the verifier service):\n{v}",
            "{v}\n^ the JWT verification key; the private key never leaves the HSM",
        ],
    )
    add(
        B,
        "age_recipient",
        lambda: "age1" + pick("qpzry9x8gf2tvdw0s3jn54khce6mua7l", 58),
        [
            "Backup archives are encrypted to age recipient {v} (identity file is offline)",
            "sops .sops.yaml: age: {v}",
        ],
    )
    add(
        B,
        "dkim_public_key",
        lambda: "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA" + pick(B64, 180),
        [
            "Google Workspace DKIM TXT for google._domainkey: v=DKIM1; k=rsa; p={v}",
        ],
    )
    add(
        B,
        "dns_verification_txt",
        lambda: r.choice(["google-site-verification=" + pick(B64U, 43), "MS=ms" + pick(DG, 8)]),
        [
            "Added TXT {v} for the domain verification (public record)",
            'Domain verify for Okta / M365: TXT @ "{v}"',
        ],
    )
    add(
        B,
        "keycloak_realm_public_key",
        lambda: "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA" + pick(B64, 200),
        [
            "Keycloak realm 'corp' RS256 public key (Realm settings -> Keys -> Public key): {v}",
        ],
    )
    add(
        B,
        "pkce_code_challenge",
        lambda: pick(B64U, 43),
        [
            "Authorize request: code_challenge={v}&code_challenge_method=S256 - public client, no "
            "secret",
        ],
    )
    add(
        B,
        "autopilot_hardware_hash",
        lambda: "T0G" + b64bytes(420),
        [
            "Autopilot hardware hash for the replacement laptop (upload CSV column): {v}",
        ],
    )
    add(
        B,
        "subject_key_identifier",
        lambda: ":".join(pick("0123456789ABCDEF", 2) for _ in range(20)),
        [
            "Issuing CA Subject Key Identifier {v} - matches AKI on the user certs",
            "X509v3 Authority Key Identifier: keyid:{v}",
        ],
    )
    add(
        B,
        "gpg_keygrip",
        lambda: pick("0123456789ABCDEF", 40),
        [
            "gpg --with-keygrip: Keygrip = {v} (smartcard stub, key is on the YubiKey)",
        ],
    )
    add(
        B,
        "cert_template_oid",
        lambda: (
            "1.3.6.1.4.1.311.21.8." + ".".join(str(r.randint(1000, 16777215)) for _ in range(6))
        ),
        [
            "Cert template 'Corp-WiFi-User' OID {v}; ESC1 audit: enrollee can't supply SAN - ok",
        ],
    )
    add(
        B,
        "intune_policy_id",
        uid,
        [
            "Intune compliance policy 'Win11-Baseline' id {v} assigned to All Devices",
            "Graph: GET /deviceManagement/configurationPolicies/{v}/assignments",
        ],
    )
    add(
        B,
        "workspace_customer_id",
        lambda: "C0" + pick(LO + DG, 7),
        [
            "Google Workspace customer ID {v} - support asks for it, not sensitive",
        ],
    )
    add(
        B,
        "jamf_management_id",
        uid,
        [
            "Jamf computer id 1882, management id {v}, last check-in yesterday",
        ],
    )
    add(
        B,
        "apns_topic",
        lambda: "com.apple.mgmt.External." + uid(),
        [
            "APNs cert topic {v}; renewal due {d} with the same Apple ID!",
        ],
    )
    add(
        B,
        "fortigate_serial",
        lambda: "FGT60F" + pick(UP + DG, 10),
        [
            "HA pair: primary {v}, firmware 7.4.5",
            "FortiCare registration for {v} renewed",
        ],
    )
    add(
        B,
        "ipsec_spi_log",
        lambda: "0x" + pick(HEX, 8),
        [
            "charon: CHILD_SA net-net{3} established with SPIs {v}_i c3f0a921_o - tunnel up",
        ],
    )
    add(
        B,
        "acme_account_url",
        lambda: "https://acme-v02.api.letsencrypt.org/acme/acct/" + pick(DG, 10),
        [
            "certbot account {v} registered with it-certs@example.org",
        ],
    )
    add(
        B,
        "firmware_checksum",
        lambda: pick(HEX, 32),
        [
            "MD5 of the switch firmware image from the portal: {v} - matches download",
        ],
    )
    add(
        B,
        "token_lifetime_talk",
        None,
        [
            "Okta access token lifetime 1h, refresh token 90 days idle; tightened for admin apps.",
            "Entra CAE is on, so revoked sessions die in minutes instead of waiting for token "
            "expiry.",
            "Le jeton d'accès dure 60 minutes ; le refresh token est révoqué à la désactivation.",
        ],
    )
    add(
        B,
        "password_field_schema",
        None,
        [
            "Asset DB columns: hostname, serial, owner, password_last_set, bitlocker_escrowed "
            "(bool).",
            "CSV import for Bitwarden needs columns "
            "folder,name,login_uri,login_username,login_password.",
        ],
    )
    add(
        B,
        "vault_secret_path",
        lambda: "kv/data/infra/" + r.choice(["ldap/bind", "veeam/enc", "fw/api"]),
        [
            "vault kv get -field=password {v}  (reads at runtime; nothing stored here)",
            "Policy 'backup-ro' allows read on {v} only",
        ],
    )
    add(
        B,
        "veeam_password_hint",
        lambda: "usual DR pattern + quarter",
        [
            "Veeam encryption password hint field: '{v}'. The password itself is in the DR binder.",
        ],
    )
    add(
        B,
        "entra_error_code",
        lambda: "AADSTS" + r.choice(["50126", "50076", "700016", "7000215", "53003"]),
        [
            "Login failing with {v} for the HR app - CA policy blocked it, not the secret.",
            "{v} = invalid client secret provided; rotated it in Key Vault, app picked it up.",
        ],
    )
    add(
        B,
        "windows_logon_event",
        lambda: "{" + uid() + "}",
        [
            "4624 logon type 3, Logon GUID {v}, account svc_scan from {ip}",
            "4769 ticket encryption type 0x17 (RC4) for svc_sqlagent, Logon GUID {v} - flag for "
            "AES",
        ],
    )
    add(
        B,
        "okta_factor_and_policy_ids",
        lambda: r.choice(["00p", "rul", "ost", "uft"]) + pick(AN, 17),
        [
            "Okta sign-on policy {v} requires phishing-resistant factor for admins",
            "Okta id {v} in the system log is the authenticator policy rule, not a key",
        ],
    )
    add(
        B,
        "masked_psk",
        lambda: pick(AN, 3) + "•" * 20,
        [
            "FortiGate GUI shows the IPsec PSK as {v} - had to pull the real one from the vault",
        ],
    )
    add(
        B,
        "cert_request_id",
        lambda: str(r.randint(10000, 999999)),
        [
            "certreq ID {v} pending CA manager approval (Web Server template)",
        ],
    )
    add(
        B,
        "hsm_partition_serial",
        lambda: str(r.randint(1_000_000, 9_999_999)),
        [
            "Luna partition serial {v}, HA group with the DR HSM, firmware 7.8.4",
        ],
    )
    add(
        B,
        "yubikey_otp_public_id",
        lambda: pick("cbdefghijklnrtuv", 12),
        [
            "YubiKey OTP public id {v} (first 12 modhex chars, identifies the key only)",
        ],
    )
    add(
        B,
        "revoked_token_talk",
        None,
        [
            "Okta API token 'legacy-sync' revoked and deleted; no replacement needed (script "
            "retired).",
        ],
    )
    add(
        B,
        "env_var_reference",
        lambda: "${RESTIC_PASSWORD_FILE}",
        [
            "restic reads the repo password from {v} (root-only file on the backup host)",
        ],
    )
    add(
        B,
        "placeholder_password",
        lambda: "<your-entra-client-secret>",
        [
            "AZURE_CLIENT_SECRET={v}\nAZURE_CLIENT_ID=1f0e2d3c-4b5a-4968-8776-a5b4c3d2e1f0",
        ],
    )
    add(
        B,
        "cert_thumbprint",
        lambda: pick("0123456789ABCDEF", 64),
        [
            "Cert SHA256 thumbprint {v} bound to port 443 on the ADFS proxy",
        ],
    )
    add(
        B,
        "audit_sha256_file_hash",
        lambda: pick(HEX, 40),
        [
            "Veeam immutability audit: SHA-1 of backup metadata file {v} unchanged since {d}",
        ],
    )
    add(
        B,
        "object_guid",
        uid,
        [
            "AdminSDHolder cleanup: user with objectGUID {v} had adminCount=1 left over",
        ],
    )
    add(
        B,
        "conditional_access_policy_id",
        uid,
        [
            "Okta -> Entra federation: CA policy {v} set to report-only for a week",
        ],
    )
    add(
        B,
        "mac_address",
        lambda: "-".join(pick("0123456789ABCDEF", 2) for _ in range(6)),
        [
            "Wake-on-LAN target for the backup server: {v}",
        ],
    )
    add(
        B,
        "docs_example_key",
        lambda: "00000000-0000-0000-0000-000000000000",
        [
            "Default tenant placeholder {v} still in the app manifest sample",
        ],
    )
    add(
        B,
        "base64_non_secret",
        lambda: (
            base64.b64encode(b'{"alg":"RS256","kid":"' + pick(HEX, 8).encode() + b'","typ":"JWT"}')
            .decode()
            .rstrip("=")
        ),
        [
            "Only the JWT header from the error page (no payload/signature): {v}",
        ],
    )

    return rows


def main() -> None:
    rows = corpus()
    for row in rows:
        assert row["value"] in row["text"], row
    text = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w", encoding="utf-8") as fh:
            fh.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()

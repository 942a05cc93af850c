"""Blind secret-detector corpus 45: school district and small college IT.

Brief: IT staff and developers of a school district and a small college: Google
Workspace and Microsoft 365 for Education admin, LMS integrations (Canvas, Moodle,
Schoology: LTI keys and secrets, developer keys), student information systems and
rostering (PowerSchool, Clever, ClassLink, OneRoster), Chromebook and iPad fleet
management (MDM enrolment tokens, DEP/ABM), printers and copier scan-to-email, Wi-Fi
(RADIUS, WPA2-Enterprise, guest PSKs), door access and camera systems, library and
cafeteria systems, shared staff accounts.

Written blind on 2026-12-07: the author did not read the detector, its tests or any
earlier corpus.

Run: python blind_secrets_45.py [out.jsonl]   (JSONL to the path, or stdout)

Secret kinds (76):
    google_oauth_client_secret, google_api_key, google_refresh_token,
    google_service_account_private_key, google_admin_password,
    google_workspace_backup_codes, azure_app_client_secret,
    m365_global_admin_password, ms_graph_access_token, canvas_access_token,
    canvas_developer_key_secret, lti_1_1_shared_secret, moodle_webservice_token,
    moodle_db_password, schoology_consumer_secret, powerschool_plugin_client_secret,
    powerschool_db_password, clever_district_token, clever_client_secret,
    classlink_oneroster_secret, roster_sftp_password, jamf_api_client_secret,
    jamf_admin_password, mosyle_api_token, apple_vpp_content_token,
    apns_cert_password, chrome_enrollment_token, managed_apple_id_password,
    printer_admin_password, copier_smtp_app_password, smtp_relay_password,
    radius_shared_secret, wpa_psk_guest, wpa_psk_staff_iot,
    wifi_service_account_password, meraki_api_key, unifi_controller_password,
    snmp_rw_community, verkada_api_key, door_access_admin_password,
    nvr_rtsp_credentials, library_system_password, cafeteria_pos_password,
    shared_staff_account_password, ad_domain_admin_password, ldap_bind_password,
    openssh_private_key, saml_signing_private_key, github_pat, gitlab_pat,
    aws_secret_access_key, azure_storage_account_key, postgres_url_password,
    sendgrid_api_key, twilio_auth_token, stripe_secret_key, zoom_s2s_client_secret,
    duo_secret_key, okta_api_token, totp_seed, bitlocker_recovery_key,
    slack_webhook_url, teams_webhook_url, npm_token, canvas_session_cookie,
    goguardian_api_key, visitor_mgmt_api_key, clearpass_api_client_secret,
    destiny_api_secret, wifi_qr_string, wpa_supplicant_password,
    powerschool_access_token, papercut_web_services_token, mysql_cli_password,
    guest_psk_translated, shared_account_translated

Benign kinds (82):
    google_oauth_client_id, google_customer_id, service_account_key_id,
    azure_tenant_id, azure_app_client_id, azure_secret_id, canvas_developer_key_id,
    lti_public_jwk, lti_consumer_key, moodle_token_placeholder,
    schoology_consumer_key, clever_district_id, oneroster_sourcedid,
    powerschool_plugin_client_id, powerschool_student_ids, redacted_password,
    redacted_token, vault_reference, env_var_reference, key_vault_reference,
    revoked_stated_token, chromebook_serial, ipad_udid, mac_address, wifi_ssid_list,
    radius_server_endpoint, cert_fingerprint, ca_certificate_pem, ssh_public_key,
    public_key_pem, git_commit_sha, file_sha256, docker_digest, npm_integrity,
    google_site_verification, dkim_public_record, ms_domain_verification,
    recaptcha_site_key, stripe_publishable_key, twilio_account_sid,
    duo_integration_key, okta_client_id, meraki_ids, verkada_device_id,
    bitlocker_key_id, aws_doc_example, placeholder_secret, google_drive_file_id,
    youtube_id, jwks_kid, request_correlation_id, cert_serial, isbn_barcode,
    asset_tag, ticket_number, password_policy_talk, password_reset_note,
    physical_key, answer_key, keyboard_shortcut_enroll, sql_primary_key,
    token_other_sense, abm_org_info, mdm_enrollment_process, secret_talk_no_value,
    base64_image, gmail_message_id, oneroster_csv_header, public_cal_ics,
    printer_default_doc, hash_of_value_stated, wifi_qr_placeholder, jwt_io_example,
    eap_tls_config_no_password, classroom_course_id, translated_secret_talk,
    ssh_host_fingerprint, empty_password_field, intune_device_id, ldap_oid,
    eap_settings, license_key_public_part
"""

# ruff: noqa: E501

import json
import random
import string
import sys

SEED = 4545

A = string.ascii_letters + string.digits
HEX = "0123456789abcdef"
B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"


def corpus() -> list[dict]:
    r = random.Random(SEED)

    def s(n, alpha=A):
        return "".join(r.choice(alpha) for _ in range(n))

    def hx(n):
        return s(n, HEX)

    def uuid():
        return f"{hx(8)}-{hx(4)}-4{hx(3)}-{r.choice('89ab')}{hx(3)}-{hx(12)}"

    def b64(n):
        return s(n, A + "+/")

    def pw():
        words = ["Falcon", "Maple", "River", "Cobalt", "Lunch", "Tiger", "Harbor", "Panda"]
        return r.choice(words) + s(3, string.digits) + r.choice("!#$%&*") + s(4, A)

    def pem(tag, lines=4):
        body = "\n".join(b64(64) for _ in range(lines)) + "\n" + b64(24) + "=="
        return f"-----BEGIN {tag}-----\n{body}\n-----END {tag}-----"

    def jwt():
        h = "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9"
        return f"{h}.eyJ{s(90, A + '-_')}.{s(86, A + '-_')}"

    def azsec():
        return s(3) + "8Q~" + s(31, A + "_~.-")

    def serial():
        return s(12, string.ascii_uppercase + string.digits)

    gens = {
        "gocspx": lambda: "GOCSPX-" + s(28, A + "-_"),
        "aiza": lambda: "AIza" + s(35, A + "-_"),
        "grefresh": lambda: "1//0" + s(60, A + "-_"),
        "azsec": azsec,
        "pw": pw,
        "canvas_tok": lambda: f"{r.randint(1, 9)}~{s(64)}",
        "canvas_devsecret": lambda: s(64),
        "hex32": lambda: hx(32),
        "hex40": lambda: hx(40),
        "lti": lambda: s(24, A),
        "uuid": uuid,
        "b64blob": lambda: b64(120) + "=",
        "gapp": lambda: " ".join(s(4, string.ascii_lowercase) for _ in range(4)),
        "psk": lambda: (
            r.choice(["Bluejay", "Owls", "Eagles", "Comets"]) + "-" + s(6) + s(2, "0123456789")
        ),
        "radius": lambda: s(22, A + "!@#%^*"),
        "vkd": lambda: "vkd_api_" + hx(32),
        "ghp": lambda: "ghp_" + s(36),
        "aws_secret": lambda: s(40, A + "/+"),
        "sg": lambda: "SG." + s(22, A + "-_") + "." + s(43, A + "-_"),
        "sk_live": lambda: "sk_live_" + s(24 + r.randint(0, 75)),
        "zoom": lambda: s(32),
        "duo_skey": lambda: s(40),
        "okta": lambda: "00" + s(40, A + "-_"),
        "jwt": jwt,
        "meraki": lambda: hx(40),
        "totp": lambda: s(32, B32),
        "bitlocker": lambda: "-".join(f"{r.randint(0, 65535) * 11:06d}" for _ in range(8)),
        "backup_codes": lambda: "  ".join(
            f"{r.randint(1000, 9999)} {r.randint(1000, 9999)}" for _ in range(5)
        ),
        "npm": lambda: "npm_" + s(36),
        "az_storage": lambda: b64(86) + "==",
        "rsa_pem": lambda: pem("RSA PRIVATE KEY"),
        "pk_pem": lambda: pem("PRIVATE KEY"),
        "openssh": lambda: pem("OPENSSH PRIVATE KEY", 3),
        "snmp": lambda: s(14, A + "_"),
        "vpp": lambda: "eyJ" + s(150, A) + "==",
        "slack": lambda: (
            f"https://hooks.slack.com/services/T{s(8, string.ascii_uppercase + string.digits)}/B{s(8, string.ascii_uppercase + string.digits)}/{s(24)}"
        ),
        "teams": lambda: (
            f"https://lakeviewsd.webhook.office.com/webhookb2/{uuid()}@{uuid()}/IncomingWebhook/{hx(32)}/{uuid()}/V2{s(40, A + '-_')}"
        ),
        "twilio": lambda: hx(32),
        "chrome_enroll": lambda: uuid(),
        "ps_secret": lambda: uuid(),
        "session": lambda: s(48, A + "%"),
        "gitlab": lambda: "glpat-" + s(20, A + "-_"),
    }

    S = []  # (kind, gen, [templates])
    S += [
        (
            "google_oauth_client_secret",
            "gocspx",
            [
                "Rostering sync app (GCP project lvsd-roster): client secret = {v}",
                "GOOGLE_CLIENT_SECRET={v}\nGOOGLE_CLIENT_ID=48211907733-k2l9.apps.googleusercontent.com",
                "note to self: the Classroom grade-export OAuth client's secret is {v}, don't regenerate it before finals",
            ],
        ),
        (
            "google_api_key",
            "aiza",
            [
                "Admin SDK calls from the asset script use key {v} (unrestricted, fix later)",
                "gcp: api_key: {v}  # Directory API, district tenant",
            ],
        ),
        (
            "google_refresh_token",
            "grefresh",
            [
                "refresh token for it-automation@lakeviewsd.org (GAM oauth2.txt): {v}",
                "GAM kept failing so I pasted the refresh_token into the config by hand: {v}",
                '{"token_uri": "https://oauth2.googleapis.com/token", "refresh_token": "{v}"}',
            ],
        ),
        (
            "google_service_account_private_key",
            "pk_pem",
            [
                "svc-gam key json private_key (domain-wide delegation):\n{v}",
                "Pasting the Chromebook inventory service account key so I don't lose it:\n{v}",
            ],
        ),
        (
            "google_admin_password",
            "pw",
            [
                "Super admin break-glass: superadmin@lakeviewsd.org / {v}",
                "Workspace super admin pw changed today to {v} (old one was on the sticky note)",
                "If SSO breaks, log into admin.google.com as gadmin-2@lvsd.k12.us with password {v}",
            ],
        ),
        (
            "google_workspace_backup_codes",
            "backup_codes",
            [
                "2SV backup codes for the super admin account:\n{v}",
                "Backup codes (printed copy in safe too): {v}",
            ],
        ),
        (
            "azure_app_client_secret",
            "azsec",
            [
                "Entra app 'SDS Sync' client secret (expires 2027-06): {v}",
                "AZURE_CLIENT_SECRET={v}\nAZURE_TENANT_ID=6f1c2a9e-02b4-4d1f-9a6e-33c0e2b1a7d4",
                "M365 Education graph app -> Certificates & secrets -> value {v}",
            ],
        ),
        (
            "m365_global_admin_password",
            "pw",
            [
                "Global admin for the college tenant: admin@stmarkscollege.onmicrosoft.com pw {v}",
                "Teams for Edu admin login reset, new pass: {v}",
                "emergency access account (excluded from CA): breakglass01 / {v}",
            ],
        ),
        (
            "ms_graph_access_token",
            "jwt",
            [
                "Graph token from the SDS debug session, still valid ~50 min: Bearer {v}",
                "curl -H 'Authorization: Bearer {v}' https://graph.microsoft.com/v1.0/education/classes",
            ],
        ),
        (
            "canvas_access_token",
            "canvas_tok",
            [
                "Canvas API token for the SIS import user: {v}",
                "CANVAS_TOKEN={v}\nCANVAS_URL=https://lakeview.instructure.com",
                "generated a new access token under the integration account (no expiry): {v}",
            ],
        ),
        (
            "canvas_developer_key_secret",
            "canvas_devsecret",
            [
                "Canvas developer key 170000000000412 (Turnitin LTI 1.3 bridge) key secret: {v}",
                "dev key for the gradebook sync, client_id 170000000000388, client_secret {v}",
                "Canvas > Developer Keys > 'Library OAuth' > Show Key: {v}",
            ],
        ),
        (
            "lti_1_1_shared_secret",
            "lti",
            [
                "LTI 1.1 tool for Gizmos: consumer key lvsd_gizmos, shared secret {v}",
                "Moodle external tool config: Tool URL https://edpuzzle.example/lti, Consumer key: lakeview, Shared secret: {v}",
                "Schoology app install asked for the LTI secret; it's {v}",
            ],
        ),
        (
            "moodle_webservice_token",
            "hex32",
            [
                "Moodle web service token (user wsuser, service 'roster_sync'): {v}",
                "https://moodle.stmarks.edu/webservice/rest/server.php?wstoken={v}&wsfunction=core_user_get_users",
                'MOODLE_WSTOKEN = "{v}"',
            ],
        ),
        (
            "moodle_db_password",
            "pw",
            [
                "moodle config.php: $CFG->dbpass = '{v}';",
                "Moodle DB (mariadb on lms-db01) user moodleuser password {v}",
            ],
        ),
        (
            "schoology_consumer_secret",
            "hex32",
            [
                "Schoology API: consumer key 7e1d02c9a1b86f3e0bfa3c6a44e80f9d05f2, consumer secret {v}",
                "schoology system admin -> API credentials, secret = {v}",
                "SCHOOLOGY_SECRET={v}",
            ],
        ),
        (
            "powerschool_plugin_client_secret",
            "ps_secret",
            [
                "PowerSchool plugin 'Clever Sync' client secret: {v}",
                "PS oauth for the data warehouse plugin: client_id 8c3e90f2-1a77-4f0e-b2aa-64dc01e9f315 client_secret {v}",
            ],
        ),
        (
            "powerschool_db_password",
            "pw",
            [
                "PSNAVIGATOR read-only oracle password: {v}",
                "PowerSchool ODBC DSN ps-prod: user PS, password {v}",
                "sis db: jdbc:oracle:thin:PSNAVIGATOR/{v}@ps-db.lakeviewsd.org:1521/PSPRODDB",
            ],
        ),
        (
            "clever_district_token",
            "hex40",
            [
                "Clever district-app bearer token for Lakeview: {v}",
                'curl -H "Authorization: Bearer {v}" https://api.clever.com/v3.0/sections',
                "Clever instant login app token (district 5a7f...): {v}",
            ],
        ),
        (
            "clever_client_secret",
            "hex40",
            [
                "Clever app client secret: {v}",
                "CLEVER_CLIENT_ID=9d2e6f10b33a7c44e51a\nCLEVER_CLIENT_SECRET={v}",
            ],
        ),
        (
            "classlink_oneroster_secret",
            "hex32",
            [
                "ClassLink Roster Server OneRoster app 'Destiny': key 3d9a10c6f72e4b0c99e1ab52, secret {v}",
                "OneRoster 1.1 OAuth1 creds from ClassLink: client secret {v}",
                "oneroster_secret: {v}  # ClassLink tenant 1187",
            ],
        ),
        (
            "roster_sftp_password",
            "pw",
            [
                "ClassLink SFTP for the nightly CSV drop: sftp://lakeview1187@sftp.classlink.com pw {v}",
                "Clever SFTP upload user dollywood-isd-sftp, password: {v}",
                "roster export job -> sftp.oneroster-host.net, login rosterbot / {v}",
            ],
        ),
        (
            "jamf_api_client_secret",
            "s64",
            [
                "Jamf Pro API client 'Inventory Bot': client secret {v}",
                "JAMF_CLIENT_SECRET={v}",
            ],
        ),
        (
            "jamf_admin_password",
            "pw",
            [
                "Jamf Pro local admin (jss.lakeviewsd.org:8443): jamfadmin / {v}",
                "Jamf School: network admin login it@lakeviewsd.org password {v}",
            ],
        ),
        (
            "mosyle_api_token",
            "s40",
            [
                "Mosyle Manager API access token: {v}",
                "mosyle integrations -> API token for the iPad cart script: {v}",
            ],
        ),
        (
            "apple_vpp_content_token",
            "vpp",
            [
                "ABM Apps and Books content token (sToken) for the Lakeview location: {v}",
                "vpp sToken pasted from the .vpptoken file: {v}",
            ],
        ),
        (
            "apns_cert_password",
            "pw",
            [
                "APNs push cert (MDM_LakeviewSD.p12) export password: {v}",
                "password for the p12 we upload to Jamf for push: {v}",
            ],
        ),
        (
            "chrome_enrollment_token",
            "chrome_enroll",
            [
                "Chrome Browser Cloud Management enrollment token for the Staff OU: {v}",
                "CloudManagementEnrollmentToken = {v} (push via GPO to lab PCs)",
            ],
        ),
        (
            "managed_apple_id_password",
            "pw",
            [
                "ABM admin managed Apple ID abm-admin@appleid.lakeviewsd.org pw {v}",
                "Apple School Manager login for the college: asm@stmarks.edu / {v}",
            ],
        ),
        (
            "printer_admin_password",
            "pw",
            [
                "Ricoh IM C4500 in the main office, web admin: admin / {v}",
                "Xerox AltaLink (library) admin pw changed from default to {v}",
                "PaperCut MF admin console login: admin, password {v}",
            ],
        ),
        (
            "copier_smtp_app_password",
            "gapp",
            [
                "scan-to-email on the copiers sends as scanner@lakeviewsd.org with app password {v}",
                "Canon copier SMTP auth: smtp.gmail.com:587 user copier@lvsd.k12.us pass {v}",
                "Google app password for the Konica scan relay: {v}",
            ],
        ),
        (
            "smtp_relay_password",
            "pw",
            [
                "M365 SMTP AUTH for the Sharp copiers: scans@stmarks.edu / {v}",
                "smtp relay (smtp2go) for the cafeteria low-balance emails: user lvsd-cafe password {v}",
            ],
        ),
        (
            "radius_shared_secret",
            "radius",
            [
                "NPS RADIUS client 'Meraki-HS' shared secret: {v}",
                "ClearPass network device (wlc-02) RADIUS shared secret {v}",
                "radius-server host 10.20.0.15 key {v}",
            ],
        ),
        (
            "wpa_psk_guest",
            "psk",
            [
                "Guest Wi-Fi (LVSD-Guest) PSK for this semester: {v}",
                "wpa_passphrase={v}",
                "Visitor wifi password for back-to-school night: {v}",
            ],
        ),
        (
            "wpa_psk_staff_iot",
            "psk",
            [
                "LVSD-IoT SSID (smartboards, Apple TVs) PSK: {v}",
                "Staff-Devices network key is {v} - don't give to students",
            ],
        ),
        (
            "wifi_service_account_password",
            "pw",
            [
                "svc-8021x (AD account used for WPA2-Enterprise cert auth lookups) password: {v}",
                "Chromebook Wi-Fi policy uses PEAP with svc-cbwifi / {v}",
            ],
        ),
        (
            "meraki_api_key",
            "meraki",
            [
                "Meraki dashboard API key (org Lakeview SD): {v}",
                "X-Cisco-Meraki-API-Key: {v}",
            ],
        ),
        (
            "unifi_controller_password",
            "pw",
            [
                "UniFi controller at the college annex, local admin ubnt-it / {v}",
                "Ubiquiti cloud key password: {v}",
            ],
        ),
        (
            "snmp_rw_community",
            "snmp",
            [
                "SNMP RW community on the core switches: {v}",
                "snmp-server community {v} RW 10",
            ],
        ),
        (
            "verkada_api_key",
            "vkd",
            [
                "Verkada Command API key (cameras + door access): {v}",
                "VERKADA_API_KEY={v}",
            ],
        ),
        (
            "door_access_admin_password",
            "pw",
            [
                "Brivo admin for the HS doors: brivo-it / {v}",
                "Genetec Synergis admin password (building access): {v}",
                "Door controller (Mercury panel, bldg C) web login admin:{v}",
            ],
        ),
        (
            "nvr_rtsp_credentials",
            "pw",
            [
                "camera feed for the front office: rtsp://admin:{v}@10.40.3.21:554/Streaming/Channels/101",
                "Hikvision NVR in the MDF, admin / {v}",
            ],
        ),
        (
            "library_system_password",
            "pw",
            [
                "Follett Destiny district admin: destinyadmin / {v}",
                "Koha staff client superlibrarian password {v}",
            ],
        ),
        (
            "cafeteria_pos_password",
            "pw",
            [
                "Nutrikids / LINQ Nutrition admin login for food service: foodsvc-admin pw {v}",
                "cafeteria POS terminal manager PIN+password: {v}",
                "MySchoolBucks merchant portal for the district: business@lakeviewsd.org / {v}",
            ],
        ),
        (
            "shared_staff_account_password",
            "pw",
            [
                "Shared account for substitutes: sub01@lakeviewsd.org password {v}",
                "front desk shared login (frontdesk@stmarks.edu): {v}",
                "Testing coordinator shared account for state assessments: {v}",
            ],
        ),
        (
            "ad_domain_admin_password",
            "pw",
            [
                "LVSD\\da-jsmith password: {v}",
                "Domain admin for the college DC (STMARKS\\Administrator): {v}",
            ],
        ),
        (
            "ldap_bind_password",
            "pw",
            [
                "Moodle LDAP auth plugin bind user CN=svc-moodle,OU=Service,DC=stmarks,DC=edu pw {v}",
                'ldap_bind_pw: "{v}"',
                "Destiny LDAP sync: bind DN uid=destiny,ou=apps password {v}",
            ],
        ),
        (
            "openssh_private_key",
            "openssh",
            [
                "deploy key for the roster-scripts box:\n{v}",
                "ssh key I use for lms-db01 (id_ed25519):\n{v}",
            ],
        ),
        (
            "saml_signing_private_key",
            "rsa_pem",
            [
                "SAML IdP signing key for the college SSO (shibboleth idp-signing.key):\n{v}",
                "private key for the ADFS token-signing cert, export:\n{v}",
            ],
        ),
        (
            "github_pat",
            "ghp",
            [
                "GitHub PAT for the lvsd-it org (repo scope): {v}",
                "git clone https://{v}@github.com/lvsd-it/oneroster-sync.git",
                "GH_TOKEN={v}",
            ],
        ),
        (
            "gitlab_pat",
            "gitlab",
            [
                "college gitlab token for CI runner: {v}",
                "GITLAB_TOKEN={v}",
            ],
        ),
        (
            "aws_secret_access_key",
            "aws_secret",
            [
                "S3 backup of the SIS exports: AKIA4W7QZ2MLT5NB3RXD / {v}",
                "aws_secret_access_key = {v}",
            ],
        ),
        (
            "azure_storage_account_key",
            "az_storage",
            [
                "DefaultEndpointsProtocol=https;AccountName=lvsdbackups;AccountKey={v};EndpointSuffix=core.windows.net",
                "storage key1 for the camera archive account: {v}",
            ],
        ),
        (
            "postgres_url_password",
            "pw",
            [
                "postgresql://attendance_app:{v}@db.lakeviewsd.org:5432/attendance",
                "DATABASE_URL=postgres://cafe:{v}@10.10.5.8/mealcounts",
            ],
        ),
        (
            "sendgrid_api_key",
            "sg",
            [
                "SendGrid key for the snow-day notifications: {v}",
                "SENDGRID_API_KEY={v}",
            ],
        ),
        (
            "twilio_auth_token",
            "twilio",
            [
                "Twilio (attendance robocalls) auth token: {v} for account AC0b9e7f2c41d3a58e6f0c2b9d7a1e4f36",
                "TWILIO_AUTH_TOKEN={v}",
            ],
        ),
        (
            "stripe_secret_key",
            "sk_live",
            [
                "college bookstore Stripe live secret: {v}",
                "STRIPE_SECRET_KEY={v}",
            ],
        ),
        (
            "zoom_s2s_client_secret",
            "zoom",
            [
                "Zoom server-to-server app for class recordings: client secret {v}",
                "zoom: account_id Xq7P2kLm9vRs, client_id Gh3JkL8mNp, client_secret {v}",
            ],
        ),
        (
            "duo_secret_key",
            "duo_skey",
            [
                "Duo integration for the VPN: ikey DIWJ8X5G3Q2M7K1P0ZRY, skey {v}",
                "skey={v}",
            ],
        ),
        (
            "okta_api_token",
            "okta",
            [
                "Okta API token (college tenant, super admin scope): {v}",
                "Authorization: SSWS {v}",
            ],
        ),
        (
            "totp_seed",
            "totp",
            [
                "TOTP secret for the shared helpdesk admin account (add to authenticator): {v}",
                "otpauth://totp/LVSD:helpdesk@lakeviewsd.org?secret={v}&issuer=LVSD",
            ],
        ),
        (
            "bitlocker_recovery_key",
            "bitlocker",
            [
                "BitLocker recovery key for the business office laptop BO-LT-07: {v}",
                "recovery password (key ID 3F2A...): {v}",
            ],
        ),
        (
            "slack_webhook_url",
            "slack",
            [
                "IT alerts webhook (posts to #it-alerts): {v}",
                "SLACK_WEBHOOK={v}",
            ],
        ),
        (
            "teams_webhook_url",
            "teams",
            [
                "Teams incoming webhook for the printer-jam alerts channel: {v}",
            ],
        ),
        (
            "npm_token",
            "npm",
            [
                "npm publish token for @lvsd/roster-utils: {v}",
                "//registry.npmjs.org/:_authToken={v}",
            ],
        ),
        (
            "canvas_session_cookie",
            "session",
            [
                "copied the canvas_session cookie from the admin browser to reproduce the bug: {v}",
                "Cookie: _normandy_session={v}",
            ],
        ),
        (
            "goguardian_api_key",
            "s40",
            [
                "GoGuardian admin API key: {v}",
                "Securly filter API key for the Chromebook OU sync: {v}",
            ],
        ),
        (
            "visitor_mgmt_api_key",
            "s32",
            [
                "Raptor visitor management API key: {v}",
                "Lobby kiosk (Raptor) integration key {v}",
            ],
        ),
        (
            "clearpass_api_client_secret",
            "s40",
            [
                "Aruba ClearPass API client 'guest-onboard' secret: {v}",
                "clearpass oauth: grant_type=client_credentials client_id=guestbot client_secret={v}",
            ],
        ),
        (
            "destiny_api_secret",
            "s32",
            [
                "Follett Destiny Resource Manager API secret: {v}",
            ],
        ),
    ]
    gens["s64"] = lambda: s(64)
    gens["s40"] = lambda: s(40)
    gens["s32"] = lambda: s(32)

    B = []
    B += [
        (
            "google_oauth_client_id",
            lambda: (
                f"{r.randint(10**11, 10**12)}-{s(32, string.ascii_lowercase + string.digits)}.apps.googleusercontent.com"
            ),
            [
                "Rostering OAuth client id: {v} (secret is in 1Password, not here)",
                "GOOGLE_CLIENT_ID={v}",
                "Domain-wide delegation granted to client {v} for Classroom scopes",
            ],
        ),
        (
            "google_customer_id",
            lambda: "C0" + s(7, string.ascii_lowercase + string.digits),
            [
                "Workspace customer ID for Lakeview: {v}",
                "GAM info domain shows customer id {v}",
                "support ticket asked for our customer ID: {v}",
            ],
        ),
        (
            "service_account_key_id",
            lambda: hx(40),
            [
                "svc-gam key id (private_key_id) is {v}; the key file itself lives in the vault",
                "deleted old service account key {v} from the console",
                "GCP audit: key {v} last used 2026-11-30",
            ],
        ),
        (
            "azure_tenant_id",
            uuid,
            [
                "college tenant ID: {v}",
                "AZURE_TENANT_ID={v}",
                "SDS sync setup needs the directory (tenant) id {v}",
            ],
        ),
        (
            "azure_app_client_id",
            uuid,
            [
                "Entra app 'SDS Sync' application (client) id: {v}",
                "client_id: {v}  # secret in Key Vault kv-lvsd-it / sds-sync",
                "Grant admin consent for app id {v} in the Edu tenant",
            ],
        ),
        (
            "azure_secret_id",
            uuid,
            [
                "Rotated the SDS Sync client secret; new secret ID {v} (value is in Key Vault only)",
                "Certificates & secrets shows Secret ID {v}, expires 2027-06-01",
                "secret id {v} is the one expiring, not the value",
            ],
        ),
        (
            "canvas_developer_key_id",
            lambda: "1700000000" + s(5, string.digits),
            [
                "Canvas developer key ID for the Turnitin LTI 1.3 bridge: {v}",
                "LTI client_id = {v} (deployment id 42:8e0f1c)",
                "turn on dev key {v} for the Biology sub-account",
            ],
        ),
        (
            "lti_public_jwk",
            lambda: s(342, A + "-_"),
            [
                'LTI 1.3 tool public JWK: {"kty":"RSA","e":"AQAB","alg":"RS256","kid":"lvsd-2026","n":"{v}"}',
                "public key (JWK n) the tool published at /.well-known/jwks.json: {v}",
            ],
        ),
        (
            "lti_consumer_key",
            lambda: "lvsd_" + s(10, string.ascii_lowercase + string.digits),
            [
                "LTI 1.1 consumer key for the Gizmos tool is {v}; shared secret kept in the LMS vault",
                "oauth_consumer_key={v} shows up in the launch log, that's expected",
                "consumer key {v} (the key, not the secret)",
            ],
        ),
        (
            "moodle_token_placeholder",
            lambda: "YOUR_WSTOKEN_HERE",
            [
                "Moodle REST example for the wiki: ...server.php?wstoken={v}&wsfunction=core_course_get_courses",
                "MOODLE_WSTOKEN={v}  # fill in from Site admin > Server > Manage tokens",
                "replace {v} with your own token before running roster_check.py",
            ],
        ),
        (
            "schoology_consumer_key",
            lambda: hx(36),
            [
                "Schoology API consumer key {v} (this is the public half; secret in vault item 'Schoology API')",
                'log line: oauth_consumer_key="{v}", oauth_signature_method="PLAINTEXT"',
            ],
        ),
        (
            "clever_district_id",
            lambda: hx(24),
            [
                "Clever district id for Lakeview: {v}",
                "GET /v3.0/districts/{v} returns our district record",
                "Clever support ticket: district {v} sections not syncing",
            ],
        ),
        (
            "oneroster_sourcedid",
            uuid,
            [
                "OneRoster user sourcedId {v} duplicated between two schools",
                "class sourcedId {v} missing in ClassLink export",
                "enrollments.csv row with sourcedId {v} has no classSourcedId",
            ],
        ),
        (
            "powerschool_plugin_client_id",
            uuid,
            [
                "PowerSchool plugin 'Clever Sync' client id {v} (secret stored in Keeper)",
                "PS_CLIENT_ID={v}",
            ],
        ),
        (
            "powerschool_student_ids",
            lambda: str(r.randint(100000, 999999)),
            [
                "student DCID {v} shows twice in the roster extract",
                "PowerSchool student_number {v} has wrong grade level, fixed in SIS",
            ],
        ),
        (
            "redacted_password",
            lambda: "********",
            [
                "Copier admin password: {v} (stored in 1Password 'Printers')",
                "RADIUS shared secret = {v}  [redacted]",
                "svc-8021x / {v}",
            ],
        ),
        (
            "redacted_token",
            lambda: "ghp_" + "X" * 36,
            [
                "token was {v} in the screenshot (redacted before sending to vendor)",
                "Canvas token: 7~" + "*" * 20 + " (masked) - {v} for the GitHub one",
            ],
        ),
        (
            "vault_reference",
            lambda: r.choice(
                [
                    "op://IT-Systems/Canvas Dev Key/client_secret",
                    "op://Network/RADIUS NPS/shared secret",
                    "op://Facilities/Verkada API/credential",
                ]
            ),
            [
                "secret comes from {v} at deploy time",
                'CLEVER_CLIENT_SECRET="{v}"',
                "don't paste the value, use `op read {v}`",
            ],
        ),
        (
            "env_var_reference",
            lambda: "${" + r.choice(["RADIUS_SECRET", "MOODLE_WSTOKEN", "SCHOOLOGY_SECRET"]) + "}",
            [
                "radius-server key {v} (templated by ansible)",
                "config: secret: {v}",
                'password: "{v}"  # injected by the runner',
            ],
        ),
        (
            "key_vault_reference",
            lambda: (
                "@Microsoft.KeyVault(SecretUri=https://kv-lvsd-it.vault.azure.net/secrets/sds-sync/)"
            ),
            [
                "App setting AZURE_CLIENT_SECRET = {v}",
                "function app reads the Graph secret via {v}",
            ],
        ),
        (
            "revoked_stated_token",
            lambda: "ghp_" + s(36),
            [
                "LEAKED and REVOKED 2026-11-02: {v} (deleted in GitHub, replacement in vault, this value is dead)",
                "old PAT {v} - revoked by GitHub secret scanning on 11/02, keeping for the incident report only",
            ],
        ),
        (
            "chromebook_serial",
            serial,
            [
                "Chromebook serial {v} stuck in enrollment loop, wiped with powerwash",
                "device {v} deprovisioned (same model replacement)",
                "Lenovo 300e serial {v} — screen cracked, sent to repair",
            ],
        ),
        (
            "ipad_udid",
            lambda: "0000" + hx(4) + "-" + hx(16).upper(),
            [
                "iPad UDID {v} not checking in to Jamf since Tuesday",
                "ABM shows device with UDID {v} assigned to the wrong MDM server",
            ],
        ),
        (
            "mac_address",
            lambda: ":".join(hx(2) for _ in range(6)),
            [
                "whitelisted MAC {v} for the gym Apple TV on LVSD-IoT",
                "copier in room 114 has MAC {v}, DHCP reservation 10.30.1.44",
                "ClearPass endpoint {v} profiled as 'Printer'",
            ],
        ),
        (
            "wifi_ssid_list",
            lambda: r.choice(["LVSD-Staff", "LVSD-Student", "StMarks-Secure"]),
            [
                "SSIDs: {v} (WPA2-Enterprise, EAP-TLS), LVSD-Guest (captive portal), LVSD-IoT (PSK, vault)",
                "Chromebooks auto-join {v} via the network policy in the Student OU",
            ],
        ),
        (
            "radius_server_endpoint",
            lambda: f"10.20.0.{r.randint(2, 250)}",
            [
                "RADIUS auth {v}:1812, acct {v}:1813; shared secret stored in vault item 'NPS'",
                "add {v} as RADIUS client on the new WLC",
            ],
        ),
        (
            "cert_fingerprint",
            lambda: ":".join(hx(2).upper() for _ in range(32)),
            [
                "RADIUS server cert SHA-256 fingerprint (pin this in the Wi-Fi profile): {v}",
                "new NPS cert thumbprint {v}, expires 2028",
            ],
        ),
        (
            "ca_certificate_pem",
            lambda: pem("CERTIFICATE", 4),
            [
                "District root CA (public cert, push to Chromebooks as trusted):\n{v}",
                "Securly SSL inspection cert to install on iPads:\n{v}",
            ],
        ),
        (
            "ssh_public_key",
            lambda: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + s(43, A + "+/") + " it@roster01",
            [
                "authorized_keys on lms-db01:\n{v}",
                "my public key for the jump box: {v}",
            ],
        ),
        (
            "public_key_pem",
            lambda: pem("PUBLIC KEY", 4),
            [
                "Clever SSO signing public key:\n{v}",
                "PowerSchool SAML IdP public key from metadata:\n{v}",
            ],
        ),
        (
            "git_commit_sha",
            lambda: hx(40),
            [
                "roster-sync fix landed in {v}",
                "rolled the Moodle plugin back to commit {v}",
            ],
        ),
        (
            "file_sha256",
            lambda: hx(64),
            [
                "ChromeOS recovery image sha256: {v}",
                "PaperCut installer checksum {v} matches vendor page",
                "Jamf package hash {v}",
            ],
        ),
        (
            "docker_digest",
            lambda: "sha256:" + hx(64),
            [
                "moodle image pinned to bitnami/moodle@{v}",
                "pulled {v} for the Koha container",
            ],
        ),
        (
            "npm_integrity",
            lambda: "sha512-" + b64(86) + "==",
            [
                '"integrity": "{v}"',
            ],
        ),
        (
            "google_site_verification",
            lambda: "google-site-verification=" + s(43, A + "-_"),
            [
                "TXT record for stmarks.edu: {v}",
                "add {v} to DNS before adding the secondary domain",
            ],
        ),
        (
            "dkim_public_record",
            lambda: "v=DKIM1; k=rsa; p=MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA" + b64(180),
            [
                "google._domainkey TXT: {v}",
                "DKIM record for the copier relay domain: {v}",
            ],
        ),
        (
            "ms_domain_verification",
            lambda: "MS=ms" + s(8, string.digits),
            [
                "M365 domain verification TXT {v}",
                "old {v} record can be removed now",
            ],
        ),
        (
            "recaptcha_site_key",
            lambda: "6L" + s(38, A + "-_"),
            [
                "enrollment form reCAPTCHA site key (public): {v}",
                'data-sitekey="{v}"',
            ],
        ),
        (
            "stripe_publishable_key",
            lambda: "pk_live_" + s(99),
            [
                "bookstore checkout publishable key: {v}",
                "STRIPE_PUBLISHABLE_KEY={v}  # fine in the frontend",
            ],
        ),
        (
            "twilio_account_sid",
            lambda: "AC" + hx(32),
            [
                "Twilio account SID {v}, auth token in vault",
                "robocall logs filtered by AccountSid {v}",
            ],
        ),
        (
            "duo_integration_key",
            lambda: "DI" + s(18, string.ascii_uppercase + string.digits),
            [
                "Duo VPN integration key (ikey) {v}, skey in Keeper",
                "ikey={v}",
            ],
        ),
        (
            "okta_client_id",
            lambda: "0oa" + s(17),
            [
                "Okta app client id for Canvas SSO: {v}",
                "client_id={v} in the OIDC config (PKCE, no secret)",
            ],
        ),
        (
            "meraki_ids",
            lambda: "L_" + s(18, string.digits),
            [
                "Meraki network id for the HS: {v}",
                "GET /networks/{v}/wireless/ssids",
            ],
        ),
        (
            "verkada_device_id",
            uuid,
            [
                "Verkada camera id {v} offline (front lobby)",
                "door reader device {v} lost PoE",
            ],
        ),
        (
            "bitlocker_key_id",
            lambda: uuid().upper(),
            [
                "BitLocker recovery key ID {v} - look up the key in Intune, don't write it here",
                "user read me key ID {v} from the blue screen",
            ],
        ),
        (
            "aws_doc_example",
            lambda: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            [
                "docs example from AWS: aws_access_key_id=AKIAIOSFODNN7EXAMPLE aws_secret_access_key={v}",
                "the sample in the wiki uses {v} (AWS's published example value)",
            ],
        ),
        (
            "placeholder_secret",
            lambda: r.choice(
                [
                    "<CANVAS_DEV_KEY_SECRET>",
                    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
                    "REPLACE_ME",
                    "changeme-in-prod-see-vault",
                ]
            ),
            [
                "client_secret: {v}",
                "LTI shared secret = {v} (template, fill from vault)",
                'oneroster_secret: "{v}"',
            ],
        ),
        (
            "google_drive_file_id",
            lambda: "1" + s(32, A + "-_"),
            [
                "staff handbook doc: https://docs.google.com/document/d/{v}/edit",
                "Drive file id {v} owned by departed teacher, transferred",
            ],
        ),
        (
            "youtube_id",
            lambda: s(11, A + "-_"),
            [
                "Chromebook enrollment how-to video: https://youtu.be/{v}",
            ],
        ),
        (
            "jwks_kid",
            lambda: hx(40),
            [
                "id_token header kid={v} matches Google's current cert",
                "kid {v} rotated out of the JWKS",
            ],
        ),
        (
            "request_correlation_id",
            uuid,
            [
                "Graph error 403, request-id {v}, client-request-id in the log too",
                "Canvas 500 on SIS import, X-Request-Context-Id {v}",
            ],
        ),
        (
            "cert_serial",
            lambda: ":".join(hx(2) for _ in range(16)),
            [
                "APNs cert serial {v}, renew before 2027-03-11",
            ],
        ),
        (
            "isbn_barcode",
            lambda: "978" + s(10, string.digits),
            [
                "Destiny: ISBN {v} imported with missing cover",
                "library barcode 3" + "{v}" + " keeps scanning as wrong title",
            ],
        ),
        (
            "asset_tag",
            lambda: "LVSD-" + s(6, string.digits),
            [
                "asset tag {v} assigned to room 204 cart",
                "{v} reported stolen, disabled in Google Admin",
            ],
        ),
        (
            "ticket_number",
            lambda: "INC" + s(7, string.digits),
            [
                "{v}: copier scan-to-email failing with 535 auth error, fixed by re-entering creds (not logged here)",
                "see {v} for the Wi-Fi outage timeline",
            ],
        ),
        (
            "password_policy_talk",
            lambda: "",
            [
                "Password policy for staff: 14 chars min, no rotation, MFA required for admin roles.",
                "Students K-2 use picture passwords via Clever badges; grades 3+ get typed passwords.",
                "reminder: never put the RADIUS shared secret in tickets; it lives in the NPS vault item.",
            ],
        ),
        (
            "password_reset_note",
            lambda: "",
            [
                "Reset Ms. Alvarez's Google password and handed it to her in person; forced change at next login.",
                "Helpdesk reset the sub account password this morning, new one given over the phone to the principal.",
            ],
        ),
        (
            "physical_key",
            lambda: "K-" + s(3, string.digits),
            [
                "key {v} opens the MDF closet; sign it out at the front office",
                "Master key for building C is {v} on the red tag, kept by custodial",
            ],
        ),
        (
            "answer_key",
            lambda: "B, D, A, C, C, A, B, D",
            [
                "answer key for the digital citizenship quiz: {v}",
            ],
        ),
        (
            "keyboard_shortcut_enroll",
            lambda: "Ctrl+Alt+E",
            [
                "To enterprise-enroll a Chromebook press {v} at the sign-in screen before logging in.",
                "If the powerwashed device skips enrollment, {v} again",
            ],
        ),
        (
            "sql_primary_key",
            lambda: "STUDENTS.DCID",
            [
                "primary key is {v}; foreign key from CC.STUDENTID",
                "join on the key {v} not student_number",
            ],
        ),
        (
            "token_other_sense",
            lambda: "",
            [
                "Cafeteria still sells paper lunch tokens at the elementary schools, they want them phased out.",
                "The tokenizer in the library search splits call numbers badly; the token count doubled.",
                "Token bus passes for the college go through the business office now.",
            ],
        ),
        (
            "abm_org_info",
            lambda: s(10, string.digits),
            [
                "Apple School Manager organization ID {v}; MDM server name 'Jamf Pro LVSD'",
                "ABM org {v} — DEP server token renewed, new file uploaded to Jamf (not stored here)",
            ],
        ),
        (
            "mdm_enrollment_process",
            lambda: "",
            [
                "iPads from the new PO are in ABM and auto-assigned to Jamf; enrollment via Setup Assistant, no token needed by staff.",
                "The ABM server token expires yearly; calendar reminder set for 2027-08-15 to download a new one.",
            ],
        ),
        (
            "secret_talk_no_value",
            lambda: "",
            [
                "Canvas developer key secrets are only shown once; if lost, generate a new key and update the tool.",
                "Clever rotates the district token if you reauthorize the app, so warn the vendor first.",
                "OneRoster OAuth1 uses key + secret per app; ClassLink shows them under Roster Server > Apps.",
            ],
        ),
        (
            "base64_image",
            lambda: "iVBORw0KGgoAAAANSUhEUgAA" + b64(60),
            [
                "district logo for the login page: data:image/png;base64,{v}",
            ],
        ),
        (
            "gmail_message_id",
            lambda: "<CA" + s(40, A + "+_-") + "@mail.gmail.com>",
            [
                "phishing report, Message-ID {v}",
            ],
        ),
        (
            "oneroster_csv_header",
            lambda: (
                "sourcedId,status,dateLastModified,orgSourcedIds,role,username,userIds,givenName,familyName"
            ),
            [
                "users.csv header: {v}",
            ],
        ),
        (
            "public_cal_ics",
            lambda: (
                "https://calendar.google.com/calendar/ical/lakeviewsd.org_"
                + s(26, string.ascii_lowercase + string.digits)
                + "%40group.calendar.google.com/public/basic.ics"
            ),
            [
                "public athletics calendar feed (posted on website): {v}",
            ],
        ),
        (
            "printer_default_doc",
            lambda: "admin / (blank)",
            [
                "Ricoh factory default web login per the manual is {v}; we changed ours (vault item 'Printers').",
            ],
        ),
        (
            "hash_of_value_stated",
            lambda: hx(64),
            [
                "sha256 of the current guest PSK (for drift check, not the PSK): {v}",
            ],
        ),
    ]

    gens["ps_bearer"] = uuid
    S += [
        (
            "wifi_qr_string",
            "psk",
            [
                "QR code on the guest wifi poster encodes: WIFI:T:WPA;S:LVSD-Guest;P:{v};;",
                "Printed for the lobby sign -> WIFI:S:StMarks-Visitors;T:WPA;P:{v};H:false;;",
            ],
        ),
        (
            "wpa_supplicant_password",
            "pw",
            [
                'network={\n  ssid="LVSD-Staff"\n  key_mgmt=WPA-EAP\n  eap=PEAP\n  identity="svc-pi-signage"\n  password="{v}"\n}',
                "Raspberry Pi hallway signage joins StMarks-Secure with identity signage01 and password {v}",
            ],
        ),
        (
            "powerschool_access_token",
            "ps_bearer",
            [
                "PowerSchool API bearer for the plugin (valid until we revoke): Authorization: Bearer {v}",
                "ps access_token from /oauth/access_token: {v}",
            ],
        ),
        (
            "papercut_web_services_token",
            "s32",
            [
                "PaperCut auth.webservices.auth-token set to {v} for the card-reader integration",
                "papercut XML-RPC auth token: {v}",
            ],
        ),
        (
            "mysql_cli_password",
            "pw",
            [
                "koha db access: mysql -u koha_lvsd -p'{v}' -h 127.0.0.1 koha_lvsd",
                "MYSQL_PWD={v} mysqldump destiny_reports > /backup/destiny.sql",
            ],
        ),
        (
            "guest_psk_translated",
            "psk",
            [
                "Contraseña del Wi-Fi de invitados para la noche de padres: {v}",
                "Mot de passe Wi-Fi invités (salle polyvalente) : {v}",
            ],
        ),
        (
            "shared_account_translated",
            "pw",
            [
                "Cuenta compartida de la cafetería: cocina@lakeviewsd.org, contraseña {v}",
            ],
        ),
    ]
    B += [
        (
            "wifi_qr_placeholder",
            lambda: "<guest-psk-from-vault>",
            [
                "poster template: WIFI:T:WPA;S:LVSD-Guest;P:{v};; (generator fills it at print time)",
            ],
        ),
        (
            "jwt_io_example",
            lambda: (
                "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
            ),
            [
                "for the LTI training slides I used the jwt.io sample token {v}",
                "test fixture uses the well-known jwt.io example (John Doe): {v}",
            ],
        ),
        (
            "eap_tls_config_no_password",
            lambda: "/etc/wpa/signage01.key",
            [
                'network={\n  ssid="LVSD-Staff"\n  key_mgmt=WPA-EAP\n  eap=TLS\n  identity="signage01"\n  client_cert="/etc/wpa/signage01.crt"\n  private_key="{v}"\n}',
                "EAP-TLS on the Pis: key file at {v}, no passphrase stored in config, cert issued by district CA",
            ],
        ),
        (
            "classroom_course_id",
            lambda: s(12, string.digits),
            [
                "Google Classroom course id {v} archived by mistake, restored",
                "Classroom API: courses/{v}/students returned 403 for co-teacher",
            ],
        ),
        (
            "translated_secret_talk",
            lambda: "",
            [
                "La contraseña del Wi-Fi de invitados cambia cada lunes; pídala en la recepción.",
                "Le secret partagé RADIUS est dans le coffre 1Password, jamais dans les tickets.",
            ],
        ),
        (
            "ssh_host_fingerprint",
            lambda: "SHA256:" + s(43, A + "+/"),
            [
                "lms-db01 host key fingerprint {v} (ED25519), verify on first connect",
                "roster01 rebuilt, new host key {v}",
            ],
        ),
        (
            "empty_password_field",
            lambda: "",
            [
                "SMTP_USER=scanner@lakeviewsd.org\nSMTP_PASSWORD=\n# empty on purpose: the copiers relay through the IP-allowlisted connector",
                "papercut.db.password is blank in the sample config; the real one is set by the installer",
            ],
        ),
        (
            "intune_device_id",
            uuid,
            [
                "Intune device id {v} for the teacher laptop, wipe pending",
                "Autopilot hash uploaded; device object id {v}",
            ],
        ),
        (
            "ldap_oid",
            lambda: "1.2.840.113556.1.4.803",
            [
                "LDAP filter for disabled users uses matching rule {v}: (userAccountControl:{v}:=2)",
            ],
        ),
        (
            "eap_settings",
            lambda: "nps01.lvsd.local",
            [
                "WPA2-Enterprise: PEAP-MSCHAPv2, validate server cert, server name {v}, no creds saved in the profile",
                "Chromebook network policy: EAP-TLS, cert pattern issuer 'LVSD Issuing CA', server {v}",
            ],
        ),
        (
            "license_key_public_part",
            lambda: "XXXXX-XXXXX-XXXXX-XXXXX-" + s(5, string.ascii_uppercase + string.digits),
            [
                "Office KMS: only the last block of the product key shows in slmgr: {v}",
            ],
        ),
    ]
    # more wording of existing benign kinds
    B += [
        (
            "google_oauth_client_id",
            lambda: (
                f"{r.randint(10**11, 10**12)}-{s(32, string.ascii_lowercase + string.digits)}.apps.googleusercontent.com"
            ),
            [
                "Chrome extension policy allows OAuth client {v}",
            ],
        ),
        (
            "azure_tenant_id",
            uuid,
            [
                "login.microsoftonline.com/{v}/oauth2/v2.0/token is the endpoint; secret is pulled from Key Vault",
            ],
        ),
        (
            "mac_address",
            lambda: "-".join(hx(2).upper() for _ in range(6)),
            [
                "cafeteria POS terminal 3 physical address {v}",
            ],
        ),
        (
            "file_sha256",
            lambda: hx(64),
            [
                "sha256sum destiny_backup_2026-12-01.zip -> {v}",
            ],
        ),
        (
            "chromebook_serial",
            serial,
            [
                "serial {v} moved to OU /Students/HS/Loaners",
            ],
        ),
        (
            "vault_reference",
            lambda: "bw://item/" + uuid(),
            [
                "copier SMTP app password is Bitwarden {v}",
            ],
        ),
        (
            "redacted_password",
            lambda: "[REDACTED]",
            [
                "NVR login: admin / {v} — see the Facilities vault",
            ],
        ),
    ]

    B += [
        (
            "canvas_developer_key_id",
            lambda: "1700000000" + s(5, string.digits),
            [
                "Canvas Developer Keys page: key {v} state ON, scopes enforced, secret not copied",
            ],
        ),
        (
            "clever_district_id",
            lambda: hx(24),
            [
                "district_id={v} in the Clever webhook payload",
            ],
        ),
        (
            "git_commit_sha",
            lambda: hx(40),
            [
                "GAM scripts repo HEAD is {v} after the OU rename",
            ],
        ),
        (
            "service_account_key_id",
            lambda: hx(40),
            [
                '"private_key_id": "{v}",  (rest of the json stays in the vault)',
            ],
        ),
        (
            "google_drive_file_id",
            lambda: "1" + s(32, A + "-_"),
            [
                "Chromebook inventory sheet id {v} (shared with techs only)",
            ],
        ),
        (
            "oneroster_sourcedid",
            uuid,
            [
                "orgs.csv: school sourcedId {v} = Lakeview Middle",
            ],
        ),
        (
            "ticket_number",
            lambda: "REQ" + s(6, string.digits),
            [
                "{v} teacher locked out of Schoology after name change, fixed the SSO attribute",
            ],
        ),
        (
            "asset_tag",
            lambda: "SMC-" + s(5, string.digits),
            [
                "college projector {v} moved to Science 210",
            ],
        ),
    ]

    rows = []
    for kind, gname, tpls in S:
        for t in tpls:
            v = gens[gname]()
            rows.append({"label": "secret", "kind": kind, "text": t.replace("{v}", v), "value": v})
    for kind, g, tpls in B:
        for t in tpls:
            v = g()
            rows.append({"label": "benign", "kind": kind, "text": t.replace("{v}", v), "value": v})
    for row in rows:
        assert row["value"] in row["text"], row
    return rows


def main():
    lines = "".join(json.dumps(row) + "\n" for row in corpus())
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w", encoding="utf-8") as fh:
            fh.write(lines)
    else:
        sys.stdout.write(lines)


if __name__ == "__main__":
    main()

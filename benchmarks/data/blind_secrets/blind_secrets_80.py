# ruff: noqa: E501
"""Blind secret-detector corpus 80: dental and orthodontics clinic group IT.

Brief: memory notes from a multi-site dental/ortho group's IT and front desk: practice-management software (Dentrix, Open Dental, Curve), intraoral scanners and imaging PCs, insurance clearinghouse portals, SMS/email patient reminders, front-desk tablets, door and alarm systems; notes by receptionists and dentists, some in Spanish, Vietnamese or Arabic.

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Run: python blind_secrets_80.py [out.jsonl]

Kinds, secret: opendental_mysql_password, dentrix_sql_connection_password, curve_admin_login, clearinghouse_portal_password, twilio_auth_token, twilio_api_key_secret, sendgrid_api_key, mailgun_api_key, aws_access_key_pair, azure_storage_connection_string, gcp_service_account_json, rsa_private_key_pem, openssh_private_key, stripe_live_secret_key, square_access_token, slack_bot_token, slack_webhook_url, github_pat, github_fine_grained_pat, gitlab_pat, alarm_panel_code, door_access_admin_password, wifi_staff_passphrase, remote_support_unattended_password, imaging_pc_local_admin_password, sftp_url_with_password, m365_app_password, patient_portal_jwt, reminder_vendor_api_key, openai_api_key, anthropic_api_key, postgres_url_with_password, vnc_password, firewall_admin_password, datadog_api_key, npm_token, telegram_bot_token, azure_ad_client_secret, voicemail_pin, prose_login_no_keyword, basic_auth_header, scanner_cloud_account_password, mfa_backup_codes, totp_seed_uri, backup_encryption_passphrase, bitlocker_recovery_key, opendental_api_customer_key, google_api_key_server, teams_incoming_webhook_url, shared_mailbox_password, mdm_admin_password
Kinds, benign: git_commit_sha, installer_sha256, file_md5, record_uuid, aws_documented_example_key, placeholder_angle_brackets, placeholder_changeme, env_var_reference, vault_reference, masked_key, redacted_value, stripe_publishable_key, recaptcha_site_key, twilio_account_sid, npi_number, payer_id, scanner_serial_number, ssh_public_key, certificate_pem, ssh_host_fingerprint, remote_support_id, mac_address, password_policy_text, revoked_key_stated_revoked, claim_number, chart_number, google_analytics_id, stripe_test_card_number, jwt_io_example_token, docker_image_digest, software_version_build, base64_image_data, tracking_number, dicom_uid, bcrypt_hash, aws_access_key_id_alone, sendgrid_template_id, slack_channel_id, azure_tenant_id, cdt_procedure_codes, pgp_key_fingerprint, request_id_in_log, alarm_monitoring_account_number, wifi_guest_ssid_no_password, insurance_member_id, phone_number, vendor_support_case_number, short_git_sha, file_sha1, expired_sms_otp, base64_nonsecret_json, internal_ip_hostnames, lab_case_number
"""

import base64
import hashlib
import json
import random
import string
import sys

SEED = 8080

JWT_IO = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"

LOW = string.ascii_lowercase
UP = string.ascii_uppercase
DIG = string.digits
ALNUM = LOW + UP + DIG
HEXL = "0123456789abcdef"
B64 = ALNUM + "+/"
B64URL = ALNUM + "-_"
B32 = UP + "234567"

WORDS = [
    "Molar",
    "Smile",
    "Braces",
    "Enamel",
    "Canine",
    "Floss",
    "Retainer",
    "Aligner",
    "Crown",
    "Bicuspid",
    "Sonrisa",
    "Tooth",
    "Pearly",
    "Bracket",
    "Incisor",
    "Cavity",
    "Sunset",
    "Pelican",
    "Harbor",
    "Maple",
]
SYMS = "!@#$%&*?"


def _s(r, alphabet, n):
    return "".join(r.choice(alphabet) for _ in range(n))


def human_pw(r):
    w = r.choice(WORDS)
    style = r.randrange(4)
    if style == 0:
        return w + str(r.randrange(10, 100)) + r.choice(SYMS)
    if style == 1:
        return r.choice(SYMS) + w.lower() + str(r.randrange(1990, 2027))
    if style == 2:
        return w + r.choice(SYMS) + r.choice(WORDS).lower() + str(r.randrange(1, 10))
    return w[0].lower() + w[1:].upper()[:3] + w[4:] + str(r.randrange(100, 1000)) + r.choice(SYMS)


def gen_pw(r, n=16):
    core = _s(r, ALNUM, n - 2)
    return core[: n // 2] + r.choice(SYMS) + core[n // 2 :] + r.choice(DIG)


def b64_bytes(r, n):
    return base64.b64encode(bytes(r.randrange(256) for _ in range(n))).decode()


def pem_body(r, nbytes):
    b = b64_bytes(r, nbytes)
    return "\n".join(b[i : i + 64] for i in range(0, len(b), 64))


def _sha(r, alg):
    return hashlib.new(alg, str(r.random()).encode()).hexdigest()


def _uuid(r):
    h = _s(r, HEXL, 32)
    h = h[:12] + "4" + h[13:16] + r.choice("89ab") + h[17:]
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def _jwt(r):
    hdr = base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT"}').decode().rstrip("=")
    payload = json.dumps(
        {
            "sub": str(r.randrange(10000, 99999)),
            "role": "frontdesk",
            "iat": 1790000000 + r.randrange(10**6),
            "exp": 1800000000 + r.randrange(10**6),
        },
        separators=(",", ":"),
    )
    pl = base64.urlsafe_b64encode(payload.encode()).decode().rstrip("=")
    return f"{hdr}.{pl}.{_s(r, B64URL, 43)}"


# ---------------------------------------------------------------- secret kinds
# Each entry: (kind, value generator, [templates]); templates use {v} for the value
# and may use {a} for an auxiliary random value (generated by aux, if given).


def _aws_pair(r):
    return _s(r, ALNUM + "/+", 40), "AKIA" + _s(r, UP + "234567", 16)


def _gsa(r):
    body = pem_body(r, 1190)
    return body, _s(r, HEXL, 40)


SECRET = [
    (
        "opendental_mysql_password",
        human_pw,
        None,
        [
            "OD server (OPS-SRV01) mysql root pw is {v} - dont change it, eServices breaks",
            "my.ini / FreeDentalConfig.xml on the new server:\n<User>root</User>\n<Password>{v}</Password>",
            "mysql -u root -p'{v}' opendental -e \"select count(*) from patient\"",
            "Contraseña de MySQL de Open Dental en la sucursal Norte: {v} (la puso Carlos)",
            "| OD db | opendental | root | {v} | Norte |",
        ],
    ),
    (
        "dentrix_sql_connection_password",
        lambda r: gen_pw(r, 18),
        None,
        [
            "Dentrix Enterprise conn string: Server=DTX-SQL\\DENTRIX;Database=DentrixEnt;User Id=dtxsvc;Password={v};",
            "dtx report svc account: dtxsvc / {v}",
            'sqlcmd -S DTX-SQL\\DENTRIX -U dtxsvc -P "{v}" -Q "SELECT @@VERSION"',
            "DTX_SQL_PASSWORD={v}",
        ],
    ),
    (
        "curve_admin_login",
        human_pw,
        None,
        [
            "Curve Hero admin for ortho side: admin@brightsmileortho.com pw {v}",
            "curve login (owner acct) -> {v}  ask dr. Haddad before using",
            "Dr. Nguyen: mật khẩu Curve của văn phòng là {v}, đừng gửi qua tin nhắn nhé",
            "Curve Dental cloud\nuser: frontdesk.eastside\npass: {v}",
        ],
    ),
    (
        "clearinghouse_portal_password",
        human_pw,
        None,
        [
            "DentalXChange login for claims: bsdg_billing / {v}",
            "Availity portal pw reset today, new one = {v} (expires in 90d)",
            "كلمة مرور بوابة التأمين Availity هي {v} — للاستخدام من مكتب الاستقبال فقط",
            "clearinghouse (Vyne/Tesia) billing user pw: {v}",
        ],
    ),
    (
        "twilio_auth_token",
        lambda r: _s(r, HEXL, 32),
        lambda r: "AC" + _s(r, HEXL, 32),
        [
            "Twilio for appt reminders: SID {a} token {v}",
            "TWILIO_ACCOUNT_SID={a}\nTWILIO_AUTH_TOKEN={v}",
            "curl -u {a}:{v} https://api.twilio.com/2010-04-01/Accounts/{a}/Messages.json",
            "twilio auth token (rotated after the spam incident): {v}",
        ],
    ),
    (
        "twilio_api_key_secret",
        lambda r: _s(r, ALNUM, 32),
        lambda r: "SK" + _s(r, HEXL, 32),
        [
            "reminder service uses an API key not the master token: key {a} secret {v}",
            "TWILIO_API_KEY={a}\nTWILIO_API_SECRET={v}",
            "twilio api secret for the recall bot - {v}",
        ],
    ),
    (
        "sendgrid_api_key",
        lambda r: "SG." + _s(r, B64URL, 22) + "." + _s(r, B64URL, 43),
        None,
        [
            "SendGrid key for recall emails: {v}",
            "SENDGRID_API_KEY={v}",
            'curl -H "Authorization: Bearer {v}" https://api.sendgrid.com/v3/mail/send ...',
            "new sendgrid key (full access, sorry) {v}",
        ],
    ),
    (
        "mailgun_api_key",
        lambda r: "key-" + _s(r, HEXL, 32),
        None,
        [
            "mailgun (old statement mailer) api key {v}",
            "MAILGUN_API_KEY={v}",
            "curl -s --user 'api:{v}' https://api.mailgun.net/v3/mg.brightsmile.dental/messages",
        ],
    ),
    (
        "aws_access_key_pair",
        lambda r: _aws_pair(r)[0],
        lambda r: "AKIA" + _s(r, UP + "234567", 16),
        [
            "S3 bucket for x-ray backups (bsdg-imaging-bak): access key {a} secret {v}",
            "[default]\naws_access_key_id = {a}\naws_secret_access_key = {v}\nregion = us-west-2",
            "AWS_ACCESS_KEY_ID={a} AWS_SECRET_ACCESS_KEY={v} aws s3 sync D:\\XrayBackup s3://bsdg-imaging-bak",
            "iam user imaging-backup: {a} / {v}",
        ],
    ),
    (
        "azure_storage_connection_string",
        lambda r: b64_bytes(r, 64),
        None,
        [
            "DefaultEndpointsProtocol=https;AccountName=bsdgscans;AccountKey={v};EndpointSuffix=core.windows.net",
            "azure blob for STL exports, account key1: {v}",
            'az storage blob upload --account-name bsdgscans --account-key "{v}" -c stl -f case.stl',
        ],
    ),
    (
        "gcp_service_account_json",
        lambda r: _gsa(r)[0],
        lambda r: _s(r, HEXL, 40),
        [
            '{{"type": "service_account", "project_id": "bsdg-reviews", "private_key_id": "{a}", "private_key": "-----BEGIN PRIVATE KEY-----\\n{v}\\n-----END PRIVATE KEY-----\\n", "client_email": "reviews-bot@bsdg-reviews.iam.gserviceaccount.com"}}',
            "google reviews bot key file contents (pasted from downloads):\nprivate_key_id: {a}\n-----BEGIN PRIVATE KEY-----\n{v}\n-----END PRIVATE KEY-----",
        ],
    ),
    (
        "rsa_private_key_pem",
        lambda r: pem_body(r, 1190),
        None,
        [
            "key for the sftp to the lab (glidewell upload), keep in OPS-SRV01 c:\\keys:\n-----BEGIN RSA PRIVATE KEY-----\n{v}\n-----END RSA PRIVATE KEY-----",
            "-----BEGIN RSA PRIVATE KEY-----\n{v}\n-----END RSA PRIVATE KEY-----",
            "patient portal TLS private key (cert renewed 03/2026)\n-----BEGIN PRIVATE KEY-----\n{v}\n-----END PRIVATE KEY-----",
        ],
    ),
    (
        "openssh_private_key",
        lambda r: pem_body(r, 400),
        None,
        [
            "deploy key for reminders repo:\n-----BEGIN OPENSSH PRIVATE KEY-----\n{v}\n-----END OPENSSH PRIVATE KEY-----",
            "id_ed25519 of the backup box (pls move to keeper)\n-----BEGIN OPENSSH PRIVATE KEY-----\n{v}\n-----END OPENSSH PRIVATE KEY-----",
        ],
    ),
    (
        "stripe_live_secret_key",
        lambda r: "sk_live_" + _s(r, ALNUM, 99),
        None,
        [
            "Stripe for online deposits (Invisalign starts): {v}",
            "STRIPE_SECRET_KEY={v}",
            "restricted key for payment plans: " + "{v}",
            "curl https://api.stripe.com/v1/charges -u {v}:",
        ],
    ),
    (
        "square_access_token",
        lambda r: "EAAA" + _s(r, B64URL, 60),
        None,
        [
            "Square terminal at front desk, prod access token {v}",
            "SQUARE_ACCESS_TOKEN={v}",
            "square prod token (westside location) = {v}",
        ],
    ),
    (
        "slack_bot_token",
        lambda r: (
            f"xoxb-{r.randrange(10**11, 10**12)}-{r.randrange(10**12, 10**13)}-{_s(r, ALNUM, 24)}"
        ),
        None,
        [
            "huddle-bot slack token {v}",
            "SLACK_BOT_TOKEN={v}",
            "bot that posts daily schedule to #frontdesk uses {v}",
        ],
    ),
    (
        "slack_webhook_url",
        lambda r: (
            f"https://hooks.slack.com/services/T{_s(r, UP + DIG, 10)}/B{_s(r, UP + DIG, 10)}/{_s(r, ALNUM, 24)}"
        ),
        None,
        [
            "alarm alerts -> slack webhook {v}",
            "SLACK_WEBHOOK={v}",
            'curl -X POST -d \'{{"text":"server down"}}\' {v}',
        ],
    ),
    (
        "github_pat",
        lambda r: "ghp_" + _s(r, ALNUM, 36),
        None,
        [
            "my github token for pushing the reminder scripts: {v}",
            "git clone https://{v}@github.com/bsdg/recall-scripts.git",
            "GH_TOKEN={v}",
        ],
    ),
    (
        "github_fine_grained_pat",
        lambda r: "github_pat_11" + _s(r, UP + DIG, 20) + "_" + _s(r, ALNUM, 59),
        None,
        [
            "fine grained PAT (read only, recall-scripts): {v}",
            "export GITHUB_TOKEN={v}",
        ],
    ),
    (
        "gitlab_pat",
        lambda r: "glpat-" + _s(r, B64URL, 20),
        None,
        [
            "gitlab token from the old IT vendor: {v}",
            "GITLAB_TOKEN={v}",
            "token de gitlab del proveedor anterior: {v}",
        ],
    ),
    (
        "alarm_panel_code",
        lambda r: str(r.randrange(1000, 10000)),
        None,
        [
            "alarm code for Eastside office is {v}, disarm at keypad by back door",
            "DSC panel installer code: {v} (master is different, ask Linda)",
            "Código de la alarma de la clínica Norte: {v}. Si suena, llamar a ADT.",
            "Mã báo động phòng khám: {v}# — nhớ bật lại khi về",
            "رمز الإنذار للعيادة الشرقية {v}",
        ],
    ),
    (
        "door_access_admin_password",
        human_pw,
        None,
        [
            "Brivo admin (door fobs) user it@brightsmile.dental pw {v}",
            "Verkada command org admin login -> {v}",
            "door system login for adding new hygienist fobs: {v}",
        ],
    ),
    (
        "wifi_staff_passphrase",
        human_pw,
        None,
        [
            "staff wifi BSDG-Staff key: {v} (NOT for patients)",
            "WIFI:T:WPA;S:BSDG-Staff;P:{v};;",
            "clave del wifi del personal: {v}",
            "wpa2 psk for the imaging vlan ssid BSDG-IMG = {v}",
        ],
    ),
    (
        "remote_support_unattended_password",
        lambda r: gen_pw(r, 12),
        None,
        [
            "TeamViewer unattended pw on pano PC: {v}",
            "AnyDesk unattended access password for OP3 = {v}",
            "anydesk 482 113 907 pw {v}",
        ],
    ),
    (
        "imaging_pc_local_admin_password",
        human_pw,
        None,
        [
            "local admin on the CBCT workstation (IMG-PC2): .\\Administrator / {v}",
            "net user Administrator {v}  (ran on all sensor PCs)",
            "mật khẩu admin máy X-quang phòng 2: {v}",
            "Sidexis PC login: sirona / {v}",
        ],
    ),
    (
        "sftp_url_with_password",
        human_pw,
        None,
        [
            "lab uploads go to sftp://bsdg_cases:{v}@files.dentallab-example.net:22/incoming",
            "WinSCP site: host files.dentallab-example.net user bsdg_cases pass {v}",
            "ftp://scans:{v}@192.168.10.40/itero",
        ],
    ),
    (
        "m365_app_password",
        lambda r: " ".join(_s(r, LOW, 4) for _ in range(4)),
        None,
        [
            "app password for the scanner-to-email on the copier: {v}",
            "SMTP relay for reminders: smtp.office365.com:587 user reminders@brightsmile.dental app pw {v}",
            "gmail app password (recall@) -> {v}",
        ],
    ),
    (
        "patient_portal_jwt",
        _jwt,
        None,
        [
            "portal API token from dev tools, works for ~a week: {v}",
            "Authorization: Bearer {v}",
            "curl -H 'Authorization: Bearer {v}' https://portal.brightsmile.dental/api/appts",
        ],
    ),
    (
        "reminder_vendor_api_key",
        lambda r: _s(r, HEXL, 40),
        None,
        [
            "RevenueWell API key (integration w/ Dentrix): {v}",
            "reminder_api_key: {v}",
            "Weave integration key {v} - vendor said don't share",
        ],
    ),
    (
        "openai_api_key",
        lambda r: "sk-proj-" + _s(r, B64URL, 48) + "T3BlbkFJ" + _s(r, B64URL, 48),
        None,
        [
            "openai key for the note summarizer pilot {v}",
            "OPENAI_API_KEY={v}",
        ],
    ),
    (
        "anthropic_api_key",
        lambda r: "sk-ant-api03-" + _s(r, B64URL, 93) + "AA",
        None,
        [
            "claude key for drafting patient letters: {v}",
            "ANTHROPIC_API_KEY={v}",
        ],
    ),
    (
        "postgres_url_with_password",
        lambda r: (
            gen_pw(r, 20)
            .replace("@", "x")
            .replace("#", "y")
            .replace("?", "z")
            .replace("%", "q")
            .replace("&", "k")
        ),
        None,
        [
            "DATABASE_URL=postgres://recall_app:{v}@db.internal.bsdg:5432/recall",
            'reporting db: psql "postgresql://bi_reader:{v}@10.20.0.15/analytics"',
            "psql conn for dashboard is postgres://bi_reader:{v}@10.20.0.15:5432/analytics",
        ],
    ),
    (
        "vnc_password",
        lambda r: _s(r, ALNUM, 8),
        None,
        [
            "VNC to the front desk kiosk tablet, pw {v}",
            "tightvnc on OP1 password={v}",
        ],
    ),
    (
        "firewall_admin_password",
        human_pw,
        None,
        [
            "meraki dashboard login (it@) pw {v}",
            "SonicWall admin / {v}  https://192.168.1.1:4433",
            "contraseña del firewall: {v}",
        ],
    ),
    (
        "datadog_api_key",
        lambda r: _s(r, HEXL, 32),
        None,
        [
            "DD_API_KEY={v}",
            "datadog api key for the server monitors {v}",
        ],
    ),
    (
        "npm_token",
        lambda r: "npm_" + _s(r, ALNUM, 36),
        None,
        [
            "//registry.npmjs.org/:_authToken={v}",
            "npm publish token for the kiosk app {v}",
        ],
    ),
    (
        "telegram_bot_token",
        lambda r: f"{r.randrange(10**9, 10**10)}:AA{_s(r, B64URL, 33)}",
        None,
        [
            "telegram bot for after-hours emergency msgs: {v}",
            "TELEGRAM_TOKEN={v}",
        ],
    ),
    (
        "azure_ad_client_secret",
        lambda r: _s(r, ALNUM, 3) + "8Q~" + _s(r, ALNUM + "._~-", 34),
        None,
        [
            "Entra app reg 'od-to-sharepoint' client secret: {v}",
            "AZURE_CLIENT_SECRET={v}",
            'client_secret = "{v}"',
        ],
    ),
    (
        "voicemail_pin",
        lambda r: str(r.randrange(100000, 1000000)),
        None,
        [
            "main line voicemail PIN {v} (RingCentral)",
            "PIN del buzón de voz de recepción: {v}",
            "after hours vm box 500 pin: {v}",
        ],
    ),
    (
        "prose_login_no_keyword",
        human_pw,
        None,
        [
            "imaging pc: dr.nguyen / {v}",
            "for the schick sensor laptop just use frontdesk and {v}",
            "Maria's Open Dental login is maria.g with {v} until she picks her own",
            "Dr. Haddad said to use {v} for the ortho laptop, username haddad",
        ],
    ),
    (
        "basic_auth_header",
        lambda r: base64.b64encode(("apiuser:" + gen_pw(r, 14)).encode()).decode(),
        None,
        [
            "Authorization: Basic {v}",
            'clearinghouse eligibility API call: curl -H "Authorization: Basic {v}" https://api.clearinghouse-example.com/270',
        ],
    ),
    (
        "scanner_cloud_account_password",
        human_pw,
        None,
        [
            "iTero account (MyAligntech) for Eastside: ortho@brightsmile.dental / {v}",
            "3Shape Communicate login pw = {v}",
            "Medit Link pw {v} (shared by both scanners)",
        ],
    ),
    (
        "mfa_backup_codes",
        lambda r: " ".join(str(r.randrange(10**7, 10**8)) for _ in range(5)),
        None,
        [
            "backup codes for the billing google acct: {v}",
            "Availity 2FA recovery codes (keep safe): {v}",
        ],
    ),
    (
        "totp_seed_uri",
        lambda r: _s(r, B32, 32),
        None,
        [
            "otpauth://totp/DentalXChange:billing?secret={v}&issuer=DentalXChange",
            "2FA seed for the shared clearinghouse login so both front desks get codes: {v}",
        ],
    ),
    (
        "backup_encryption_passphrase",
        lambda r: "-".join(r.choice(WORDS).lower() for _ in range(4)) + str(r.randrange(10, 100)),
        None,
        [
            "Veeam backup encryption passphrase: {v} (without it backups are useless!)",
            "cloud backup (x-rays) encryption key phrase is {v}",
        ],
    ),
    (
        "bitlocker_recovery_key",
        lambda r: "-".join(f"{r.randrange(0, 1000000):06d}" for _ in range(8)),
        None,
        [
            "BitLocker recovery key for IMG-PC2: {v}",
            "clave de recuperación BitLocker laptop recepción: {v}",
        ],
    ),
]

# ---------------------------------------------------------------- benign kinds

BENIGN = [
    (
        "git_commit_sha",
        lambda r: _s(r, HEXL, 40),
        None,
        [
            "reminder script fixed in commit {v}, redeploy on OPS-SRV01",
            "rolled back to {v} after the SMS duplicate bug",
            "git checkout {v}",
            "fix: timezone in recall msgs ({v})",
        ],
    ),
    (
        "installer_sha256",
        lambda r: _sha(r, "sha256"),
        None,
        [
            "Open Dental 24.1 setup.exe sha256 {v} - matches the site",
            "Get-FileHash .\\DentrixG7Update.exe -> {v}",
            "checksum del instalador de Sidexis: {v}",
            "{v}  OpenDental_24.3.exe",
        ],
    ),
    (
        "file_md5",
        lambda r: _sha(r, "md5"),
        None,
        [
            "md5 of the exported STL: {v}",
            "CBCT dicom zip md5 {v} (lab confirmed same)",
            "md5sum case_4471.zip = {v}",
        ],
    ),
    (
        "record_uuid",
        _uuid,
        None,
        [
            "patient merge job id {v}",
            "Curve appt id {v} double-booked, check with Dr. Lee",
            "scanner order GUID {v}",
            "PracticeId: {v}",
        ],
    ),
    (
        "aws_documented_example_key",
        None,
        None,
        [
            (
                "the vendor doc uses {v} in their sample config, replace w/ ours (in vault)",
                "AKIAIOSFODNN7EXAMPLE",
            ),
            ("aws_access_key_id = {v}  # from AWS docs, placeholder", "AKIAIOSFODNN7EXAMPLE"),
            (
                "example from aws docs: AKIAIOSFODNN7EXAMPLE / {v}",
                "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            ),
        ],
    ),
    (
        "placeholder_angle_brackets",
        None,
        None,
        [
            ("template for new site: TWILIO_AUTH_TOKEN={v}", "<TWILIO_AUTH_TOKEN>"),
            ('curl -H "Authorization: Bearer {v}" https://api.sendgrid.com/v3/...', "<your-token>"),
            ("Password={v} in the conn string, fill in on install", "<password>"),
            ("vendor form asks: API key: {v}", "<api-key-here>"),
        ],
    ),
    (
        "placeholder_changeme",
        None,
        None,
        [
            ("default pw on new door panels is {v} - change on first login", "changeme"),
            ("DB_PASSWORD={v}", "CHANGEME"),
            ("contraseña: {v} (plantilla, no es real)", "xxxxxxxx"),
            (
                "sample .env in the repo: SENDGRID_API_KEY={v}",
                "SG.xxxxxxxxxxxxxxxxxxxxxx.xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
            ),
        ],
    ),
    (
        "env_var_reference",
        None,
        None,
        [
            ("reminder job reads the key from {v}, set on the server", "os.environ['MAILGUN_KEY']"),
            ("api_key: {v}", "${SENDGRID_API_KEY}"),
            ("mysql -u root -p{v} opendental", "%OD_DB_PASS%"),
            ("Authorization: Bearer {v}", "$TWILIO_AUTH_TOKEN"),
            ("stripe_key: {v}  # github actions secret", "${{ secrets.STRIPE_KEY }}"),
        ],
    ),
    (
        "vault_reference",
        None,
        None,
        [
            ("alarm + door passwords are in {v}, dont paste them here", "Keeper > IT > Alarm"),
            ("pw: see {v}", "1Password vault 'Front Desk' item Availity"),
            ("la contraseña está en {v}", "Bitwarden org BSDG / DentalXChange"),
            ("creds moved to {v} after audit", "op://IT/Brivo/password"),
            ("BRIVO_PASSWORD={v}", "op://IT/Brivo/password"),
        ],
    ),
    (
        "masked_key",
        lambda r: r.choice(["sk_live_", "SG.", "xoxb-", "ghp_"]) + "****" + _s(r, ALNUM, 4),
        None,
        [
            "stripe dashboard shows key {v}, rotated Monday",
            "sendgrid key ending {v} is the one in use",
            "token: {v}",
        ],
    ),
    (
        "redacted_value",
        None,
        None,
        [
            ("Twilio auth token: {v}", "[REDACTED]"),
            ("alarm code {v} - ask office manager", "****"),
            ("password={v}", "***redacted***"),
            ("mật khẩu: {v} (đã xóa)", "•••••••"),
        ],
    ),
    (
        "stripe_publishable_key",
        lambda r: "pk_live_" + _s(r, ALNUM, 99),
        None,
        [
            "publishable key for the deposit page (public, goes in the html): {v}",
            "STRIPE_PUBLISHABLE_KEY={v}",
            "<script>Stripe('{v}')</script>",
        ],
    ),
    (
        "recaptcha_site_key",
        lambda r: "6L" + _s(r, B64URL, 38),
        None,
        [
            "recaptcha site key on the booking form: {v}",
            'data-sitekey="{v}"',
            "site key (public) {v}",
        ],
    ),
    (
        "twilio_account_sid",
        lambda r: "AC" + _s(r, HEXL, 32),
        None,
        [
            "Twilio account SID (not secret, token is in Keeper): {v}",
            "which twilio project? the SID is {v}",
            "TWILIO_ACCOUNT_SID={v}",
        ],
    ),
    (
        "npi_number",
        lambda r: "1" + _s(r, DIG, 9),
        None,
        [
            "Dr. Haddad NPI {v}",
            "billing NPI (type 2) for Eastside: {v}",
            "NPI del Dr. Ramírez: {v}",
        ],
    ),
    (
        "payer_id",
        lambda r: _s(r, DIG, 5),
        None,
        [
            "Delta Dental payer id for claims in DentalXChange: {v}",
            "payer ID {v} rejected again, check with clearinghouse",
            "mã payer của bảo hiểm: {v}",
        ],
    ),
    (
        "scanner_serial_number",
        lambda r: "E" + _s(r, DIG, 2) + "-" + _s(r, UP + DIG, 8),
        None,
        [
            "iTero Element 5D serial {v} - warranty till 2027",
            "S/N {v} on the Primescan cart",
            "scanner serial for the service ticket: {v}",
        ],
    ),
    (
        "ssh_public_key",
        lambda r: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + _s(r, B64, 43),
        None,
        [
            "add this to authorized_keys on the backup box: {v} it@bsdg",
            "lab's sftp wants our pubkey: {v}",
            "{v} dr-lee-laptop",
        ],
    ),
    (
        "certificate_pem",
        lambda r: pem_body(r, 900),
        None,
        [
            "portal cert (public part) for the vendor:\n-----BEGIN CERTIFICATE-----\n{v}\n-----END CERTIFICATE-----",
            "-----BEGIN CERTIFICATE-----\n{v}\n-----END CERTIFICATE-----",
        ],
    ),
    (
        "ssh_host_fingerprint",
        lambda r: "SHA256:" + _s(r, B64, 43),
        None,
        [
            "lab sftp host key fingerprint {v} - verify before accepting",
            "ED25519 key fingerprint is {v}.",
            "fingerprint changed?? old {v}, called the lab",
        ],
    ),
    (
        "remote_support_id",
        lambda r: f"{r.randrange(100, 1000)} {r.randrange(100, 1000)} {r.randrange(100, 1000)}",
        None,
        [
            "TeamViewer ID of the pano PC: {v} (pw in Keeper)",
            "anydesk address for front desk 2: {v}",
            "Dentrix support asked for our TV id, gave them {v}",
        ],
    ),
    (
        "mac_address",
        lambda r: ":".join(_s(r, "0123456789ABCDEF", 2) for _ in range(6)),
        None,
        [
            "reserve dhcp for the sensor PC MAC {v}",
            "kiosk tablet mac {v} whitelisted on meraki",
            "| OP3 printer | {v} | 192.168.10.33 |",
        ],
    ),
    (
        "password_policy_text",
        None,
        None,
        [
            (
                "policy: Open Dental passwords {v}, no reuse of last 5, lockout after 5 tries",
                "min 12 chars",
            ),
            (
                "HIPAA reminder: passwords must be {v} and never written on sticky notes at the front desk",
                "at least 14 characters",
            ),
            ("Política: contraseñas de {v}, cambiar cada 90 días", "mínimo 12 caracteres"),
            ("password rule for the portal: {v}", "8+ chars, 1 number, 1 symbol"),
        ],
    ),
    (
        "revoked_key_stated_revoked",
        lambda r: "SG." + _s(r, B64URL, 22) + "." + _s(r, B64URL, 43),
        None,
        [
            "REVOKED 11/02 - old sendgrid key {v} was leaked in the email footer thing, deleted in sendgrid, new one in Keeper",
            "fyi key {v} is dead (revoked by sendgrid support), ignore it in old notes",
        ],
    ),
    (
        "claim_number",
        lambda r: "CLM" + _s(r, DIG, 10),
        None,
        [
            "claim {v} denied - missing perio chart",
            "resubmitted {v} with xrays attached",
            "reclamo {v} pendiente con Delta",
        ],
    ),
    (
        "chart_number",
        lambda r: str(r.randrange(10000, 999999)),
        None,
        [
            "pt chart #{v} has duplicate insurance plans, fix in OD",
            "bệnh nhân số {v} cần gọi lại xác nhận lịch",
            "chart {v} ortho start 4/12",
        ],
    ),
    (
        "google_analytics_id",
        lambda r: "G-" + _s(r, UP + DIG, 10),
        None,
        [
            "website GA4 measurement id {v}",
            "gtag('config', '{v}');",
        ],
    ),
    (
        "stripe_test_card_number",
        None,
        None,
        [
            (
                "test the deposit page w/ stripe test card {v}, any future exp, any cvc",
                "4242 4242 4242 4242",
            ),
            (
                "sandbox card {v} (stripe docs test number, declines on purpose)",
                "4000 0000 0000 0002",
            ),
            ("tarjeta de prueba de Stripe: {v}", "5555 5555 5555 4444"),
        ],
    ),
    (
        "jwt_io_example_token",
        None,
        None,
        [
            ("portal dev said token looks like the jwt.io sample: {v}", JWT_IO),
            ("example from jwt.io docs {v}", JWT_IO),
        ],
    ),
    (
        "docker_image_digest",
        lambda r: "sha256:" + _s(r, HEXL, 64),
        None,
        [
            "reminder-svc image pinned to {v}",
            "docker pull ghcr.io/bsdg/recall@{v}",
            "deployed digest {v} to the NUC",
        ],
    ),
    (
        "software_version_build",
        lambda r: f"{r.randrange(20, 26)}.{r.randrange(1, 5)}.{r.randrange(1, 60)}.0",
        None,
        [
            "all sites on Open Dental {v} now",
            "Dentrix G7 update build {v} broke the eClaims tab",
            "versión de Curve en tablets: {v}",
        ],
    ),
    (
        "base64_image_data",
        lambda r: "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAA" + _s(r, B64, 60),
        None,
        [
            "logo for the reminder email header: {v}",
            '<img src="{v}">',
        ],
    ),
    (
        "tracking_number",
        lambda r: "1Z" + _s(r, UP + DIG, 16),
        None,
        [
            "impressions to the lab, UPS {v}",
            "retainers shipped back, tracking {v}",
            "số theo dõi gói hàng lab: {v}",
        ],
    ),
    (
        "dicom_uid",
        lambda r: "1.2.840.10008." + ".".join(str(r.randrange(1, 99999)) for _ in range(4)),
        None,
        [
            "CBCT study instance UID {v} failed to import",
            "StudyInstanceUID={v}",
        ],
    ),
    (
        "bcrypt_hash",
        lambda r: "$2b$12$" + _s(r, ALNUM + "./", 53),
        None,
        [
            "portal stores hashes like {v}, not the pw itself",
            "users.password_hash for test acct = {v}",
        ],
    ),
    (
        "aws_access_key_id_alone",
        lambda r: "AKIA" + _s(r, UP + "234567", 16),
        None,
        [
            "which IAM user is {v}? found it in cloudtrail, secret not in any note",
            "access key id {v} belongs to imaging-backup (secret in Keeper)",
        ],
    ),
    (
        "sendgrid_template_id",
        lambda r: "d-" + _s(r, HEXL, 32),
        None,
        [
            "recall email template id {v}",
            "SENDGRID_TEMPLATE_RECALL={v}",
        ],
    ),
    (
        "slack_channel_id",
        lambda r: "C0" + _s(r, UP + DIG, 9),
        None,
        [
            "post alarm alerts to channel {v} (#facilities)",
            "SLACK_CHANNEL={v}",
        ],
    ),
    (
        "azure_tenant_id",
        _uuid,
        None,
        [
            "BSDG Entra tenant id {v}",
            "AZURE_TENANT_ID={v}",
        ],
    ),
    (
        "cdt_procedure_codes",
        lambda r: f"D{r.randrange(1000, 9999)}",
        None,
        [
            "bill {v} with the FMX, Delta keeps rejecting",
            "código {v} no cubierto por el plan",
            "ortho records use {v} + D8080",
        ],
    ),
    (
        "pgp_key_fingerprint",
        lambda r: " ".join(_s(r, "0123456789ABCDEF", 4) for _ in range(10)),
        None,
        [
            "clearinghouse's PGP key fingerprint: {v}",
            "verify the 835 files signed by {v}",
        ],
    ),
    (
        "request_id_in_log",
        lambda r: "req_" + _s(r, ALNUM, 24),
        None,
        [
            "stripe error on deposit, request id {v} - send to support",
            "log: 502 from portal api request_id={v}",
        ],
    ),
    (
        "alarm_monitoring_account_number",
        lambda r: _s(r, DIG, 8),
        None,
        [
            "ADT monitoring acct # {v} - they ask for it + the passcode word (word is in Keeper)",
            "رقم حساب شركة الإنذار: {v}",
            "alarm co. account {v}, zone 4 = back door by sterilization keeps false-tripping",
        ],
    ),
    (
        "wifi_guest_ssid_no_password",
        lambda r: "BSDG-Guest-" + _s(r, UP + DIG, 4),
        None,
        [
            "patients connect to {v}, captive portal, no pw",
            "SSID {v} is open guest network on vlan 30",
        ],
    ),
]


# ---------------------------------------------------------------- more phrasings and kinds

SECRET += [
    (
        "opendental_api_customer_key",
        lambda r: _s(r, ALNUM, 16),
        lambda r: _s(r, ALNUM, 16),
        [
            "Open Dental API: Authorization: ODFHIR {a}/{v}",
            "OD API customer key for the online forms integration = {v} (dev key {a})",
            'curl -H "Authorization: ODFHIR {a}/{v}" https://api.opendental.com/api/v1/patients',
            "clave de cliente de la API de Open Dental: {v}",
        ],
    ),
    (
        "google_api_key_server",
        lambda r: "AIza" + _s(r, B64URL, 35),
        None,
        [
            "geocoding key used server-side to clean up patient addresses (unrestricted!): {v}",
            "GOOGLE_MAPS_SERVER_KEY={v}",
            "https://maps.googleapis.com/maps/api/geocode/json?address=123+Main&key={v}",
        ],
    ),
    (
        "teams_incoming_webhook_url",
        lambda r: (
            f"https://bsdg.webhook.office.com/webhookb2/{_uuid(r)}@{_uuid(r)}/IncomingWebhook/{_s(r, HEXL, 32)}/{_uuid(r)}"
        ),
        None,
        [
            "Teams channel 'IT alerts' webhook: {v}",
            "TEAMS_WEBHOOK_URL={v}",
            "backup failures post to {v}",
        ],
    ),
    (
        "shared_mailbox_password",
        human_pw,
        None,
        [
            "frontdesk@ shared mailbox pw {v} (MFA off on that one, I know...)",
            "billing@brightsmile.dental / {v}",
            "contraseña del correo de recepción: {v}",
            "كلمة سر بريد الاستقبال: {v}",
        ],
    ),
    (
        "mdm_admin_password",
        human_pw,
        None,
        [
            "Intune/Jamf for the front desk iPads - admin pw {v}",
            "kiosk tablets MDM login it-admin / {v}",
            "mật khẩu quản trị máy tính bảng lễ tân: {v}",
        ],
    ),
]

SECRET += [
    (
        "opendental_mysql_password",
        human_pw,
        None,
        [
            "OD root pw at Westside is just {v}",
            "Mật khẩu MySQL Open Dental chi nhánh Westside: {v}",
        ],
    ),
    (
        "dentrix_sql_connection_password",
        lambda r: gen_pw(r, 18),
        None,
        [
            '<add key="DtxConn" value="Data Source=DTX-SQL;Initial Catalog=DentrixEnt;User ID=dtxsvc;Password={v}" />',
        ],
    ),
    (
        "clearinghouse_portal_password",
        human_pw,
        None,
        [
            "Tesia login for Westside: westside_fd\n{v}",
            "contraseña nueva de DentalXChange: {v}",
        ],
    ),
    (
        "twilio_auth_token",
        lambda r: _s(r, HEXL, 32),
        None,
        [
            "token twilio (recordatorios SMS): {v}",
        ],
    ),
    (
        "stripe_live_secret_key",
        lambda r: "rk_live_" + _s(r, ALNUM, 99),
        None,
        [
            "restricted live key (charges write only) for the ortho payment plans {v}",
        ],
    ),
    (
        "alarm_panel_code",
        lambda r: str(r.randrange(1000, 10000)),
        None,
        [
            "eastside keypad (new code from Linda):\n{v}",
            "if you're first in: door code then alarm {v} then turn on compressor",
        ],
    ),
    (
        "door_access_admin_password",
        human_pw,
        None,
        [
            "contraseña del sistema de puertas (Kisi) admin: {v}",
        ],
    ),
    (
        "wifi_staff_passphrase",
        lambda r: gen_pw(r, 20),
        None,
        [
            "new staff wifi after the breach: {v}",
        ],
    ),
    (
        "imaging_pc_local_admin_password",
        human_pw,
        None,
        [
            "| IMG-PC1 | Administrator | {v} | pano |",
            "كلمة مرور مسؤول جهاز الأشعة: {v}",
        ],
    ),
    (
        "remote_support_unattended_password",
        lambda r: gen_pw(r, 12),
        None,
        [
            "Dentrix support used TV on the server, set unattended pw to {v} - change it later",
        ],
    ),
    (
        "sftp_url_with_password",
        human_pw,
        None,
        [
            "sftp lab: bsdg_cases@files.dentallab-example.net  pw: {v}",
        ],
    ),
    (
        "postgres_url_with_password",
        lambda r: (
            gen_pw(r, 20)
            .replace("@", "x")
            .replace("#", "y")
            .replace("?", "z")
            .replace("%", "q")
            .replace("&", "k")
            .replace(":", "c")
        ),
        None,
        [
            "~/.pgpass on the BI box:\n10.20.0.15:5432:analytics:bi_reader:{v}",
        ],
    ),
    (
        "sendgrid_api_key",
        lambda r: "SG." + _s(r, B64URL, 22) + "." + _s(r, B64URL, 43),
        None,
        [
            "{v}",
        ],
    ),
    (
        "firewall_admin_password",
        human_pw,
        None,
        [
            "Ubiquiti UDM (Westside) root pw {v}",
        ],
    ),
    (
        "prose_login_no_keyword",
        human_pw,
        None,
        [
            "tell the temp to sign into OD as temp1, {v}",
            "Dentrix for the new hygienist: jsmith {v}",
        ],
    ),
    (
        "scanner_cloud_account_password",
        human_pw,
        None,
        [
            "Mật khẩu tài khoản iTero: {v}",
        ],
    ),
    (
        "m365_app_password",
        lambda r: _s(r, LOW, 16),
        None,
        [
            "copier scan-to-email smtp pw {v}",
        ],
    ),
    (
        "voicemail_pin",
        lambda r: str(r.randrange(100000, 1000000)),
        None,
        [
            "Dr. Lee's vm pin: {v}",
        ],
    ),
    (
        "aws_access_key_pair",
        lambda r: _s(r, ALNUM + "/+", 40),
        None,
        [
            "aws secret for the backup user (id is in the other note): {v}",
        ],
    ),
    (
        "reminder_vendor_api_key",
        lambda r: _s(r, ALNUM, 32),
        None,
        [
            "Lighthouse 360 integration token {v}",
        ],
    ),
    (
        "mfa_backup_codes",
        lambda r: "\n".join(f"{_s(r, LOW + DIG, 4)}-{_s(r, LOW + DIG, 4)}" for _ in range(4)),
        None,
        [
            "recovery codes for it@ m365:\n{v}",
        ],
    ),
]

BENIGN += [
    (
        "insurance_member_id",
        lambda r: "W" + _s(r, DIG, 9),
        None,
        [
            "pt's Delta member ID {v}, subscriber is the mom",
            "member id {v} not found in eligibility, typo?",
            "số thẻ bảo hiểm của bệnh nhân: {v}",
            "رقم العضوية في التأمين {v}",
        ],
    ),
    (
        "phone_number",
        lambda r: f"+1{r.randrange(200, 999)}{r.randrange(200, 999)}{r.randrange(1000, 9999)}",
        None,
        [
            "reminder texts go out from Twilio number {v}",
            "after-hours emergency line forwards to {v}",
            "Llamar a la Dra. Ruiz al {v} si hay urgencia",
        ],
    ),
    (
        "vendor_support_case_number",
        lambda r: "CS" + _s(r, DIG, 8),
        None,
        [
            "Dentrix support case {v} - eClaims tab crash",
            "Open Dental ticket {v} still open",
            "iTero service case {v}, tech coming Thursday",
        ],
    ),
    (
        "short_git_sha",
        lambda r: _s(r, HEXL, 7),
        None,
        [
            "deployed {v} to the reminder box",
            "bug introduced in {v}, reverted",
        ],
    ),
    (
        "file_sha1",
        lambda r: _sha(r, "sha1"),
        None,
        [
            "sha1 of the signed 837 batch: {v}",
            "sha1sum sensor_driver_v5.msi -> {v}",
        ],
    ),
    (
        "expired_sms_otp",
        lambda r: _s(r, DIG, 6),
        None,
        [
            "Availity texted {v} but it expired before Maria typed it, resent",
            "code {v} from the portal didnt work (expired after 5 min)",
        ],
    ),
    (
        "base64_nonsecret_json",
        lambda r: base64.b64encode(
            json.dumps({"site": "eastside", "ops": r.randrange(3, 12), "theme": "blue"}).encode()
        ).decode(),
        None,
        [
            "kiosk config blob (just layout, no creds): {v}",
            "tablet settings export: {v}",
        ],
    ),
    (
        "internal_ip_hostnames",
        lambda r: f"10.{r.randrange(0, 255)}.{r.randrange(0, 255)}.{r.randrange(1, 254)}",
        None,
        [
            "OPS-SRV01 is {v}, imaging share \\\\OPS-SRV01\\Xrays",
            "| alarm panel | {v} | port 4025 |",
            "static IP del servidor de Dentrix: {v}",
        ],
    ),
    (
        "lab_case_number",
        lambda r: f"{r.randrange(100000, 999999)}-{_s(r, UP, 2)}",
        None,
        [
            "Glidewell case {v} - crown #14 due Fri",
            "aligner refinement case {v} submitted",
            "ca lab số {v} trễ 3 ngày",
        ],
    ),
]

BENIGN += [
    (
        "git_commit_sha",
        lambda r: _s(r, HEXL, 40),
        None,
        [
            "merged PR, head {v}",
        ],
    ),
    (
        "record_uuid",
        _uuid,
        None,
        [
            "مُعرّف الموعد {v} مكرر",
            "| appt | {v} | no-show |",
        ],
    ),
    (
        "masked_key",
        lambda r: "****-****-" + _s(r, ALNUM, 4),
        None,
        [
            "Square token shown as {v} in the app settings",
            "card on file {v}? no, that's the terminal id",
        ],
    ),
    (
        "stripe_publishable_key",
        lambda r: "pk_live_" + _s(r, ALNUM, 99),
        None,
        [
            "{v}",
        ],
    ),
    (
        "twilio_account_sid",
        lambda r: "AC" + _s(r, HEXL, 32),
        None,
        [
            "| twilio | sid {v} | token: Keeper |",
        ],
    ),
    (
        "npi_number",
        lambda r: "1" + _s(r, DIG, 9),
        None,
        [
            "رقم NPI للدكتور حداد {v}",
        ],
    ),
    (
        "scanner_serial_number",
        lambda r: "SN" + _s(r, UP + DIG, 10),
        None,
        [
            "sensor serial {v} (Schick 33 size 2) sent for RMA",
            "số serial máy scan: {v}",
        ],
    ),
    (
        "ssh_public_key",
        lambda r: "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ" + _s(r, B64, 300),
        None,
        [
            "public key the lab gave us to whitelist: {v}",
        ],
    ),
    (
        "certificate_pem",
        lambda r: pem_body(r, 600),
        None,
        [
            "clearinghouse root CA to import on the OD server:\n-----BEGIN CERTIFICATE-----\n{v}\n-----END CERTIFICATE-----",
        ],
    ),
    (
        "remote_support_id",
        lambda r: str(r.randrange(100000000, 2000000000)),
        None,
        [
            "TV ID {v}",
        ],
    ),
    (
        "mac_address",
        lambda r: "-".join(_s(r, "0123456789ABCDEF", 2) for _ in range(6)),
        None,
        [
            "dirección MAC del escáner: {v}",
        ],
    ),
    (
        "revoked_key_stated_revoked",
        lambda r: "ghp_" + _s(r, ALNUM, 36),
        None,
        [
            "old token {v} REVOKED in github today after it showed up in a screenshot",
        ],
    ),
    (
        "claim_number",
        lambda r: _s(r, DIG, 12),
        None,
        [
            "| claim | {v} | Delta | denied |",
        ],
    ),
    (
        "google_analytics_id",
        lambda r: "UA-" + _s(r, DIG, 8) + "-1",
        None,
        [
            "old universal analytics id {v}, can delete",
        ],
    ),
    (
        "docker_image_digest",
        lambda r: "sha256:" + _s(r, HEXL, 64),
        None,
        [
            "image id {v}",
        ],
    ),
    (
        "software_version_build",
        lambda r: f"{r.randrange(20, 26)}.{r.randrange(1, 5)}.{r.randrange(1, 60)}.0",
        None,
        [
            "Phiên bản Open Dental hiện tại: {v}",
        ],
    ),
    (
        "tracking_number",
        lambda r: _s(r, DIG, 12),
        None,
        [
            "FedEx {v} - new intraoral camera",
        ],
    ),
    (
        "dicom_uid",
        lambda r: "1.2.840.10008." + ".".join(str(r.randrange(1, 99999)) for _ in range(3)),
        None,
        [
            "SeriesInstanceUID {v} missing slices",
        ],
    ),
    (
        "bcrypt_hash",
        lambda r: "$2y$10$" + _s(r, ALNUM + "./", 53),
        None,
        [
            "hash in the kiosk db (bcrypt): {v}",
        ],
    ),
    (
        "aws_access_key_id_alone",
        lambda r: "AKIA" + _s(r, UP + "234567", 16),
        None,
        [
            "| s3 backup | key id {v} | secret: Keeper |",
        ],
    ),
    (
        "sendgrid_template_id",
        lambda r: "d-" + _s(r, HEXL, 32),
        None,
        [
            "plantilla de recordatorio en español: {v}",
        ],
    ),
    (
        "slack_channel_id",
        lambda r: "U0" + _s(r, UP + DIG, 9),
        None,
        [
            "tag Linda's slack user {v} on alarm alerts",
        ],
    ),
    (
        "azure_tenant_id",
        _uuid,
        None,
        [
            "client id {v} (app reg od-to-sharepoint; secret is in Keeper)",
        ],
    ),
    (
        "cdt_procedure_codes",
        lambda r: f"D{r.randrange(1000, 9999)}",
        None,
        [
            "mã thủ thuật {v} bị bảo hiểm từ chối",
        ],
    ),
    (
        "pgp_key_fingerprint",
        lambda r: _s(r, "0123456789ABCDEF", 40),
        None,
        [
            "gpg --recv-keys {v}",
        ],
    ),
    (
        "request_id_in_log",
        lambda r: _uuid(r),
        None,
        [
            "X-Request-Id: {v}",
        ],
    ),
    (
        "wifi_guest_ssid_no_password",
        lambda r: "Sonrisa-Invitados-" + _s(r, DIG, 3),
        None,
        [
            "wifi para pacientes: {v} (sin contraseña)",
        ],
    ),
    (
        "installer_sha256",
        lambda r: _sha(r, "sha256"),
        None,
        [
            "SHA256 del driver del sensor: {v}",
        ],
    ),
    (
        "file_md5",
        lambda r: _sha(r, "md5"),
        None,
        [
            "| case_5521.stl | {v} |",
        ],
    ),
    (
        "payer_id",
        lambda r: _s(r, UP, 2) + _s(r, DIG, 3),
        None,
        [
            "payer id for Cigna dental (in Vyne): {v}",
        ],
    ),
    (
        "chart_number",
        lambda r: str(r.randrange(10000, 999999)),
        None,
        [
            "رقم ملف المريض {v} — يحتاج موافقة التأمين",
        ],
    ),
    (
        "phone_number",
        lambda r: f"({r.randrange(200, 999)}) {r.randrange(200, 999)}-{r.randrange(1000, 9999)}",
        None,
        [
            "fax to Delta: {v}",
        ],
    ),
    (
        "recaptcha_site_key",
        lambda r: "6L" + _s(r, B64URL, 38),
        None,
        [
            "clave de sitio de reCAPTCHA (pública): {v}",
        ],
    ),
    (
        "ssh_host_fingerprint",
        lambda r: "SHA256:" + _s(r, B64, 43),
        None,
        [
            "| sftp lab | {v} |",
        ],
    ),
]


def _rows(label, table, r):
    out = []
    for kind, gen, aux, templates in table:
        for t in templates:
            if isinstance(t, tuple):
                t, v = t
            else:
                v = gen(r)
            a = aux(r) if aux else ""
            text = t.format(v=v, a=a)
            assert v in text, (kind, t)
            out.append({"label": label, "kind": kind, "text": text, "value": v})
    return out


def corpus() -> list[dict]:
    r = random.Random(SEED)
    return _rows("secret", SECRET, r) + _rows("benign", BENIGN, r)


def main() -> None:
    out = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in corpus())
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w", encoding="utf-8") as f:
            f.write(out)
    else:
        sys.stdout.write(out)


if __name__ == "__main__":
    main()

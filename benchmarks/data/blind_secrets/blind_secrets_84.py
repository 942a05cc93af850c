# ruff: noqa: E501, SIM115
"""Blind secret-detector corpus 84: law firm IT and practice support.

Brief: notes, handovers, chat lines, commands, config and log lines kept by
lawyers, paralegals, IT staff and their AI coding agents at a mid-size law
firm (document management, e-discovery, e-filing portals, billing, client
portals, dictation, scanners and printers), in English, German and Polish.
Secret rows hold live credentials; benign rows hold look-alikes a careful
reader would keep (ids, matter and Bates numbers, hashes, public keys,
placeholders, masked or revoked values, vault paths, policy text).

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Run: python blind_secrets_84.py [out.jsonl]

Kinds, secret: aws_access_key_id, aws_secret_access_key, github_pat,
github_fine_grained_pat, gitlab_pat, slack_bot_token, slack_webhook_url,
teams_webhook_url, discord_webhook_url, stripe_secret_key, azure_storage_connection_string,
azure_client_secret, postgres_url, mssql_connection_string, mysql_url,
rsa_private_key, openssh_private_key, gcp_service_account_key, google_api_key,
sendgrid_api_key, twilio_auth_token, openai_api_key, anthropic_api_key,
docusign_secret_key, dms_client_secret, ediscovery_api_key, ediscovery_admin_password,
efiling_portal_password, bea_pin, pfx_password, printer_admin_password,
print_release_pin, alarm_code, wifi_psk, shared_mailbox_password,
dictation_api_key, jwt_bearer_token, basic_auth_url, npm_token, pypi_token,
dockerhub_pat, vault_token, telegram_bot_token, mfa_recovery_codes, totp_seed,
ldap_bind_password, smtp_password, bitlocker_recovery_key, production_set_password,
client_portal_password, m365_app_password, research_service_password,
server_root_password.

Kinds, benign: aws_example_key, env_var_reference, vault_path, masked_key,
stripe_publishable_key, recaptcha_site_key, sha256_digest, md5_dedupe_hash,
git_commit_sha, bates_number, matter_number, court_case_number, portal_username,
ssh_public_key, x509_certificate, cert_thumbprint, azure_tenant_id, azure_client_id,
imanage_document_id, netdocuments_id, device_serial_number, mac_address,
ip_address, ticket_reference, invoice_number, ledes_code, iban, tax_id,
bea_safe_id, revoked_key, build_version, password_policy, docker_image_digest,
slack_channel_id, twilio_account_sid, sendgrid_template_id, analytics_id,
s3_bucket_arn, dev_storage_connection_string, integrated_auth_connection_string,
url_with_env_password, redacted_password, conference_id, pgp_fingerprint,
webhook_placeholder, dictation_job_id, asset_tag, kb_article, cve_id, file_path,
oauth_redirect_uri, bitlocker_key_id, dkim_public_key, placeholder_password,
otpauth_placeholder, jwt_public_jwks, court_fee_reference,
ecf_receipt_number, request_id.
"""

import json
import random
import string
import sys

UP = string.ascii_uppercase
LO = string.ascii_lowercase
DG = string.digits
AN = UP + LO + DG
B64 = AN + "+/"
URLSAFE = AN + "-_"
HEX = "0123456789abcdef"
B32 = UP + "234567"


SEED = 8484


def corpus() -> list[dict]:
    r = random.Random(SEED)

    def rs(n, al=AN):
        return "".join(r.choice(al) for _ in range(n))

    def guid():
        return (
            f"{rs(8, HEX)}-{rs(4, HEX)}-4{rs(3, HEX)}-{r.choice('89ab')}{rs(3, HEX)}-{rs(12, HEX)}"
        )

    def pem(label, lines=8):
        body = "\n".join(rs(64, B64) for _ in range(lines))
        return f"-----BEGIN {label}-----\n{body}\n{rs(40, B64)}==\n-----END {label}-----"

    rows: list[dict] = []

    def add(label, kind, gen, texts):
        for i, t in enumerate(texts):
            v = gen() if callable(gen) else gen[i]
            rows.append({"label": label, "kind": kind, "text": t.replace("{v}", v), "value": v})

    def S(kind, gen, *texts):
        add("secret", kind, gen, texts)

    def B(kind, gen, *texts):
        add("benign", kind, gen, texts)

    # ------------------------------------------------------------------ secrets
    S(
        "aws_access_key_id",
        lambda: "AKIA" + rs(16, UP + DG),
        "backup job for the DMS file share uses the svc-dms-backup IAM user, key id {v}, secret in the next line",
        "AWS_ACCESS_KEY_ID={v}",
        "Zugangsschlüssel für den S3-Export der Aktenarchivierung: {v} (bitte nicht weitergeben)",
        "aws configure --profile ediscovery-export  # access key {v}",
    )
    S(
        "aws_secret_access_key",
        lambda: rs(40, B64),
        "AWS_SECRET_ACCESS_KEY={v}",
        "aws_secret_access_key = {v}",
        "klucz tajny do bucketu z produkcjami dokumentów: {v} — usunąć po migracji",
        "handover: the Glacier archive user secret is {v}, rotate after the Smith v. Corvane matter closes",
    )
    S(
        "github_pat",
        lambda: "ghp_" + rs(36),
        "git clone https://{v}@github.com/kanzlei-it/dms-sync-scripts.git",
        "GH_TOKEN={v} for the billing-export repo CI",
        "Token für das Repo mit den Word-Vorlagen: {v}",
        "agent memory: pushed the intake-form fix using PAT {v} (expires end of quarter)",
    )
    S(
        "github_fine_grained_pat",
        lambda: "github_pat_" + rs(22) + "_" + rs(59),
        "fine-grained token scoped to kanzlei-it/docgen only: {v}",
        "export GITHUB_TOKEN={v}",
        "token z dostępem tylko do repo szablonów pism procesowych: {v}",
    )
    S(
        "gitlab_pat",
        lambda: "glpat-" + rs(20, URLSAFE),
        "private-token header for the on-prem GitLab (practice-support group): {v}",
        'curl --header "PRIVATE-TOKEN: {v}" https://gitlab.kanzlei.local/api/v4/projects/42/pipelines',
        "GitLab Zugang für den Conflict-Check-Importer: {v}",
    )
    S(
        "slack_bot_token",
        lambda: f"xoxb-{rs(12, DG)}-{rs(13, DG)}-{rs(24)}",
        "SLACK_BOT_TOKEN={v}",
        "the docketing bot that posts deadline reminders to #lit-deadlines authenticates with {v}",
        "bot token do powiadomień o nowych pismach z portalu: {v}",
    )
    S(
        "slack_webhook_url",
        lambda: f"https://hooks.slack.com/services/T{rs(8, UP + DG)}/B{rs(10, UP + DG)}/{rs(24)}",
        "intake alerts go to {v}",
        'webhook_url: "{v}"',
        "Webhook für #it-helpdesk (Scanner-Fehler): {v}",
        "curl -X POST -H 'Content-type: application/json' --data '{\"text\":\"Relativity export finished\"}' {v}",
    )
    S(
        "teams_webhook_url",
        lambda: (
            f"https://kanzleimueller.webhook.office.com/webhookb2/{guid()}@{guid()}/IncomingWebhook/{rs(32, HEX)}/{guid()}"
        ),
        "Teams connector for the Fristen channel: {v}",
        "TEAMS_WEBHOOK={v}",
        "webhook kanału Teams 'Sekretariat' do alertów z drukarek: {v}",
    )
    S(
        "discord_webhook_url",
        lambda: f"https://discord.com/api/webhooks/{rs(18, DG)}/{rs(68, URLSAFE)}",
        "the summer associates' study group bot posts via {v}",
        "DISCORD_WEBHOOK_URL={v}",
        "Webhook vom Azubi-Discord (Berufsschule Reminder): {v}",
    )
    S(
        "stripe_secret_key",
        lambda: "sk_live_" + rs(99),
        "client portal retainer payments: STRIPE_SECRET_KEY={v}",
        "Stripe live secret for online invoice payments is {v} — do NOT paste into the ticket",
        "klucz Stripe (produkcja) do płatności zaliczek przez portal klienta: {v}",
        'stripe.api_key = "{v}"',
    )
    S(
        "azure_storage_connection_string",
        lambda: (
            f"DefaultEndpointsProtocol=https;AccountName=kzlarchive{rs(3, DG)};AccountKey={rs(86, B64)}==;EndpointSuffix=core.windows.net"
        ),
        'AZURE_STORAGE_CONNECTION_STRING="{v}"',
        "Verbindungszeichenfolge für das Diktat-Archiv: {v}",
        '"StorageConnection": "{v}"',
        "scan-to-cloud function binds to {v}",
    )
    S(
        "azure_client_secret",
        lambda: rs(3) + "8Q~" + rs(31, AN + "~._-"),
        "Entra app 'iManage-Sync' client secret: {v}",
        "AZURE_CLIENT_SECRET={v}",
        "sekret aplikacji do Graph API (skrzynki kancelaryjne): {v}, ważny 24 miesiące",
        "client_secret: '{v}'",
    )
    S(
        "postgres_url",
        [
            f"postgresql://intake_app:{p}@db01.kanzlei.local:5432/intake"
            for p in ("Mandat2024!x", "Vv7-qp!LexDb", "Akten#Sommer19")
        ],
        "DATABASE_URL={v}",
        "conflict-check service connects to {v}",
        "Die Intake-App läuft gegen {v}",
    )
    S(
        "mssql_connection_string",
        [
            f"Server=SQL-BILL01;Database=TE_3E_Prod;User Id=sa;Password={p};"
            for p in ("Elite3e!2023", "Rechnung$Q4", "Faktura_77!", "Ad3r4nt#Prod")
        ],
        "billing DB (3E) conn string from the old wiki: {v}",
        '"ConnectionStrings": { "Billing": "{v}" }',
        "Verbindung zur Abrechnungsdatenbank: {v}",
        "parametry połączenia do bazy rozliczeń: {v}",
    )
    S(
        "mysql_url",
        [
            f"mysql://portal:{p}@10.20.4.15:3306/clientportal"
            for p in ("Portal!Klient9", "hb7#Qm2zLw", "Kancelaria2022$")
        ],
        "CLIENT_PORTAL_DB={v}",
        "old PHP client portal db: {v}",
        "baza portalu klienta: {v}",
    )
    S(
        "rsa_private_key",
        lambda: pem("RSA PRIVATE KEY"),
        "signing key for the e-billing LEDES upload:\n{v}",
        "Schlüssel fürs SFTP zum Gericht-Scanner-Dienstleister:\n{v}",
        "key.pem contents (docusign JWT grant):\n{v}",
    )
    S(
        "openssh_private_key",
        lambda: pem("OPENSSH PRIVATE KEY", 6),
        "deploy key for the docgen server:\n{v}",
        "klucz SSH do serwera z kopiami zapasowymi:\n{v}",
        "cat ~/.ssh/id_ed25519 on jump01 gives\n{v}",
    )
    S(
        "gcp_service_account_key",
        lambda: (
            "-----BEGIN PRIVATE KEY-----\\n"
            + rs(64, B64)
            + "\\n"
            + rs(64, B64)
            + "\\n"
            + rs(44, B64)
            + "=\\n-----END PRIVATE KEY-----\\n"
        ),
        '{"type": "service_account", "project_id": "kanzlei-ocr", "private_key": "{v}"}',
        "Vision OCR key file, private_key field: {v}",
        '"private_key": "{v}", "client_email": "ocr@kanzlei-ocr.iam.gserviceaccount.com"',
    )
    S(
        "google_api_key",
        lambda: "AIza" + rs(35, URLSAFE),
        "Maps API key for the office-locator on the website: {v} (unrestricted!)",
        "GOOGLE_TRANSLATE_KEY={v}",
        "Klucz do Google Translate dla tłumaczeń roboczych: {v}",
    )
    S(
        "sendgrid_api_key",
        lambda: "SG." + rs(22, URLSAFE) + "." + rs(43, URLSAFE),
        "SENDGRID_API_KEY={v}",
        "invoice reminder mails go out through SendGrid, key {v}",
        "API-Key für den Mandanten-Newsletter: {v}",
    )
    S(
        "twilio_auth_token",
        lambda: rs(32, HEX),
        "TWILIO_AUTH_TOKEN={v}",
        "Twilio auth token for hearing-reminder SMS: {v}",
        "token Twilio do przypomnień SMS o rozprawach: {v}",
    )
    S(
        "openai_api_key",
        lambda: "sk-proj-" + rs(48, URLSAFE) + "T3BlbkFJ" + rs(48, URLSAFE),
        "OPENAI_API_KEY={v}",
        "the deposition summary prototype uses {v} — billing goes to the KM budget",
        "Schlüssel fürs Zusammenfassungs-Tool (Schriftsätze): {v}",
    )
    S(
        "anthropic_api_key",
        lambda: "sk-ant-api03-" + rs(93, URLSAFE) + "AA",
        "ANTHROPIC_API_KEY={v}",
        "agent note: contract-review pilot key is {v}, do not commit",
        "klucz do pilota analizy umów: {v}",
    )
    S(
        "docusign_secret_key",
        lambda: guid(),
        "DocuSign integration secret key (auth code grant) for the engagement letter flow: {v}",
        "DOCUSIGN_CLIENT_SECRET={v}",
        "DocuSign Secret Key für Mandatsvereinbarungen: {v}",
    )
    S(
        "dms_client_secret",
        lambda: rs(48, AN),
        "iManage Work API client_secret for the Outlook filing add-in: {v}",
        "NETDOCUMENTS_CLIENT_SECRET={v}",
        "DMS OAuth Client Secret (Ablage aus Outlook): {v}",
        "sekret klienta API systemu DMS: {v}",
    )
    S(
        "ediscovery_api_key",
        lambda: rs(40, AN),
        "Relativity REST API key for the processing queue monitor: {v}",
        "EDISCOVERY_API_KEY={v}",
        "Everlaw API token (review batch export): {v}",
        "klucz API platformy e-discovery dla eksportu: {v}",
    )
    S(
        "ediscovery_admin_password",
        ["Rel@tivity2024", "Review!Batch9", "Priv1lege-Log", "Dokumente#Sichten"],
        "Relativity admin login: relativity.admin / {v}",
        "review platform service account password is {v}, needed for the nightly OCR job",
        "Passwort für den Review-Admin: {v}",
        "login do platformy przeglądu dokumentów: admin, hasło {v}",
    )
    S(
        "efiling_portal_password",
        ["Docket$2025ecf", "Pacer!Filing88", "Wniosek.2024!", "Sad0wy#Portal", "CourtFile_17!"],
        "PACER/CM-ECF firm account: filings@smithlaw, password {v}",
        "NextGen ECF login for SDNY is ecf_clerk / {v}",
        "hasło do Portalu Informacyjnego Sądów (konto kancelarii): {v}",
        "e-Sąd konto radcy: login kancelaria.wroclaw, hasło: {v}",
        "state e-filing (Odyssey) shared login — pw {v}",
    )
    S(
        "bea_pin",
        ["482917", "730615", "159384", "902746"],
        "beA-Karte von RAin Weber, PIN {v}",
        "PIN der beA-Softwarezertifikat-Karte fürs Sekretariat: {v}",
        "Hinweis für Vertretung: beA-PIN ist {v}, Karte liegt im Tresor",
        "beA card PIN for Dr. Hartmann (needed to sign Schriftsätze while he's away): {v}",
    )
    S(
        "pfx_password",
        ["Zert!fikat2024", "Kwalifikowany#9", "Signatur_Weber7", "pfxExport!2025"],
        "qualified signature export (weber_sig.pfx), import password {v}",
        "Passwort für die .p12-Datei des beA-Softwarezertifikats: {v}",
        "hasło do pliku .pfx z podpisem kwalifikowanym mec. Nowaka: {v}",
        "Import-PfxCertificate -FilePath .\\court-tls.pfx -Password (ConvertTo-SecureString '{v}' -AsPlainText -Force)",
    )
    S(
        "printer_admin_password",
        ["Konica#3F2025", "Drucker!Admin1", "XeroxEG-2024", "Kyocera$Floor4", "Ricoh123!OG2"],
        "Konica bizhub C450i on 3rd floor, admin panel password {v}",
        "Admin-PW vom Xerox im 2. OG: {v}",
        "drukarka Kyocera w sekretariacie — hasło administratora {v}",
        "printer web UI: admin / {v}",
        "| Ricoh IM C3000 | Empfang | admin | {v} |",
    )
    S(
        "print_release_pin",
        ["4471", "80913", "2265", "730041"],
        "follow-me printing PIN for the temp paralegal: {v}",
        "PaperCut Release-PIN von Frau Schulz: {v}",
        "PIN do wydruku podążającego dla aplikanta: {v}",
        "card reader down again — use PIN {v} at the release station until badge is reprinted",
    )
    S(
        "alarm_code",
        ["7319", "58204", "1946", "0625"],
        "alarm code for the file room (Aktenkeller): {v}",
        "Alarmanlage Haupteingang Code {v}, nach 20 Uhr scharf schalten",
        "kod alarmu do archiwum akt: {v}",
        "after-hours entry: disarm with {v} then badge in",
    )
    S(
        "wifi_psk",
        ["Kanzlei-Gast-2025!", "Mandanten Wlan 7781", "SzybkieWiFi#Biuro", "LexNet!secure24"],
        "guest WiFi 'KZL-Gast' password is {v}",
        "WLAN Besprechungsraum: SSID KZL-Meeting, Schlüssel {v}",
        "hasło do wifi w sali konferencyjnej: {v}",
        'wpa_passphrase KZL-Staff "{v}"',
    )
    S(
        "shared_mailbox_password",
        ["Posteingang!2024", "Fristen#Box7", "Biuro.Podawcze1", "Intake2025$"],
        "fristen@kanzlei-mueller.de shared mailbox, pw {v}",
        "Passwort Sammelpostfach poststelle@: {v}",
        "skrzynka biuro@kancelaria-nowak.pl — hasło {v}",
        "intake@ mailbox (legacy IMAP for the scanner) password: {v}",
    )
    S(
        "dictation_api_key",
        lambda: rs(32, AN),
        "SpeechLive API key for the dictation-to-DMS connector: {v}",
        "BIGHAND_API_KEY={v}",
        "Diktat-Schnittstelle API-Schlüssel: {v}",
    )
    S(
        "jwt_bearer_token",
        lambda: "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9." + rs(72, URLSAFE) + "." + rs(43, URLSAFE),
        "Authorization: Bearer {v}",
        "token z portalu klienta (sesja admina) do testów: {v}",
        'curl -H "Authorization: Bearer {v}" https://portal.kanzlei-mueller.de/api/matters',
        "copied the portal admin session token {v} so the agent can re-run the export",
    )
    S(
        "basic_auth_url",
        [
            f"https://{u}:{p}@{h}"
            for u, p, h in (
                ("scanadmin", "Scan2Folder!", "scan01.kanzlei.local/webdav"),
                ("sftp_court", "Gericht#Upload9", "upload.court-reporting.example.net/inbox"),
                ("kopia", "Zapas!2024", "nas02.kancelaria.local/backup"),
            )
        ],
        "scan-to-folder WebDAV target: {v}",
        "transcripts come from {v}",
        "adres kopii: {v}",
    )
    S(
        "npm_token",
        lambda: "npm_" + rs(36),
        "//registry.npmjs.org/:_authToken={v}",
        "NPM_TOKEN={v} for publishing the portal UI kit",
        "npm token für @kanzlei/portal-ui: {v}",
    )
    S(
        "pypi_token",
        lambda: "pypi-AgEIcHlwaS5vcmc" + rs(60, URLSAFE),
        "TWINE_PASSWORD={v}",
        "password = {v}",
        "PyPI token for the ledes-parser package: {v}",
    )
    S(
        "dockerhub_pat",
        lambda: "dckr_pat_" + rs(27, URLSAFE),
        "docker login -u kanzleiit -p {v}",
        "DOCKERHUB_TOKEN={v}",
        "token Docker Hub do obrazu usługi OCR: {v}",
    )
    S(
        "vault_token",
        lambda: "hvs." + rs(24),
        "VAULT_TOKEN={v}",
        "root token from the unseal ceremony: {v}",
        "Vault Token für den Abrechnungs-Job: {v}",
    )
    S(
        "telegram_bot_token",
        lambda: f"{r.randint(5000000000, 7999999999)}:AA{rs(33, URLSAFE)}",
        "partner's Telegram bot for court calendar pings: {v}",
        "TELEGRAM_BOT_TOKEN={v}",
        "bot telegram do powiadomień z e-Sądu: {v}",
    )
    S(
        "mfa_recovery_codes",
        [" ".join(f"{rs(4, LO + DG)}-{rs(4, LO + DG)}" for _ in range(5)) for _ in range(4)],
        "backup codes for the firm's registrar account: {v}",
        "Wiederherstellungscodes M365 Global Admin: {v}",
        "kody odzyskiwania do konta administratora DMS: {v}",
        "recovery codes (GitHub org owner) — {v}",
    )
    S(
        "totp_seed",
        lambda: rs(32, B32),
        "TOTP secret for the shared PACER MFA (so both paralegals can generate codes): {v}",
        "otpauth://totp/Kanzlei:itadmin?secret={v}&issuer=Kanzlei",
        "Seed für den Authenticator vom Notfall-Admin: {v}",
    )
    S(
        "ldap_bind_password",
        ["Bind!Ldap2024", "svc_Scan#Dir7", "Katalog.2023!"],
        "scanner address book LDAP bind: CN=svc-scan,OU=Service,DC=kanzlei,DC=local pw {v}",
        'ldap_bind_password: "{v}"',
        "konto svc-ldap do książki adresowej drukarek, hasło {v}",
    )
    S(
        "smtp_password",
        ["Mail2Scan!24", "SmtpRelay#Kzl", "Poczta$Skaner8", "Relay-pass-4471!"],
        "scan-to-email uses smtp.office365.com:587 as scanner@kanzlei-mueller.de, password {v}",
        "SMTP_PASSWORD={v}",
        "hasło SMTP dla skanerów: {v}",
        'smtp:\n  host: mail.kanzlei.local\n  user: billing-noreply\n  password: "{v}"',
    )
    S(
        "bitlocker_recovery_key",
        lambda: "-".join(f"{r.randint(0, 65535) * 11:06d}" for _ in range(8)),
        "BitLocker recovery key for LT-ASSOC-014 (Frau Becker's laptop): {v}",
        "Wiederherstellungsschlüssel Notebook Partner: {v}",
        "klucz odzyskiwania BitLocker dla laptopa aplikanta: {v}",
        "user locked out at the hearing, read her {v} over the phone",
    )
    S(
        "production_set_password",
        ["Prod004!Corvane", "Zip#Vol12-2024", "Herausgabe$Q3", "ProdVol7_secure"],
        "PROD004 volume sent to opposing counsel via FTP; zip password {v} goes in a separate email",
        "Passwort für das Produktionspaket VOL012: {v}",
        "hasło do paczki z dokumentami dla pełnomocnika strony przeciwnej: {v}",
        "7z a -p{v} -mhe=on PROD009.7z ./PROD009/",
    )
    S(
        "client_portal_password",
        ["Mandant!Portal1", "Welcome2Kzl!", "Klient#2025pl", "DataRoom_Alpha9"],
        "client portal login for Corvane GC: jlee@corvane.com / {v}",
        "Zugang Datenraum Projekt Alpha: Benutzer mandant.alpha, Passwort {v}",
        "hasło klienta do portalu: {v} (wysłane SMS-em)",
        "data room admin password reset to {v}",
    )
    S(
        "m365_app_password",
        lambda: rs(16, LO),
        "app password for the old dictation client (no modern auth): {v}",
        "App-Kennwort für den Scanner (Legacy SMTP): {v}",
        "hasło aplikacji dla starego klienta pocztowego: {v}",
    )
    S(
        "research_service_password",
        ["Westlaw#Team4", "Beck-Online!22", "Lex2024_Biuro", "Juris$Kanzlei"],
        "shared Westlaw login for the litigation team: litsupport@smithlaw / {v}",
        "beck-online Sammelzugang: kanzlei.mueller / {v}",
        "LEX wspólne konto: biuro@kancelaria-nowak.pl, {v}",
        "juris Zugang Referendare: Passwort {v}",
    )
    S(
        "server_root_password",
        ["R00t!Docsrv", "Srv-DMS#2024", "Serwer.Akta9!"],
        "root on docsrv02 is {v}",
        "Lokaler Admin auf dem DMS-Indexserver: Administrator / {v}",
        "ssh root@10.20.4.9, hasło {v}",
    )

    # ------------------------------------------------------------------ benign
    B(
        "aws_example_key",
        [
            "AKIAIOSFODNN7EXAMPLE",
            "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "AKIAIOSFODNN7EXAMPLE",
        ],
        "docs sample: aws_access_key_id = {v} (AWS's own example value)",
        "README template: AWS_SECRET_ACCESS_KEY={v}  # from the AWS docs, replace",
        "Beispiel aus der AWS-Doku ({v}) – kein echter Schlüssel",
    )
    B(
        "env_var_reference",
        [
            "${STRIPE_SECRET_KEY}",
            "$env:DMS_CLIENT_SECRET",
            'os.environ["RELATIVITY_API_KEY"]',
            "%PACER_PASSWORD%",
        ],
        "stripe.api_key = {v}",
        "Connect-DMS -ClientSecret {v}",
        "api_key = {v}  # set in the service's env, never in code",
        "login script reads {v} from the scheduled task env",
    )
    B(
        "vault_path",
        [
            "secret/data/billing/3e-sql",
            "kv/printers/konica-3f/admin",
            "secret/ediscovery/relativity/api",
            "kv/kancelaria/pis/konto",
        ],
        "the 3E SQL password now lives at {v}",
        "vault kv get {v}",
        "Zugangsdaten im Vault unter {v}",
        "hasło przeniesione do Vault: {v}",
    )
    B(
        "masked_key",
        [
            "sk_live_************************7hQz",
            "ghp_****************************wX2c",
            "xoxb-****-****-9fK1",
            "AKIA************4MZQ",
        ],
        "Stripe dashboard shows key {v}, rolled last month",
        "PAT ending {v} belongs to the docgen CI",
        "log shows token={v}",
        "Schlüssel {v} (maskiert) gehört zum Export-User",
    )
    B(
        "stripe_publishable_key",
        lambda: "pk_live_" + rs(99),
        "client portal checkout page embeds {v}",
        "STRIPE_PUBLISHABLE_KEY={v}",
        "publiczny klucz Stripe na stronie płatności: {v}",
    )
    B(
        "recaptcha_site_key",
        lambda: "6L" + rs(38, URLSAFE),
        "contact form reCAPTCHA site key: {v}",
        'data-sitekey="{v}"',
        "öffentlicher Site-Key vom Kontaktformular: {v}",
    )
    B(
        "sha256_digest",
        lambda: rs(64, HEX),
        "SHA-256 of the forensic image (custodian J. Lee laptop): {v}",
        "Hashwert der Sicherungskopie laut Protokoll: {v}",
        "skrót SHA-256 pliku pozwu złożonego przez portal: {v}",
        "sha256sum PROD004.zip -> {v}",
    )
    B(
        "md5_dedupe_hash",
        lambda: rs(32, HEX),
        "dedupe: doc CORV-0012345 MD5 {v} matches family in custodian Baker",
        "MD5HASH field in the load file: {v}",
        "MD5 des Anhangs (Duplikat erkannt): {v}",
    )
    B(
        "git_commit_sha",
        lambda: rs(40, HEX),
        "rolled back the docgen templates to {v}",
        "deployed intake-app at commit {v}",
        "wdrożono poprawkę szablonu pozwu, commit {v}",
    )
    B(
        "bates_number",
        ["CORV-0012345", "SMITH_PROD004_000981", "ABC000123456", "KZL-DE-0004711"],
        "privilege log entry 14 cites {v}",
        "Bates range starts at {v}, ends 4,211 pages later",
        "Dokument {v} geschwärzt, Seite 3",
        "numer Batesa {v} — do ponownej produkcji",
    )
    B(
        "matter_number",
        ["2024-0153-LIT", "10482.0007", "M-23-00981", "AZ 2025/0412"],
        "time entries go to matter {v}",
        "Akte {v}: neue Vollmacht eingescannt",
        "sprawa {v} — zamknięta, do archiwum",
        "billing: move WIP from {v} to the new phase code",
    )
    B(
        "court_case_number",
        ["1:23-cv-04567-JPO", "2 O 123/24", "I C 1234/23", "IX GC 512/24", "3:24-bk-10022"],
        "filed the motion in {v} at 4:52 pm, NEF received",
        "LG Köln, Az. {v}, Termin 14.03.",
        "sygnatura akt {v}, termin rozprawy 12 maja",
        "pozew w sprawie {v} złożony przez PI",
        "claims register for {v} updated",
    )
    B(
        "portal_username",
        ["smithlaw_ecf", "kancelaria.wroclaw", "filings@smithlaw.com"],
        "PACER username is {v}; password is in the vault",
        "login do PIS: {v} (hasło u kierownika sekretariatu)",
        "e-filing account {v} is tied to the firm's CM/ECF registration",
    )
    B(
        "ssh_public_key",
        lambda: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + rs(43, B64) + " it@kanzlei",
        "add to authorized_keys on docsrv02: {v}",
        "öffentlicher Schlüssel für den Scan-Dienstleister: {v}",
        "klucz publiczny dodany do serwera kopii: {v}",
    )
    B(
        "x509_certificate",
        lambda: pem("CERTIFICATE", 6),
        "court TLS intermediate to import on the filing workstation:\n{v}",
        "öffentliches Zertifikat der beA-Schnittstelle:\n{v}",
        "certyfikat publiczny portalu klienta:\n{v}",
    )
    B(
        "cert_thumbprint",
        lambda: rs(40, HEX).upper(),
        "the code-signing cert thumbprint is {v}",
        "Get-ChildItem Cert:\\LocalMachine\\My\\{v}",
        "odcisk certyfikatu (SHA1) do pinowania: {v}",
    )
    B(
        "azure_tenant_id",
        lambda: guid(),
        "tenant id for the firm: {v}",
        "AZURE_TENANT_ID={v}",
        "Mandanten-ID (Entra): {v}",
    )
    B(
        "azure_client_id",
        lambda: guid(),
        "iManage-Sync app registration, application (client) id {v}",
        "AZURE_CLIENT_ID={v}",
        "identyfikator aplikacji Graph (nie sekret): {v}",
    )
    B(
        "imanage_document_id",
        ["ACTIVE!12345678.1", "LEGAL_DE!4471120.3", "ACTIVE!9912034.12"],
        "updated the engagement letter, now {v}",
        "Schriftsatz abgelegt unter {v}",
        "wzór umowy w DMS: {v}",
    )
    B(
        "netdocuments_id",
        ["4821-3456-7890 v.2", "9910-0021-4412 v.1", "3301-8745-2209 v.5"],
        "NetDocs ID {v} is the final SPA",
        "see {v} for the closing checklist",
        "Dokument-ID {v} ist die unterschriebene Fassung",
    )
    B(
        "device_serial_number",
        ["A7PU021012345", "3120R910034", "VNB3K12345", "5CD1234XYZ"],
        "Konica C450i serial {v}, service contract ends June",
        "Seriennummer Scanner Empfang: {v}",
        "numer seryjny drukarki Kyocera: {v}",
        "HP laptop SN {v} returned to leasing",
    )
    B(
        "mac_address",
        ["00:1B:A9:4C:22:7E", "AC:DE:48:00:11:22", "3C:2A:F4:91:0B:5D"],
        "DHCP reservation for the 3F copier: {v}",
        "MAC des Diktiergeräte-Docks: {v}",
        "adres MAC skanera w sekretariacie: {v}",
    )
    B(
        "ip_address",
        ["10.20.3.41", "192.168.50.12", "10.20.4.15"],
        "scan-to-folder target is {v}",
        "Drucker 2. OG hat jetzt die {v}",
        "serwer DMS: {v}",
    )
    B(
        "ticket_reference",
        ["INC0048213", "RITM0012774", "HD-2024-1187", "ZGL/2025/0331"],
        "opened {v} with the DMS vendor about slow saves",
        "Ticket {v}: Toner Magenta 3. OG",
        "zgłoszenie {v} — skaner nie wysyła maili",
        "closing {v}, user confirmed printing works",
    )
    B(
        "invoice_number",
        ["INV-2024-10381", "RE-2025-00412", "FV/2024/11/0087"],
        "client disputes {v}, needs UTBMS detail",
        "Rechnung {v} storniert und neu gestellt",
        "faktura {v} wysłana przez portal",
    )
    B(
        "ledes_code",
        ["L120", "A104", "E101", "TK-000482"],
        "LEDES 1998B: task {v} rejected by the e-billing portal",
        "activity code {v} (review/analyze) required by Corvane guidelines",
        "expense {v} copying, flagged as non-billable",
        "timekeeper id {v} missing rate for 2025",
    )
    B(
        "iban",
        ["DE89370400440532013000", "PL61109010140000071219812874", "DE02120300000000202051"],
        "Anderkonto für Fremdgeld: {v}",
        "rachunek powierniczy kancelarii: {v}",
        "trust account IBAN on the invoice template: {v}",
    )
    B(
        "tax_id",
        ["5261040828", "DE123456789", "0000123456"],
        "NIP kancelarii: {v}",
        "USt-IdNr. auf der Rechnung: {v}",
        "KRS spółki klienta: {v}",
    )
    B(
        "bea_safe_id",
        [
            "DE.BRAK.5b7f3c1a-2a33-4d5e-9e61-12ab34cd56ef.1b2c",
            "DE.Justiz.8a91b2c3-0d4e-4f51-a6b7-c8d9e0f1a2b3.9f0a",
            "DE.BRAK.0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d.77e1",
        ],
        "beA SAFE-ID von RA Dr. Hartmann: {v}",
        "Empfänger-SAFE-ID des LG: {v}",
        "opposing counsel's beA address {v} — use for Zustellung gegen eEB",
    )
    B(
        "revoked_key",
        [
            "sk_live_51HxQ2bJk8vPzR4mN0tYcLw9aE",
            "ghp_7Qx2mVz9LkP4sR1tY6uW3nB8cD0eF5gH2jK4",
            "glpat-Zx8Vq2Lm4Np6Rt9Yw1Bc",
        ],
        "REVOKED 2025-11-02 after the phishing incident, kept for audit: {v}",
        "{v} — widerrufen, im Incident-Bericht dokumentiert",
        "token {v} unieważniony 3.12, nie działa",
    )
    B(
        "build_version",
        ["10.4.2.4718", "v2025.11.0-rc2", "3E 2.9 Update 14"],
        "iManage Work desktop {v} rolled out to floor 3",
        "client portal deploy {v} went live",
        "Abrechnung auf {v} aktualisiert",
    )
    B(
        "password_policy",
        [
            "min. 14 Zeichen, kein Wechsel ohne Anlass, MFA Pflicht",
            "at least 14 characters, no reuse of last 24",
            "hasła min. 12 znaków, zmiana co 90 dni",
        ],
        "Richtlinie: {v}",
        "policy for portal accounts: {v}",
        "polityka haseł: {v}",
    )
    B(
        "docker_image_digest",
        lambda: "sha256:" + rs(64, HEX),
        "ocr-worker image pinned to {v}",
        "image: registry.kanzlei.local/intake@{v}",
        "obraz usługi eksportu: {v}",
    )
    B(
        "slack_channel_id",
        ["C04LITDEAD", "C05BILLING9", "U03PARALEG1"],
        "docketing bot posts to channel {v}",
        "post to {v} when the PACER fetch fails",
        "user {v} is the litigation support lead",
    )
    B(
        "twilio_account_sid",
        lambda: "AC" + rs(32, HEX),
        "TWILIO_ACCOUNT_SID={v}",
        "account SID for SMS reminders: {v}",
        "Konto-SID (kein Geheimnis): {v}",
    )
    B(
        "sendgrid_template_id",
        lambda: "d-" + rs(32, HEX),
        "invoice reminder template {v}",
        "SENDGRID_TEMPLATE_REMINDER={v}",
        "szablon przypomnienia o fakturze: {v}",
    )
    B(
        "analytics_id",
        ["G-7KQ2M9XZ1B", "GTM-N4R8KLP", "UA-11823344-2"],
        "website tag {v}",
        "Tag Manager Container {v} auf der Karriereseite",
        "tag analityki na stronie kancelarii: {v}",
    )
    B(
        "s3_bucket_arn",
        [
            "arn:aws:s3:::kzl-ediscovery-productions",
            "arn:aws:iam::123456789012:user/svc-dms-backup",
            "arn:aws:s3:::kzl-dictation-archive/2025/*",
        ],
        "bucket policy grants read on {v}",
        "IAM user {v} only has PutObject",
        "Ressource: {v}",
    )
    B(
        "dev_storage_connection_string",
        [
            "UseDevelopmentStorage=true",
            "DefaultEndpointsProtocol=https;AccountName=kzlarchive01;AccountKey=<from-keyvault>;EndpointSuffix=core.windows.net",
            "UseDevelopmentStorage=true;DevelopmentStorageProxyUri=http://127.0.0.1",
        ],
        'local.settings.json uses "AzureWebJobsStorage": "{v}"',
        "template: {v}",
        "Azurite lokal, Verbindung: {v}",
    )
    B(
        "integrated_auth_connection_string",
        [
            "Server=SQL-BILL01;Database=TE_3E_Prod;Integrated Security=SSPI;",
            "Data Source=SQL-DMS02;Initial Catalog=IMWork;Trusted_Connection=True;",
            "Server=SQL-BILL01;Database=Reports;Authentication=Active Directory Managed Identity;",
        ],
        "report server now uses {v}",
        "Verbindung ohne Passwort (Windows-Auth): {v}",
        "połączenie przez managed identity: {v}",
    )
    B(
        "url_with_env_password",
        [
            "postgresql://intake_app:${PGPASSWORD}@db01.kanzlei.local:5432/intake",
            "mysql://portal:$(cat /run/secrets/portal_db)@10.20.4.15:3306/clientportal",
            "https://scanadmin:{{ scan_pw }}@scan01.kanzlei.local/webdav",
        ],
        "DATABASE_URL={v}",
        "entrypoint builds {v}",
        'ansible template: url: "{v}"',
    )
    B(
        "redacted_password",
        ["********", "[REDACTED]", "<entfernt>", "xxxxxxxx"],
        "PACER password: {v}",
        "admin / {v} (see vault)",
        "Passwort: {v}",
        "hasło: {v} — w sejfie haseł",
    )
    B(
        "conference_id",
        ["812 4471 2290", "346 118 902#", "29847311"],
        "Zoom meeting ID for the Corvane depo prep: {v}",
        "Einwahl Gerichtstermin (Teams), Konferenz-ID {v}",
        "ID spotkania z klientem: {v}",
    )
    B(
        "pgp_fingerprint",
        lambda: " ".join(rs(4, HEX).upper() for _ in range(10)),
        "opposing counsel's PGP fingerprint (verified by phone): {v}",
        "Fingerprint des Kanzlei-Schlüssels: {v}",
        "odcisk klucza PGP kancelarii: {v}",
    )
    B(
        "webhook_placeholder",
        [
            "https://hooks.slack.com/services/TXXXXXXXX/BXXXXXXXX/XXXXXXXXXXXXXXXXXXXXXXXX",
            "https://<tenant>.webhook.office.com/webhookb2/<id>/IncomingWebhook/<secret>",
            "https://discord.com/api/webhooks/<id>/<token>",
        ],
        "example from the Slack docs: {v}",
        "Platzhalter in der Doku: {v}",
        "przykład: {v}",
    )
    B(
        "dictation_job_id",
        ["BH-2025-118442", "SL-7731-0042", "DIK/2024/09812"],
        "BigHand task {v} stuck in transcription queue",
        "SpeechLive Diktat {v} an Schreibdienst übergeben",
        "dyktando {v} do przepisania na jutro",
    )
    B(
        "asset_tag",
        ["KZL-IT-00482", "MUC-PRN-031", "WRO-LT-117"],
        "scanner {v} moved to the Munich office",
        "Inventarnummer {v}",
        "numer inwentarzowy laptopa: {v}",
    )
    B(
        "kb_article",
        ["KB5034441", "KB0012874", "Q-000481"],
        "install {v} before the iManage upgrade",
        "workaround per vendor article {v}",
        "Hinweis aus {v}: Add-in deaktivieren",
    )
    B(
        "cve_id",
        ["CVE-2024-3400", "CVE-2023-4966", "CVE-2025-21298"],
        "firewall patched for {v}",
        "Citrix Gateway: {v} geprüft, nicht betroffen",
        "łatka na {v} zainstalowana na serwerze poczty",
    )
    B(
        "file_path",
        [
            "\\\\fs01\\Akten\\2024\\0153\\Schriftsaetze",
            "/mnt/productions/PROD004/NATIVES",
            "C:\\ProgramData\\BigHand\\config.xml",
        ],
        "scan profile saves to {v}",
        "natives for the load file are under {v}",
        "konfiguracja dyktafonów: {v}",
    )
    B(
        "oauth_redirect_uri",
        [
            "https://portal.kanzlei-mueller.de/auth/callback",
            "https://localhost:44300/signin-oidc",
            "https://kancelaria-nowak.pl/portal/oauth2/redirect",
        ],
        "redirect URI registered in Entra: {v}",
        "DocuSign redirect_uri={v}",
        "adres przekierowania OAuth: {v}",
    )
    B(
        "bitlocker_key_id",
        lambda: guid().upper(),
        "BitLocker key ID shown on the lock screen: {v} (the 48-digit key is in Intune)",
        "Schlüssel-ID {v} – Wiederherstellungsschlüssel liegt im AD",
        "identyfikator klucza BitLocker: {v}",
    )
    B(
        "dkim_public_key",
        lambda: (
            "v=DKIM1; k=rsa; p=MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA"
            + rs(120, B64)
            + "IDAQAB"
        ),
        "selector1._domainkey TXT: {v}",
        "DNS-Eintrag für DKIM: {v}",
        "rekord DKIM domeny kancelarii: {v}",
    )
    B(
        "placeholder_password",
        ["<HASLO_TUTAJ>", "your-password-here", "CHANGE_ME_BEFORE_DEPLOY", "<Passwort eintragen>"],
        "template: PIS_PASSWORD={v}",
        "printer config sample: admin_password: {v}",
        'smtp_password: "{v}"  # set per office',
        "Vorlage Zugangsdaten: Passwort = {v}",
    )
    B(
        "otpauth_placeholder",
        [
            "otpauth://totp/Kanzlei:{user}?secret={SEED}&issuer=Kanzlei",
            "JBSWY3DPEHPK3PXP",
            "TOTP_SEED=<wird beim Enrollment erzeugt>",
        ],
        "QR format used by the enrollment script: {v}",
        "the well-known demo seed {v} from the authenticator docs, used in unit tests only",
        "Vorlage .env: {v}",
    )
    B(
        "jwt_public_jwks",
        lambda: (
            '{"kty":"RSA","kid":"'
            + rs(16, HEX)
            + '","use":"sig","alg":"RS256","n":"'
            + rs(86, URLSAFE)
            + '","e":"AQAB"}'
        ),
        "portal JWKS public key: {v}",
        "öffentlicher Signaturschlüssel (JWKS): {v}",
        "klucz publiczny JWKS: {v}",
    )

    B(
        "court_fee_reference",
        [
            "Kassenzeichen 712504118832",
            "opłata sądowa ref. 2024/PL/00918723",
            "Pay.gov tracking id 27H4KQ9M",
        ],
        "Gerichtskosten überwiesen, {v}",
        "potwierdzenie: {v}, kwota 750 zł",
        "filing fee paid, {v}",
    )
    B(
        "ecf_receipt_number",
        ["ANYSDC-28765432", "AILNDC-19902214", "ACACDC-31100457"],
        "NEF receipt number {v} for the opposition brief",
        "fee receipt {v} attached to the docket entry",
        "Eingangsbestätigung US-Gericht: {v}",
    )
    B(
        "request_id",
        lambda: guid(),
        "2025-12-03T09:14:22Z ERROR upload failed request_id={v} status=504",
        "DocuSign envelope {v} completed by all signers",
        "Korrelations-ID aus dem Portal-Log: {v}",
        "identyfikator żądania z logu PIS: {v}",
    )

    for row in rows:
        assert row["value"] in row["text"], row
    return rows


def main() -> None:
    rows = corpus()
    out = open(sys.argv[1], "w", encoding="utf-8") if len(sys.argv) > 1 else sys.stdout
    try:
        for row in rows:
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    finally:
        if out is not sys.stdout:
            out.close()


if __name__ == "__main__":
    main()

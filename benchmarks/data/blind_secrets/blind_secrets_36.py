"""Blind corpus 36: healthcare and biotech lab engineers.

Memories written by lab/clinical-informatics engineers: LIMS and ELN admin logins,
instrument PCs' local accounts, HL7 interface engine (Mirth/Rhapsody) credentials,
FHIR server client secrets and SMART on FHIR keys, Epic/Cerner sandbox vs production
app credentials, DICOM PACS/AE logins, REDCap API tokens, research cloud tokens
(Terra, DNAnexus, Seven Bridges, Benchling), sequencer run-upload keys,
de-identification salts and pepper values, SFTP drops with partner labs.
Look-alikes: synthetic patient/sample/accession ids, MRNs, DICOM study/series/SOP
UIDs, LOINC/SNOMED codes, plate barcodes, run ids, FASTQ/BAM checksums, public SMART
client ids, OIDs, pseudonymised hashed ids, vendor-doc example tokens clearly marked,
references to where secrets live.

Written blind on 2026-12-07: the author did not read the detector, its tests or any
earlier corpus.

Run: python blind_secrets_36.py [out.jsonl]   (JSONL to the path, or stdout)

Every random value comes from random.Random(SEED) inside corpus(); nothing is real.

Kinds
-----
secret:
  lims_admin_password, eln_admin_password, instrument_pc_local_admin,
  windows_autologon_password, mirth_admin_password, mirth_db_password,
  rhapsody_admin_password, keystore_password, fhir_client_secret,
  smart_backend_private_key, smart_jwk_private_d, epic_prod_client_secret,
  cerner_system_account_secret, fhir_bearer_token, smart_refresh_token,
  fhir_basic_auth, pacs_admin_password, dicom_ae_login, redcap_api_token,
  redcap_super_token, terra_access_token, gcp_sa_private_key, dnanexus_token,
  sevenbridges_token, benchling_api_key, benchling_app_client_secret,
  basespace_access_token, ica_api_key, aws_secret_key_run_upload, azure_sas_upload,
  deid_salt, deid_pepper, pseudonymisation_hmac_key, phi_encryption_key,
  sftp_partner_password, sftp_private_key, ssh_key_passphrase, pgp_private_key,
  lims_db_url, oracle_lims_password, mssql_conn_password, ldap_bind_password,
  azure_ad_client_secret, aws_healthlake_secret, slack_webhook, github_pat,
  tower_access_token, quay_robot_token, smtp_password, twilio_auth_token,
  redcap_session_cookie, django_secret_key, jwt_signing_secret,
  globus_client_secret, synapse_pat, labkey_api_key, elabftw_api_key,
  xnat_alias_token_secret, omero_password, smrtlink_admin_password,
  ipsec_psk_partner, mllp_gateway_api_key, google_healthcare_oauth_secret,
  labvantage_api_key
benign:
  synthetic_patient_id, mrn, accession_number, sample_id, dicom_study_uid,
  dicom_series_uid, dicom_sop_uid, dicom_ae_title, loinc_code, snomed_code,
  plate_barcode, illumina_run_id, flowcell_id, fastq_md5, bam_sha256,
  public_smart_client_id, hl7_oid, hashed_pseudonym, vendor_doc_example_token,
  vault_reference, env_var_reference, redacted_secret, placeholder_password,
  hl7_control_id, hl7_sample_message, fhir_resource_id, fhir_version_etag,
  jwks_public_key, ssh_public_key, ssh_host_fingerprint, x509_certificate,
  git_commit_sha, docker_digest, dnanexus_object_id, terra_submission_id,
  sbg_task_id, benchling_entity_id, benchling_app_id, redcap_record_id,
  instrument_serial, index_sequence, umi_sequence, password_policy_talk,
  token_last4, aws_access_key_id_only, s3_uri, kms_key_arn, azure_tenant_id,
  keycloak_realm_public_key, pkce_code_challenge, s3_etag_checksum, npi_clia,
  reagent_lot, hgvs_variant, irb_protocol, mirth_channel_id, word_sense_key,
  word_sense_token, word_sense_password, drs_uri, tower_workspace_id,
  compose_required_var, orcid_doi, base64_non_secret, salt_version_config,
  keystore_alias, cerner_public_tenant
"""

# ruff: noqa: E501

import base64
import json
import random
import string
import sys

SEED = 3636


def corpus() -> list[dict]:
    r = random.Random(SEED)
    AL = string.ascii_letters + string.digits
    UP = string.ascii_uppercase + string.digits
    HX = "0123456789abcdef"
    B64 = AL + "+/"
    URL = AL + "-_"

    def s(n, al=AL):
        return "".join(r.choice(al) for _ in range(n))

    def hx(n):
        return s(n, HX)

    def uuid():
        h = hx(32)
        return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{r.choice('89ab')}{h[17:20]}-{h[20:]}"

    words = [
        "Pipette",
        "Centrifuge",
        "Aliquot",
        "Vortex",
        "Reagent",
        "Cuvette",
        "Autoclave",
        "Spectra",
        "Helix",
        "Plasmid",
        "Titer",
        "Gamma",
        "Falcon",
        "Buffer",
        "Eppendorf",
        "Mosaic",
        "Harbor",
        "Copper",
        "Lantern",
        "Orchid",
    ]

    def pw():
        a, b = r.sample(words, 2)
        return f"{a}{r.choice('!#$%&*@?')}{r.randint(10, 9999)}{b.lower()}{r.choice('!#.$')}"

    def pw2():
        return s(r.randint(14, 20), AL + "!#%^*-_=+")

    def b64e(b):
        return base64.b64encode(b).decode()

    def b64u(obj):
        return base64.urlsafe_b64encode(json.dumps(obj).encode()).decode().rstrip("=")

    def jwt(alg="RS256", siglen=342):
        h = b64u({"alg": alg, "typ": "JWT", "kid": hx(8)})
        p = b64u(
            {
                "sub": uuid(),
                "iss": "https://fhir.lab.internal/auth",
                "scope": "system/*.read",
                "exp": 1798000000 + r.randint(0, 9999999),
            }
        )
        return f"{h}.{p}.{s(siglen, URL)}"

    def pem(kind="RSA PRIVATE KEY", lines=8):
        body = "\n".join(s(64, B64) for _ in range(lines))
        return f"-----BEGIN {kind}-----\nMIIEow{s(58, B64)}\n{body}\n{s(40, B64)}==\n-----END {kind}-----"

    def ossh():
        body = "\n".join(s(70, B64) for _ in range(6))
        return (
            "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
            f"{body}\n{s(32, B64)}=\n-----END OPENSSH PRIVATE KEY-----"
        )

    def pgp():
        body = "\n".join(s(64, B64) for _ in range(7))
        return f"-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQdGBG{s(58, B64)}\n{body}\n={s(4, B64)}\n-----END PGP PRIVATE KEY BLOCK-----"

    def basic():
        u = r.choice(["mirth_api", "fhir-loader", "pacsro", "labsvc"])
        return b64e(f"{u}:{pw()}".encode())

    def dig(n):
        return "".join(r.choice(string.digits) for _ in range(n))

    def dicom_uid():
        return "1.2.840.113619.2." + ".".join(
            str(r.randint(1, 99999)) for _ in range(r.randint(5, 8))
        )

    def run_id():
        return f"{r.randint(21, 26)}{r.randint(1, 12):02d}{r.randint(1, 28):02d}_{r.choice(['M', 'NB', 'A', 'VH'])}{dig(5)}_{dig(4)}_{r.choice(['000000000-', 'A', 'B'])}{s(5, string.ascii_uppercase + string.digits)}"

    def azsecret():
        return s(3, AL) + r.choice("0123456789") + "Q~" + s(34, AL + "-_.~")

    # ---------------------------------------------------------------- secrets
    S = [
        (
            "lims_admin_password",
            pw,
            [
                "LabWare LIMS prod: admin login is LIMSADMIN / {v} (set after the 7.3 upgrade, don't share outside informatics)",
                "STARLIMS sysadmin pw changed today -> {v}\nold one no longer works on the QA box either",
                "note to self: LIMS superuser on lims-prod-01 = `{v}`",
            ],
        ),
        (
            "eln_admin_password",
            pw2,
            [
                "Benchling tenant admin (break-glass local account) password: {v}",
                "eLabFTW sysadmin account toni.admin@lab.org\npassword {v}\nMFA not enforced on this one yet",
                "Signals Notebook admin login for the migration script: user=eln_migrator password={v}",
            ],
        ),
        (
            "instrument_pc_local_admin",
            pw,
            [
                "QuantStudio 7 PC (QS7-LAB2): local Administrator / {v} -- vendor needs it for service visits",
                "LC-MS acquisition PC local account 'msuser' pw: {v}\n(do NOT domain-join, Xcalibur breaks)",
                "NovaSeq control PC sbsadmin password is {v}; rotate after Illumina FSE leaves",
            ],
        ),
        (
            "windows_autologon_password",
            pw,
            [
                "Flow cytometer PC autologon: HKLM\\...\\Winlogon DefaultUserName=FACSuser DefaultPassword={v}",
                'reg add "HKLM\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Winlogon" /v DefaultPassword /t REG_SZ /d {v} /f',
                "plate reader autologin set up, DefaultPassword = {v} (kiosk account, keep in sync with the LAPS exemption)",
            ],
        ),
        (
            "mirth_admin_password",
            pw,
            [
                "Mirth Connect admin on mirth-prod:8443 -> admin / {v}",
                "mirth cli: mccommand -a https://mirth01:8443 -u admin -p '{v}'",
                "changed the Mirth admin password after pen test, it's now {v} -- update the channel deploy job",
            ],
        ),
        (
            "mirth_db_password",
            pw2,
            [
                "mirth.properties on prod:\ndatabase = postgres\ndatabase.url = jdbc:postgresql://pgmirth:5432/mirthdb\ndatabase.username = mirth\ndatabase.password = {v}",
                "Mirth DB writer connector for the results table uses sa with password {v}",
                "mirthdb password (postgres role mirth): {v}",
            ],
        ),
        (
            "rhapsody_admin_password",
            pw,
            [
                "Rhapsody IDE login for the ADT engine: rhapadmin / {v}",
                "Rhapsody management console (engine RH-PRD-2) admin pass: {v}",
                "Rhapsody locker 'LabResults' deploy account pw={v}",
            ],
        ),
        (
            "keystore_password",
            pw2,
            [
                "MLLP over TLS: keystore /opt/mirth/appdata/keystore.jks storepass {v} keypass same",
                "keytool -importcert -alias partnerlab -keystore hl7.jks -storepass {v}",
                "javax.net.ssl.keyStorePassword={v}  # interface engine client cert for the state lab",
            ],
        ),
        (
            "fhir_client_secret",
            lambda: s(40, URL),
            [
                "HAPI FHIR (keycloak realm 'clinical') client 'lab-results-writer' secret: {v}",
                "FHIR_CLIENT_SECRET={v}\nFHIR_CLIENT_ID=lab-results-writer",
                "curl -d grant_type=client_credentials -d client_id=bulk-export -d client_secret={v} https://auth.fhir.lab.internal/token",
            ],
        ),
        (
            "smart_backend_private_key",
            lambda: pem("PRIVATE KEY"),
            [
                "SMART backend services signing key for the Epic prod app (kid lab-prod-2026):\n{v}",
                "private key used to sign client_assertion JWTs:\n{v}",
                "saving this so I don't lose it again -- cerner system account key\n{v}",
            ],
        ),
        (
            "smart_jwk_private_d",
            lambda: s(342, URL),
            [
                'JWK for SMART backend auth: {{"kty":"RSA","kid":"bk1","n":"{n}","e":"AQAB","d":"{v}"}}',
                "the private exponent d of our backend JWKS key (non-public half) = {v}",
                'jwks-private.json -> "d": "{v}"',
            ],
        ),
        (
            "epic_prod_client_secret",
            lambda: s(64, AL),
            [
                "Epic PRODUCTION app (Lab Orders Sync) client secret: {v}\nsandbox one is different, don't mix them up",
                "EPIC_PROD_CLIENT_SECRET={v}",
                "App Orchard -> prod client secret regenerated: {v} (non-prod still uses JWT auth)",
            ],
        ),
        (
            "cerner_system_account_secret",
            lambda: s(32, AL + "-_"),
            [
                "Cerner code console system account (prod tenant) secret: {v}",
                "oracle health / cerner client credentials for the bulk pull: secret={v}",
                "cerner_secret: {v}  # production tenant, not the public sandbox",
            ],
        ),
        (
            "fhir_bearer_token",
            jwt,
            [
                "working token for fhir-prod, valid till tonight: Authorization: Bearer {v}",
                "curl -H 'Authorization: Bearer {v}' https://fhir.lab.internal/r4/Observation?code=2345-7",
                "access_token from the SMART launch (live, 1h): {v}",
            ],
        ),
        (
            "smart_refresh_token",
            lambda: s(64, URL),
            [
                "offline_access refresh token for the research app service user: {v}",
                "refresh_token={v} -- lets the nightly job get new access tokens without login",
                "SMART refresh token saved in case the job dies: {v}",
            ],
        ),
        (
            "fhir_basic_auth",
            basic,
            [
                "HAPI behind nginx basic auth: Authorization: Basic {v}",
                "Postman header for the lab FHIR facade -> Basic {v}",
                "mirth HTTP sender header: Authorization = Basic {v}",
            ],
        ),
        (
            "pacs_admin_password",
            pw,
            [
                'Orthanc research PACS: RegisteredUsers {{"admin": "{v}"}}',
                "dcm4chee-arc keycloak admin (realm dcm4che) password {v}",
                "PACS web viewer service login radsvc / {v}",
            ],
        ),
        (
            "dicom_ae_login",
            pw2,
            [
                "Sectra DICOM gateway login for AE LABQR: user dicomgw pass {v}",
                "PACS query/retrieve node AE=RESEARCH_QR requires user identity negotiation: dcmsvc / {v}",
                "storescu --user pacsimport --password {v} -aec PACSPRD pacs01 104 ./study/",
            ],
        ),
        (
            "redcap_api_token",
            lambda: s(32, "0123456789ABCDEF"),
            [
                "REDCap API token for project 8812 (biobank consent): {v}",
                "curl -X POST https://redcap.hospital.org/api/ -d token={v} -d content=record -d format=json",
                "REDCAP_TOKEN={v}  # my token, export rights only",
            ],
        ),
        (
            "redcap_super_token",
            lambda: s(64, "0123456789ABCDEF"),
            [
                "REDCap super API token (can create projects!): {v}",
                "the provisioning script uses the 64-char super token {v}",
                "REDCap admin gave us a super token for project automation -> {v}",
            ],
        ),
        (
            "terra_access_token",
            lambda: "ya29." + s(150, URL),
            [
                "gcloud auth print-access-token for the Terra workspace SA -> {v}",
                'Terra API call: curl -H "Authorization: Bearer {v}" https://api.firecloud.org/api/workspaces',
                "token for Terra rawls (expires in 1h, enough for the migration): {v}",
            ],
        ),
        (
            "gcp_sa_private_key",
            lambda: pem("PRIVATE KEY", 10).replace("\n", "\\n"),
            [
                '"type": "service_account", "project_id": "terra-lab-72", "private_key": "{v}"',
                "Terra pet SA key json, private_key field: {v}",
                "private_key from the Cloud Healthcare API SA (dicomweb importer): {v}",
            ],
        ),
        (
            "dnanexus_token",
            lambda: s(32, AL),
            [
                "dx login --token {v} --noprojects",
                "DNAnexus API token (scope: all projects, expires 2027-06): {v}",
                'DX_SECURITY_CONTEXT=\'{{"auth_token_type": "Bearer", "auth_token": "{v}"}}\'',
            ],
        ),
        (
            "sevenbridges_token",
            lambda: hx(32),
            [
                "Seven Bridges auth token for the CGC: {v}",
                "sbg config: [default]\napi_endpoint = https://cgc-api.sbgenomics.com/v2\nauth_token = {v}",
                "curl -H 'X-SBG-Auth-Token: {v}' https://api.sbgenomics.com/v2/user",
            ],
        ),
        (
            "benchling_api_key",
            lambda: "sk_" + s(30, AL),
            [
                "Benchling API key for the registry sync bot: {v}",
                "BENCHLING_API_KEY={v}",
                "benchling-sdk: Benchling(url='https://acmebio.benchling.com', auth_method=ApiKeyAuth('{v}'))",
            ],
        ),
        (
            "benchling_app_client_secret",
            lambda: "cs_" + s(40, AL),
            [
                "Benchling App 'plate-importer' client_secret = {v}",
                "Benchling app credentials: client id app_{cid}, secret {v}",
                "ClientCredentialsOAuth2(client_id='app_{cid}', client_secret='{v}')",
            ],
        ),
        (
            "basespace_access_token",
            lambda: hx(32),
            [
                "BaseSpace CLI config ~/.basespace/default.cfg:\napiServer = https://api.basespace.illumina.com\naccessToken = {v}",
                "bs auth token for run upload from the MiSeq: {v}",
                "BaseSpace Sequence Hub access token (sequencing core account) {v}",
            ],
        ),
        (
            "ica_api_key",
            lambda: s(32, AL) + s(8, AL),
            [
                "Illumina Connected Analytics API key: {v}",
                "icav2 config set --x-api-key {v}",
                "ICA key for the DRAGEN auto-launch: X-API-Key: {v}",
            ],
        ),
        (
            "aws_secret_key_run_upload",
            lambda: s(40, AL + "/+"),
            [
                "run-upload IAM user (s3://seqcore-raw) secret access key: {v}",
                "[seq-upload]\naws_access_key_id = AKIA{kid}\naws_secret_access_key = {v}",
                "export AWS_SECRET_ACCESS_KEY={v}  # NextSeq uploader",
            ],
        ),
        (
            "azure_sas_upload",
            lambda: (
                "sv=2022-11-02&ss=b&srt=co&sp=rwlc&se=2027-03-01T00:00:00Z&st=2026-12-01T00:00:00Z&spr=https&sig="
                + s(43, AL + "+/").replace("+", "%2B").replace("/", "%2F")
                + "%3D"
            ),
            [
                "partner lab upload SAS (valid to March): https://seqdrop.blob.core.windows.net/runs?{v}",
                "azcopy copy ./Run0042 'https://seqdrop.blob.core.windows.net/runs/?{v}' --recursive",
                "SAS token for the sequencing drop container: {v}",
            ],
        ),
        (
            "deid_salt",
            lambda: hx(64),
            [
                "de-identification salt for MRN hashing (study COVID-BIO, v3): {v}",
                "DEID_SALT={v}",
                "salt used by the pseudonymiser for accession numbers = {v} -- if this leaks the ids can be brute forced",
            ],
        ),
        (
            "deid_pepper",
            lambda: s(48, AL),
            [
                "pepper value for the patient-key HMAC (kept out of the DB): {v}",
                'PSEUDONYM_PEPPER="{v}"',
                "de-id pepper, research warehouse: {v}",
            ],
        ),
        (
            "pseudonymisation_hmac_key",
            lambda: b64e(bytes(r.getrandbits(8) for _ in range(32))),
            [
                "hmac.new(base64.b64decode('{v}'), mrn.encode(), 'sha256') -- that's the prod pseudonym key",
                "HMAC key for the honest broker (base64): {v}",
                "pseudonymisation key (do not put in git again): {v}",
            ],
        ),
        (
            "phi_encryption_key",
            lambda: base64.urlsafe_b64encode(bytes(r.getrandbits(8) for _ in range(32))).decode(),
            [
                "Fernet key for the PHI columns in the sample tracker: {v}",
                "PHI_FERNET_KEY={v}",
                "encryption key for the consent PDFs at rest: {v}",
            ],
        ),
        (
            "sftp_partner_password",
            pw,
            [
                "SFTP drop with Quest ref lab: sftp labdrop@sftp.partnerlab.com, password {v}",
                "partner lab SFTP (results inbound) user mgh_in / pw {v}",
                "lftp -u genomics_xfer,'{v}' sftp://xfer.reflab.net",
            ],
        ),
        (
            "sftp_private_key",
            ossh,
            [
                "SSH key for the SFTP drop with the partner biobank:\n{v}",
                "id_ed25519 for sftp://drop.cro.example.net (user ourlab):\n{v}",
                "sftp key (no passphrase) used by the results push cron:\n{v}",
            ],
        ),
        (
            "ssh_key_passphrase",
            pw,
            [
                "passphrase for ~/.ssh/partnerlab_rsa is {v}",
                "the sftp key for the CRO is encrypted, passphrase: {v}",
                "ssh-keygen -p -f labdrop_key -P '{v}' -N ''",
            ],
        ),
        (
            "pgp_private_key",
            pgp,
            [
                "PGP private key for decrypting the reference lab's result files:\n{v}",
                "gpg --import this (results decryption):\n{v}",
                "partner lab sends encrypted VCFs, our secret key:\n{v}",
            ],
        ),
        (
            "lims_db_url",
            lambda: pw2(),
            [
                "LIMS reporting DB: postgresql://lims_ro:{v}@lims-db.lab.internal:5432/lims",
                "SQLALCHEMY_DATABASE_URI=postgresql+psycopg2://tracker:{v}@pg01/sampletracker",
                "jdbc url for the ELN warehouse: jdbc:postgresql://elndw:5432/eln?user=etl&password={v}",
            ],
        ),
        (
            "oracle_lims_password",
            pw,
            [
                "LabWare schema owner on Oracle: sqlplus LIMS/{v}@LIMSPRD",
                "Oracle LIMS DB (LIMSPRD) user LIMS_ADMIN password {v}",
                "tnsnames LIMSPRD, connect as lims_report/{v}",
            ],
        ),
        (
            "mssql_conn_password",
            pw2,
            [
                "STARLIMS connection string: Server=sqlprd03;Database=STARLIMS_DATA;User Id=starlims;Password={v};",
                "Data Source=LIMSSQL;Initial Catalog=Instruments;User ID=instr_svc;Password={v}",
                'sqlcmd -S sqlprd03 -U lims_etl -P "{v}"',
            ],
        ),
        (
            "ldap_bind_password",
            pw,
            [
                "LIMS LDAP bind account CN=svc-lims,OU=Service,DC=lab,DC=org password: {v}",
                "ldap.bind.password={v}  # eln AD integration",
                "ldapsearch -D 'svc-eln@lab.org' -w '{v}' -H ldaps://dc01.lab.org",
            ],
        ),
        (
            "azure_ad_client_secret",
            azsecret,
            [
                "Azure API for FHIR: app registration 'lab-fhir-loader' client secret {v}",
                "AZURE_CLIENT_SECRET={v}",
                "new secret value for the Health Data Services ingest app (expires 2027): {v}",
            ],
        ),
        (
            "aws_healthlake_secret",
            lambda: s(40, AL + "/+"),
            [
                "HealthLake import role user secret: {v}",
                "aws configure --profile healthlake -> secret key {v}",
                "the FHIR bulk importer's AWS secret is {v}",
            ],
        ),
        (
            "slack_webhook",
            lambda: f"https://hooks.slack.com/services/T{s(8, UP)}/B{s(10, UP)}/{s(24, AL)}",
            [
                "sequencer run-complete alerts post to {v}",
                "SLACK_WEBHOOK_URL={v}",
                "LIMS QC failure notifier webhook: {v}",
            ],
        ),
        (
            "github_pat",
            lambda: "ghp_" + s(36, AL),
            [
                "PAT for cloning the private nf-core fork on the HPC: {v}",
                "git clone https://lab-bot:{v}@github.com/acmebio/rnaseq-pipeline.git",
                "GH_TOKEN={v}  # pipeline release bot",
            ],
        ),
        (
            "tower_access_token",
            lambda: "eyJ0aWQiOiA" + s(60, AL) + "==",
            [
                "Seqera Platform (Tower) token for launching from the LIMS: {v}",
                "export TOWER_ACCESS_TOKEN={v}",
                "nextflow run main.nf -with-tower, token in env: TOWER_ACCESS_TOKEN={v}",
            ],
        ),
        (
            "quay_robot_token",
            lambda: s(64, UP),
            [
                "docker login -u='acmebio+ci' -p='{v}' quay.io",
                "quay robot acmebio+pipelines token {v}",
                "pull secret for pipeline images: robot token {v}",
            ],
        ),
        (
            "smtp_password",
            pw,
            [
                "result-report mailer SMTP (smtp.office365.com:587) lims-reports@lab.org / {v}",
                "EMAIL_HOST_PASSWORD={v}",
                "smtp auth for critical-value notifications: {v}",
            ],
        ),
        (
            "twilio_auth_token",
            lambda: hx(32),
            [
                "Twilio (patient SMS reminders) auth token: {v}",
                "TWILIO_AUTH_TOKEN={v}\nTWILIO_ACCOUNT_SID=AC{sid}",
                "twilio creds for the sample-collection reminder bot, token {v}",
            ],
        ),
        (
            "redcap_session_cookie",
            lambda: s(26, "abcdefghijklmnopqrstuv0123456789"),
            [
                "my live REDCap session (for the export script until the token arrives): PHPSESSID={v}",
                "Cookie: PHPSESSID={v}; redcap_cookie_consent=1",
                "copied session cookie from the browser to scrape the report: PHPSESSID {v}",
            ],
        ),
        (
            "django_secret_key",
            lambda: s(50, string.ascii_lowercase + string.digits + "!@#%^&*(-_=+)"),
            [
                "sample tracker prod settings: SECRET_KEY = '{v}'",
                "DJANGO_SECRET_KEY={v}",
                "biobank portal secret key (sessions are signed with this): {v}",
            ],
        ),
        (
            "jwt_signing_secret",
            lambda: s(48, AL),
            [
                "ELN plugin JWT HS256 signing secret: {v}",
                "JWT_SECRET={v}",
                "jwt.encode(payload, '{v}', algorithm='HS256')  # lab portal",
            ],
        ),
        (
            "globus_client_secret",
            lambda: s(44, AL + "+/") + "=",
            [
                "Globus confidential client (sequencing transfer) secret: {v}",
                "GLOBUS_CLIENT_SECRET={v}",
                "globus app credentials for the cryo-EM data move, secret {v}",
            ],
        ),
        (
            "synapse_pat",
            lambda: jwt("RS256", 342),
            [
                "Synapse personal access token: {v}",
                "synapse login --authToken {v}",
                "SYNAPSE_AUTH_TOKEN={v}",
            ],
        ),
        (
            "labkey_api_key",
            lambda: "apikey|" + hx(32),
            [
                "LabKey Server API key for the assay loader: {v}",
                "~/.netrc for labkey: machine labkey.lab.org login apikey password {v}",
                "LABKEY_API_KEY={v}",
            ],
        ),
        (
            "elabftw_api_key",
            lambda: f"{r.randint(2, 40)}-" + hx(84),
            [
                "eLabFTW API key (read/write) for the import script: {v}",
                "curl -H 'Authorization: {v}' https://elab.lab.org/api/v2/experiments",
                "ELABFTW_KEY={v}",
            ],
        ),
        (
            "xnat_alias_token_secret",
            lambda: s(64, AL),
            [
                "XNAT alias token: alias {alias} secret {v}",
                "xnat -u {alias} -p {v} (token, valid 48h)",
                "XNAT_PASS={v}  # alias token secret, user is {alias}",
            ],
        ),
        (
            "omero_password",
            pw,
            [
                "OMERO server root password: {v}",
                "omero login -s omero.lab.org -u importer -w '{v}'",
                "microscopy OMERO importer account pw {v}",
            ],
        ),
        (
            "smrtlink_admin_password",
            pw,
            [
                "PacBio SMRT Link admin (Keycloak) password after install: {v}",
                "SMRT Link server smrtlink01 admin / {v}",
                "Revio SMRT Link api user pw {v}",
            ],
        ),
        (
            "ipsec_psk_partner",
            lambda: s(32, AL),
            [
                "site-to-site VPN with the county hospital (HL7 feed) PSK: {v}",
                'strongswan ipsec.secrets: 203.0.113.10 198.51.100.7 : PSK "{v}"',
                "pre-shared key for the reference lab tunnel = {v}",
            ],
        ),
        (
            "mllp_gateway_api_key",
            lambda: "hgw_" + s(40, AL),
            [
                "HL7 gateway REST key (posting ORU^R01 to the cloud listener): {v}",
                "x-api-key: {v}  # interface engine -> results gateway",
                "HL7_GATEWAY_KEY={v}",
            ],
        ),
        (
            "google_healthcare_oauth_secret",
            lambda: "GOCSPX-" + s(28, URL),
            [
                "OAuth client secret for the imaging viewer (Cloud Healthcare DICOMweb): {v}",
                "client_secret: {v}  # OHIF login, prod project",
                "GOOGLE_CLIENT_SECRET={v}",
            ],
        ),
        (
            "labvantage_api_key",
            lambda: "lvk_" + s(32, AL),
            [
                "LabVantage REST API key (integration user): {v}",
                "LABVANTAGE_API_KEY={v}",
                "labvantage api key for the plate-map push {v}",
            ],
        ),
    ]

    # ---------------------------------------------------------------- benign
    B = [
        (
            "synthetic_patient_id",
            lambda: f"PT-{dig(7)}",
            [
                "synthetic test patient for the ADT feed is {v} (Synthea generated, not real)",
                "use patient {v} when replaying the ORM messages in test",
                "Fixed bug where {v} showed twice in the worklist",
            ],
        ),
        (
            "mrn",
            lambda: dig(8),
            [
                "MRN {v} belongs to the test patient 'ZZTEST, LABONE' in TST",
                "PID-3 in the sample ORU is {v}^^^HOSP^MR",
                "search by MRN={v} returns the synthetic newborn",
            ],
        ),
        (
            "accession_number",
            lambda: f"{r.choice(['S', 'C', 'H'])}{r.randint(24, 26)}-{dig(6)}",
            [
                "accession {v} failed autoverification because of the hemolysis flag",
                "reran accession # {v} on the cobas, same result",
                "LIMS accession format is like {v} (year prefix)",
            ],
        ),
        (
            "sample_id",
            lambda: f"BB{dig(4)}-{s(4, UP)}-{r.randint(1, 9):02d}",
            [
                "biobank sample {v} is the aliquot we sent to sequencing",
                "sample_id: {v}\nvolume: 250 uL\nfreezer: F12 rack 3",
                "swap found: {v} and its neighbour were loaded in the wrong wells",
            ],
        ),
        (
            "dicom_study_uid",
            dicom_uid,
            [
                "StudyInstanceUID {v} is the phantom scan we use for PACS tests",
                "(0020,000D) Study Instance UID: {v}",
                "retrieve study {v} via C-MOVE to the research AE",
            ],
        ),
        (
            "dicom_series_uid",
            lambda: "2.25." + dig(38),
            [
                "SeriesInstanceUID={v} came through twice, dedupe before import",
                "series {v} has the wrong orientation",
                "DICOMweb: GET /studies/.../series/{v}/metadata",
            ],
        ),
        (
            "dicom_sop_uid",
            lambda: "1.3.6.1.4.1.14519.5.2.1." + ".".join(dig(r.randint(3, 12)) for _ in range(4)),
            [
                "SOPInstanceUID {v} (TCIA public collection, fine to share)",
                "the corrupt instance is {v}",
                "sop uid {v} rejected: transfer syntax not supported",
            ],
        ),
        (
            "dicom_ae_title",
            lambda: (
                r.choice(["LABQR", "PACSPRD", "ORTHANC_RES", "MODLINK"])
                + f" @ 10.20.{r.randint(1, 254)}.{r.randint(1, 254)}:{r.choice([104, 11112, 4242])}"
            ),
            [
                "AE config for the research node: {v}",
                "C-ECHO works against {v}",
                "calling AE must be whitelisted on the PACS side: {v}",
            ],
        ),
        (
            "loinc_code",
            lambda: f"{r.randint(1000, 99999)}-{r.randint(0, 9)}",
            [
                "glucose is mapped to LOINC {v} in the results interface",
                "OBX-3 should be {v}^Hemoglobin^LN",
                "missing LOINC mapping for local code K-POT -> {v}",
            ],
        ),
        (
            "snomed_code",
            lambda: dig(r.randint(8, 9)),
            [
                "specimen type SNOMED CT {v} (venous blood specimen)",
                "SCTID {v} used in the condition feed",
                "map body site to SNOMED {v}",
            ],
        ),
        (
            "plate_barcode",
            lambda: f"PL{dig(8)}",
            [
                "plate barcode {v} scanned twice on the Hamilton",
                "96-well plate {v} -> library prep batch 17",
                "Barcode: {v} (Code128, printed on the short side)",
            ],
        ),
        (
            "illumina_run_id",
            run_id,
            [
                "run {v} finished, Q30 91%",
                'RunInfo.xml Id="{v}"',
                "demux failed for {v}: sample sheet index collision",
            ],
        ),
        (
            "flowcell_id",
            lambda: s(5, UP) + "DRX" + s(2, UP),
            [
                "flowcell {v} had low cluster density on lane 2",
                "FlowcellID={v}",
                "returned flowcell {v} under warranty",
            ],
        ),
        (
            "fastq_md5",
            lambda: hx(32),
            [
                "md5sum sample_R1.fastq.gz = {v}",
                "{v}  NA12878_S1_L001_R2_001.fastq.gz",
                "checksum mismatch: partner says {v} for the R1",
            ],
        ),
        (
            "bam_sha256",
            lambda: hx(64),
            [
                "sha256 of the final BAM: {v}",
                "{v}  HG002.markdup.bam",
                "DRS object checksum (sha-256) {v}",
            ],
        ),
        (
            "public_smart_client_id",
            uuid,
            [
                "Epic non-prod client ID (public, goes in the launch URL): {v}",
                "SMART app registration client_id={v} -- public client, PKCE only, no secret",
                "client_id for the open.epic sandbox app: {v}",
            ],
        ),
        (
            "hl7_oid",
            lambda: "2.16.840.1.113883.3." + ".".join(str(r.randint(1, 9999)) for _ in range(3)),
            [
                "assigning authority OID for our MRNs: {v}",
                'CDA templateId root="{v}"',
                "HL7 OID registry entry {v} (lab facility)",
            ],
        ),
        (
            "hashed_pseudonym",
            lambda: hx(64),
            [
                "pseudonymised subject id {v} (hash, salt lives in the honest broker, not here)",
                "research_id: {v}",
                "linked two cohorts on hashed id {v}",
            ],
        ),
        (
            "vendor_doc_example_token",
            lambda: "",
            [
                "REDCap docs example: token=[[ABCDEF0123456789ABCDEF0123456789]] (their placeholder, replace with yours)",
                "Benchling docs show api key as [[sk_XXXXXXXXXXXXXXXXXXXXXXXXX]] -- example only",
                "from the Seven Bridges tutorial: X-SBG-Auth-Token: [[<your-auth-token-here>]]",
            ],
        ),
        (
            "vault_reference",
            lambda: "",
            [
                "Mirth admin password is in Vault at [[secret/interfaces/mirth-prod/admin]]",
                "REDCap API tokens live in 1Password vault [['Research IT']], item per project",
                "de-id salt: aws secretsmanager get-secret-value --secret-id [[prod/deid/salt]] (never copy it out)",
            ],
        ),
        (
            "env_var_reference",
            lambda: "",
            [
                "FHIR_CLIENT_SECRET=[[${{FHIR_CLIENT_SECRET}}]] in the compose file, injected by CI",
                "redcap_token: \"[[{{{{ lookup('env', 'REDCAP_API_TOKEN') }}}}]]\"",
                "database.password = [[${{MIRTH_DB_PASSWORD}}]]  # mirth reads from env since 4.4",
            ],
        ),
        (
            "redacted_secret",
            lambda: "",
            [
                "REDCap token for 8812: [[3F9A************************C21E]] (redacted)",
                "client_secret=[[<REDACTED>]] in the Epic ticket log",
                "DNAnexus token: [[******************]] (see vault)",
            ],
        ),
        (
            "placeholder_password",
            lambda: "",
            [
                "instrument PC setup template: local admin password = [[<set-per-device-LAPS>]]",
                "sftp password: [[CHANGE_ME]] (fill in from the partner agreement packet)",
                "LIMS_ADMIN_PASSWORD=[[your_password_here]]",
            ],
        ),
        (
            "hl7_control_id",
            lambda: f"MSG{dig(11)}",
            [
                "MSH-10 control id {v} got NACKed (AE) by the LIS",
                "duplicate message control id {v} in the ORU feed",
                "ACK for {v}: AA",
            ],
        ),
        (
            "hl7_sample_message",
            lambda: dig(8),
            [
                "test message:\nMSH|^~\\&|LIS|LAB|EHR|HOSP|20261204101500||ORU^R01|T1|P|2.5.1\nPID|1||{v}^^^HOSP^MR||ZZTEST^ALPHA",
                "PID|1||{v}^^^HOSP^MR||DOE^JANE^^^^^L||19800101|F  (synthetic, from test script)",
                "OBR|1|ORD123|{v}|24331-1^Lipid panel^LN",
            ],
        ),
        (
            "fhir_resource_id",
            lambda: s(r.randint(20, 26), AL + "-."),
            [
                "Epic sandbox test patient FHIR id: {v} (public test data)",
                "GET /Patient/{v}/$everything timed out",
                "Observation/{v} has the wrong unit",
            ],
        ),
        (
            "fhir_version_etag",
            lambda: str(r.randint(2, 40)),
            [
                'ETag: W/"{v}" -- If-Match needed for updates',
                "meta.versionId {v} conflicts with the bulk loader",
                "versionId bumped to {v} after the reconciliation",
            ],
        ),
        (
            "jwks_public_key",
            lambda: s(342, URL),
            [
                'public JWKS for SMART registration: {{"kty":"RSA","kid":"bk1","e":"AQAB","n":"{v}"}}',
                "uploaded the public key modulus n={v} to Epic (public half only)",
                "jwks.json (public, served at /.well-known/jwks.json) n: {v}",
            ],
        ),
        (
            "ssh_public_key",
            lambda: "AAAAC3NzaC1lZDI1NTE5AAAAI" + s(43, B64),
            [
                "give this to the partner lab for the SFTP drop: ssh-ed25519 {v} results@lab",
                "authorized_keys on sftp01: ssh-ed25519 {v} cro-push",
                "our public key for the biobank transfer: ssh-ed25519 {v}",
            ],
        ),
        (
            "ssh_host_fingerprint",
            lambda: "SHA256:" + s(43, B64),
            [
                "partner SFTP host key fingerprint {v} -- verify before first connect",
                "ED25519 key fingerprint is {v}.",
                "known_hosts pinned to {v}",
            ],
        ),
        (
            "x509_certificate",
            lambda: pem("CERTIFICATE", 6).replace("MIIEow", "MIIDdz"),
            [
                "public cert the state lab needs for our MLLP TLS client:\n{v}",
                "CA cert for the PACS TLS listener:\n{v}",
                "server certificate (public) for fhir.lab.internal:\n{v}",
            ],
        ),
        (
            "git_commit_sha",
            lambda: hx(40),
            [
                "pipeline pinned to commit {v}",
                "reverted {v} (broke the sample sheet parser)",
                "nf-core/sarek revision {v}",
            ],
        ),
        (
            "docker_digest",
            lambda: "sha256:" + hx(64),
            [
                "dragen image pinned: quay.io/acmebio/align@{v}",
                "image digest {v}",
                "FROM broadinstitute/gatk@{v}",
            ],
        ),
        (
            "dnanexus_object_id",
            lambda: (
                r.choice(["project-", "file-", "job-", "applet-"])
                + s(24, "0123456789BFGJKPQVXYZbfgjkpqvxyz")
            ),
            [
                "outputs are in {v}",
                "dx describe {v}",
                "the failed one was {v}",
            ],
        ),
        (
            "terra_submission_id",
            uuid,
            [
                "Terra submission {v} failed at HaplotypeCaller",
                "workflow id {v} -- call caching hit",
                "Cromwell id {v}",
            ],
        ),
        (
            "sbg_task_id",
            lambda: uuid(),
            [
                "SBG task {v} finished in 3h",
                "rerun Seven Bridges task id {v} with more memory",
                "task/{v}/execution_details",
            ],
        ),
        (
            "benchling_entity_id",
            lambda: r.choice(["seq_", "etr_", "bfi_", "con_", "plt_"]) + s(8, AL),
            [
                "Benchling entity {v} is the plasmid backbone",
                "registry id {v} duplicated by the sync bot",
                "link result to {v} in the results table",
            ],
        ),
        (
            "benchling_app_id",
            lambda: "app_" + s(16, AL),
            [
                "Benchling App id {v} (not secret, shown in the app settings page)",
                "app definition {v} installed in tenant",
                "webhook events for {v} are delayed",
            ],
        ),
        (
            "redcap_record_id",
            lambda: f"{r.randint(100, 999)}-{r.randint(1, 999)}",
            [
                "REDCap record {v} missing baseline event",
                "record_id={v}&event=visit_2_arm_1",
                "locked record {v} for the DSMB",
            ],
        ),
        (
            "instrument_serial",
            lambda: r.choice(["M", "NB", "VH", "A"]) + dig(5),
            [
                "NovaSeq serial {v} out for PM",
                "instrument {v} calibration due",
                "SN {v} logs attached to the ticket",
            ],
        ),
        (
            "index_sequence",
            lambda: s(8, "ACGT") + "+" + s(8, "ACGT"),
            [
                "i7+i5 for sample 12: {v}",
                "index pair {v} collides at 1 mismatch",
                "Index,Index2 -> {v}",
            ],
        ),
        (
            "umi_sequence",
            lambda: s(12, "ACGTN"),
            [
                "UMI {v} is overrepresented, likely PCR dup",
                "RX:Z:{v}",
                "most common UMI: {v}",
            ],
        ),
        (
            "password_policy_talk",
            lambda: "",
            [
                "instrument PCs: local admin passwords must be rotated every 90 days via LAPS, no shared passwords",
                "reminder: never paste the REDCap token into the notebook, use keyring",
                "the pepper must be at least 32 bytes and stored separately from the salted hashes",
            ],
        ),
        (
            "token_last4",
            lambda: "",
            [
                "rotated the BaseSpace token (old one ended [[...a91c]], revoked in the console)",
                "Epic support asked which secret: the one with fingerprint ending [[7F2D]]",
                "dx token id (not the token) is [[token-Gz1]]",
            ],
        ),
        (
            "aws_access_key_id_only",
            lambda: "AKIA" + s(16, UP),
            [
                "seq-upload IAM key id {v} (secret in Secrets Manager, not here)",
                "CloudTrail shows {v} uploading at 03:00 -- that's the NextSeq",
                "deactivated access key id {v}",
            ],
        ),
        (
            "s3_uri",
            lambda: f"s3://seqcore-raw/{run_id()}/",
            [
                "raw BCLs at {v}",
                "lifecycle rule moves {v} to Glacier after 30d",
                "aws s3 sync {v} ./bcl",
            ],
        ),
        (
            "kms_key_arn",
            lambda: f"arn:aws:kms:us-east-1:{dig(12)}:key/{uuid()}",
            [
                "PHI bucket encrypted with {v}",
                "KMS key {v} (ARN only, no key material)",
                "grant decrypt on {v} to the pipeline role",
            ],
        ),
        (
            "azure_tenant_id",
            uuid,
            [
                "Azure tenant id for the FHIR service: {v}",
                "AZURE_TENANT_ID={v}",
                "app registration lives in tenant {v}",
            ],
        ),
        (
            "keycloak_realm_public_key",
            lambda: "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA" + s(300, B64) + "IDAQAB",
            [
                "keycloak realm 'clinical' public_key: {v}",
                "realm public key (for token validation, public): {v}",
                "paste public key {v} into the HAPI interceptor config",
            ],
        ),
        (
            "pkce_code_challenge",
            lambda: s(43, URL),
            [
                "SMART launch: code_challenge={v}&code_challenge_method=S256",
                "PKCE challenge from the log {v} (hash of the verifier)",
                "state + code_challenge {v} look fine in the auth request",
            ],
        ),
        (
            "s3_etag_checksum",
            lambda: hx(32) + "-" + str(r.randint(2, 80)),
            [
                "multipart ETag {v} for the CRAM",
                'ETag: "{v}"',
                "upload verified, etag {v}",
            ],
        ),
        (
            "npi_clia",
            lambda: f"{r.randint(10, 99)}D{dig(7)}",
            [
                "CLIA number {v} on the report header",
                "lab CLIA id: {v}",
                "performing lab CLIA {v} (public)",
            ],
        ),
        (
            "reagent_lot",
            lambda: f"LOT{s(2, UP)}{dig(6)}",
            [
                "reagent lot {v} failed QC",
                "switch to kit lot {v} next week",
                "{v} expires 2027-02",
            ],
        ),
        (
            "hgvs_variant",
            lambda: (
                f"NM_{dig(6)}.{r.randint(1, 5)}:c.{r.randint(10, 4000)}{r.choice('ACGT')}>{r.choice('ACGT')}"
            ),
            [
                "reported variant {v} (VUS)",
                "Sanger confirmed {v}",
                "classification of {v} changed to likely benign",
            ],
        ),
        (
            "irb_protocol",
            lambda: f"IRB-{r.randint(2019, 2026)}-{dig(4)}",
            [
                "protocol {v} approved the data sharing",
                "REDCap project is under {v}",
                "consent version for {v}",
            ],
        ),
        (
            "mirth_channel_id",
            uuid,
            [
                "Mirth channel ORU_OUT id {v}",
                "channelId={v} paused by alert",
                "exported channel {v}.xml",
            ],
        ),
        (
            "word_sense_key",
            lambda: "",
            [
                "sample_id is the primary key in the LIMS SAMPLE table, accession is a unique key",
                "answer key for the proficiency testing survey arrived from CAP",
                "the key finding: freezer F3 drifted to -62C over the weekend",
            ],
        ),
        (
            "word_sense_token",
            lambda: "",
            [
                "the tokenizer splits the HL7 segments on \\r, tokens are fields",
                "rate limit on the FHIR API: token bucket of 50 req/s",
                "the Epic SSO token lifetime is 15 min per their docs",
            ],
        ),
        (
            "word_sense_password",
            lambda: "",
            [
                "results PDFs to the partner are password-protected, password sent by separate phone call",
                "Mirth login page says 'invalid password' when LDAP is down, not an actual bad password",
                "password reset for LIMS users goes through the service desk form",
            ],
        ),
        (
            "drs_uri",
            lambda: "drs://drs.anv0:" + s(40, string.ascii_lowercase + string.digits),
            [
                "AnVIL data object {v}",
                "resolve {v} with terra-notebook-utils",
                "the manifest lists {v}",
            ],
        ),
        (
            "tower_workspace_id",
            lambda: dig(15),
            [
                "Seqera workspace id {v}",
                "TOWER_WORKSPACE_ID={v}",
                "launch in workspace {v} not personal",
            ],
        ),
        (
            "compose_required_var",
            lambda: "",
            [
                "POSTGRES_PASSWORD: [[${{POSTGRES_PASSWORD:?set in .env}}]]",
                "ORTHANC__REGISTERED_USERS: [[${{ORTHANC_USERS_JSON}}]]",
                "environment:\n  - REDCAP_TOKEN_FILE=[[/run/secrets/redcap_token]]",
            ],
        ),
        (
            "orcid_doi",
            lambda: f"0000-000{r.randint(1, 3)}-{dig(4)}-{dig(3)}X",
            [
                "author ORCID {v}",
                "ORCID iD: {v}",
                "link data deposit to ORCID {v}",
            ],
        ),
        (
            "base64_non_secret",
            lambda: b64e(
                json.dumps({"resourceType": "Bundle", "type": "batch", "id": hx(8)}).encode()
            ),
            [
                "Binary.data for the test bundle: {v}",
                "base64 payload from the log (just a FHIR bundle header): {v}",
                "decoded {v} -> resourceType Bundle, nothing sensitive",
            ],
        ),
        (
            "salt_version_config",
            lambda: "",
            [
                "deid config: salt_version=3, algorithm=HMAC-SHA256, salt_source=[[vault:deid/salt]]",
                "pepper_id: [[prod-2026-11]] (identifier of the pepper, not the pepper)",
                "hash_ids: true\nsalt: [[!vault deid/salt#value]]",
            ],
        ),
        (
            "keystore_alias",
            lambda: "",
            [
                "keystore aliases: partnerlab-client, statelab-ca, mirth-server",
                "keytool -list -keystore hl7.jks shows 3 entries; passwords kept in the interface vault",
                "cert alias '[[labfhir-2026]]' expires 2027-01-15",
            ],
        ),
        (
            "cerner_public_tenant",
            uuid,
            [
                "Cerner open sandbox tenant id {v} (public, anonymous read)",
                "sandbox FHIR base: https://fhir-open.cerner.com/r4/{v}/",
                "tenant {v} is the public test tenant, no creds needed",
            ],
        ),
    ]

    rows = []

    def fill(t, v):
        extra = {
            "v": v,
            "n": s(342, URL),
            "cid": s(16, AL),
            "kid": s(16, UP),
            "sid": hx(32),
            "alias": uuid(),
        }
        return t.format(**extra)

    for label, group in (("secret", S), ("benign", B)):
        for kind, gen, temps in group:
            for t in temps:
                v = gen()
                text = fill(t, v)
                if "[[" in text:
                    v = text.split("[[", 1)[1].split("]]", 1)[0]
                    text = text.replace("[[", "", 1).replace("]]", "", 1)
                rows.append({"label": label, "kind": kind, "text": text, "value": v})
    for row in rows:
        assert row["value"] in row["text"], row
    texts = [row["text"] for row in rows]
    assert len(texts) == len(set(texts))
    return rows


def main() -> None:
    rows = corpus()
    out = "\n".join(json.dumps(row) for row in rows) + "\n"
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w") as f:
            f.write(out)
    else:
        sys.stdout.write(out)


if __name__ == "__main__":
    main()

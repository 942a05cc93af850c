"""Blind secret-detection corpus 41: research group and research-computing memories.

Brief: a university research group's and its research-computing staff's memories: HPC
clusters (Slurm, SSH to login nodes, Globus, iRODS, object stores), Jupyter and RStudio
servers, experiment trackers and model hubs, lab instrument PCs, data-sharing portals and
repositories (Zenodo, OSF, Dataverse, Figshare), cloud research credits, survey tools,
REDCap-like study databases, grant-portal logins, shared lab accounts.

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier
corpus.

Run: python blind_secrets_41.py [out.jsonl]   (JSONL to the path, or stdout without one)

Every value is generated from random.Random(SEED) inside corpus(); none is a real credential.

Secret kinds (95):
    age_secret_key, anthropic_api_key, aws_secret_access_key, aws_session_token,
    azure_sas_token, azure_storage_key, bmc_ipmi_password, box_developer_token,
    ceph_rgw_secret, cloudflare_api_token, comet_api_key, databricks_token,
    dataverse_api_token, digitalocean_token, django_secret_key, dropbox_token,
    figshare_token, flask_secret_key, gcp_service_account_key, github_pat_classic,
    github_pat_fine_grained, gitlab_pat, globus_access_token, globus_client_secret,
    globus_refresh_token, google_api_key_unrestricted, google_oauth_client_secret,
    grafana_sa_token, grant_portal_password, harbor_robot_token, hf_token_in_url,
    hpc_password_yaml, huggingface_token, instrument_pc_password, instrument_pc_password_de,
    irods_password, irods_scrambled_pw_file, jupyter_server_token,
    jupyter_token_in_url_remote, jupyterhub_api_token, kaggle_key, kerberos_password,
    keycloak_client_secret, labarchives_password, ldap_bind_password, login_node_password,
    minio_secret_key, mlflow_password, munge_key, mysql_cnf_password, neptune_api_token,
    netrc_password, nextcloud_app_password, ngrok_authtoken, npm_token, omero_password,
    openai_api_key, openstack_app_credential, orcid_client_secret, osf_token,
    pgp_private_key, postgres_uri_password, prolific_token, pypi_token, qualtrics_api_token,
    rclone_obscured_pass, redcap_api_token, redcap_db_password, redcap_token_lowercase_env,
    rstudio_password, s3cfg_secret, sendgrid_key, session_cookie, sftp_password,
    shared_lab_account_password, slack_bot_token, slack_webhook, slurmdbd_storage_pass,
    slurmrestd_jwt, ssh_key_passphrase, ssh_private_key_openssh, ssh_private_key_rsa,
    sudo_password, surveymonkey_token, sylabs_library_token, tailscale_auth_key, totp_seed,
    twilio_auth_token, vnc_password, vpn_psk, wandb_api_key, wandb_netrc, wifi_psk,
    xnat_password, zenodo_token

Benign kinds (142):
    age_public_key, api_docs_key_name, api_rate_limit_talk, aws_access_key_id_only,
    aws_account_id, aws_docs_example, aws_docs_example_id, azure_client_id_only,
    azure_subscription_id, base64_nonsecret, cloud_credit_grant_id, cluster_hostname,
    conda_lock_hash, container_digest, crc32_checksum, cron_schedule, dataset_manifest,
    dataset_sha256, dataverse_pid, dna_barcode, docker_image_tag, doi, elapsed_hash_bench,
    env_var_reference, era_commons_username_only, example_jwt_placeholder,
    example_password_in_docs, example_uuid_docs, fake_fixture_aws, fake_fixture_token,
    figshare_article_id, figure_key_sense, flowcell_id, gcp_billing_account, geo_accession,
    git_commit_sha, git_lfs_oid, git_ssh_url, globus_client_id, globus_collection_id,
    globus_identity_id, globus_task_id, gpg_key_id, gpu_uuid, grant_number,
    grant_portal_ids, hash_of_dataset_commit_dvc, hex_color, hf_dataset_commit,
    hf_model_revision, hmac_pseudonym, iRODS_path, iam_role_arn, instrument_serial,
    instrument_software_license_id, ip_address, jupyter_kernel_id, jupyter_password_hash,
    jupyter_token_disabled, jwt_public_jwks, k8s_secret_ref, kerberos_principal,
    known_hosts_line, license_server, mac_address, machine_id, mapbox_public_token,
    masked_last4, md5_checksum, mlflow_experiment_id, mlflow_run_id, munge_key_path_only,
    music_key_sense, nextcloud_share_public, nlp_token_sense, nonce_log,
    oauth_client_id_google, object_store_bucket_name, onepassword_reference,
    openstack_app_cred_id_only, orcid, orcid_client_id, orcid_putcode, osf_guid,
    password_location_note, password_manager_ref, password_policy_talk, pem_public_key,
    pgp_fingerprint, pgp_public_key, physical_key_sense, pip_hash, placeholder_token,
    pmid_pmcid, primary_key_sense, qualtrics_datacenter, qualtrics_response_id,
    qualtrics_survey_id, random_seed, recaptcha_site_key, redacted_token, redcap_record_id,
    redcap_token_placeholder, request_id, revoked_token, revoked_token_osf, ror_id,
    rotation_log, s3_bucket_arn, s3_object_url, secret_santa, secret_word_other_sense,
    sha1_short, short_url_hash, slurm_account_qos, slurm_job_id, slurm_jwt_talk,
    slurm_reservation, sra_accession, ssh_config_block, ssh_host_fingerprint,
    ssh_passphrase_talk, ssh_public_key, ssh_public_key_rsa, sshfp_record, tls_fingerprint,
    token_economy_sense, token_expiry_note, tokenizer_vocab_entry, ulid_sample_id,
    uuid_participant, uuid_redcap_survey_hash, vault_path_jupyter, vault_reference,
    wandb_run_id, wandb_sweep_id, wireguard_public_key, x509_certificate,
    zenodo_community_slug, zenodo_concept_recid, zenodo_file_checksum, zenodo_sandbox_dummy
"""

# ruff: noqa: E501

from __future__ import annotations

import base64
import json
import random
import string
import sys
import uuid

SEED = 4141

ALNUM = string.ascii_letters + string.digits
LOWER_ALNUM = string.ascii_lowercase + string.digits
HEX = "0123456789abcdef"
B64 = string.ascii_letters + string.digits + "+/"
B64URL = string.ascii_letters + string.digits + "-_"
B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"


def corpus() -> list[dict]:
    rng = random.Random(SEED)

    def s(alpha: str, n: int) -> str:
        return "".join(rng.choice(alpha) for _ in range(n))

    def hx(n: int) -> str:
        return s(HEX, n)

    def uid() -> str:
        return str(uuid.UUID(int=rng.getrandbits(128), version=4))

    def b64(nbytes: int) -> str:
        return base64.b64encode(bytes(rng.getrandbits(8) for _ in range(nbytes))).decode()

    def b64u(nbytes: int) -> str:
        raw = bytes(rng.getrandbits(8) for _ in range(nbytes))
        return base64.urlsafe_b64encode(raw).decode().rstrip("=")

    def pw() -> str:
        words = ["Photon", "Cryo", "Mito", "Kelp", "Zebra", "Lumen", "Quasar", "Tundra", "Fjord"]
        return (
            rng.choice(words)
            + s(string.digits, rng.randint(2, 4))
            + rng.choice("!#$%&*?@")
            + s(string.ascii_letters, rng.randint(3, 5))
        )

    def pem(label: str, nbytes: int, width: int = 64) -> str:
        body = b64(nbytes)
        lines = [body[i : i + width] for i in range(0, len(body), width)]
        return f"-----BEGIN {label}-----\n" + "\n".join(lines) + f"\n-----END {label}-----"

    def jwt(claims: dict) -> str:
        h = base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT"}').decode().rstrip("=")
        p = base64.urlsafe_b64encode(json.dumps(claims).encode()).decode().rstrip("=")
        return f"{h}.{p}.{b64u(32)}"

    def akid() -> str:
        return "AKIA" + s(string.ascii_uppercase + "234567", 16)

    rows: list[dict] = []

    def sec(kind: str, gen, texts: list[str]) -> None:
        for t in texts:
            v = gen()
            rows.append({"label": "secret", "kind": kind, "text": t.replace("{v}", v), "value": v})

    def ben(kind: str, gen, texts: list[str]) -> None:
        for t in texts:
            v = gen() if gen else ""
            rows.append({"label": "benign", "kind": kind, "text": t.replace("{v}", v), "value": v})

    # ------------------------------------------------------------------ secrets
    sec(
        "login_node_password",
        pw,
        [
            "ssh to login2.hpc.uni.edu as svc-labgen, password {v} (shared lab service account)",
            "HPC login for the rotation students:\n  host: talon-login.rc.example.edu\n  user: mlab_rot\n  pass: {v}",
            "note to self: cluster pw changed again -> {v} ; the old one stopped working after the audit",
        ],
    )
    sec(
        "ssh_private_key_openssh",
        lambda: pem("OPENSSH PRIVATE KEY", 200, 70),
        [
            "deploy key for the data-mover node (keep!):\n{v}",
            "Saved the key I use to hop from the bastion to gpu-a07:\n{v}\nchmod 600 it before use",
        ],
    )
    sec(
        "ssh_private_key_rsa",
        lambda: pem("RSA PRIVATE KEY", 1190).replace("\n", "\\n"),
        [
            'KRIOS_PUSH_KEY="{v}"  # id_rsa the Krios PC pushes frames with, from the .env on the PC',
            'ansible vault decrypted (seqcore rsync key, still authorized on archive01): rsync_private_key: "{v}"',
        ],
    )
    sec(
        "globus_refresh_token",
        lambda: "Ag" + s(ALNUM, 86),
        [
            "globus-cli refresh token for the transfer automation: {v}",
            "Globus Timer job uses refresh_token={v} (user scope, offline_access)",
            "If the nightly sync breaks, re-export GLOBUS_REFRESH_TOKEN='{v}' on the mover VM",
        ],
    )
    sec(
        "globus_client_secret",
        lambda: b64(32),
        [
            "Globus confidential app 'lab-pipeline' client secret: {v}",
            "GLOBUS_CLIENT_SECRET={v}  # service identity for the portal's guest collection",
        ],
    )
    sec(
        "irods_password",
        pw,
        [
            "iinit for zone tempZone: user labdata, password {v}",
            "iRODS (irods.rc.uni.edu:1247) creds for the imaging group -> labimg / {v}",
            "irods_environment.json is set; the iinit password we share is {v}",
        ],
    )
    sec(
        "aws_secret_access_key",
        lambda: s(ALNUM + "+/", 40),
        [
            "[research-credits]\naws_access_key_id = " + akid() + "\naws_secret_access_key = {v}",
            "AWS Cloud Credits for Research account: secret key {v} (id is in the README)",
            "export AWS_SECRET_ACCESS_KEY={v}\nexport AWS_DEFAULT_REGION=us-east-2",
        ],
    )
    sec(
        "aws_session_token",
        lambda: "IQoJb3JpZ2luX2Vj" + s(ALNUM + "+/", 300),
        [
            "temporary creds from the SSO for the genomics bucket, good 12h:\nAWS_SESSION_TOKEN={v}",
            "aws_session_token = {v}",
        ],
    )
    sec(
        "minio_secret_key",
        lambda: s(ALNUM, 40),
        [
            "MinIO on storage01: access key labrw, secret key {v}",
            "mc alias set labminio https://s3.lab.internal labrw {v}",
        ],
    )
    sec(
        "ceph_rgw_secret",
        lambda: s(ALNUM, 40),
        [
            "Ceph RGW user 'cryoem' -> access_key 8QZ1K0B7, secret_key {v}",
            "radosgw creds for the object store (ask Dana before sharing): secret={v}",
        ],
    )
    sec(
        "azure_storage_key",
        lambda: b64(64),
        [
            "DefaultEndpointsProtocol=https;AccountName=labarchive;AccountKey={v};EndpointSuffix=core.windows.net",
            "Azure storage key1 for labarchive (credits grant): {v}",
        ],
    )
    sec(
        "azure_sas_token",
        lambda: (
            "sv=2022-11-02&ss=b&srt=co&sp=rwdlac&se=2027-06-30T00:00:00Z&st=2026-12-01&spr=https&sig="
            + s(ALNUM + "%", 44)
            + "%3D"
        ),
        [
            "SAS for collaborators to upload raw reads (expires June): ?{v}",
            "azcopy copy ./run42 'https://labarchive.blob.core.windows.net/raw?{v}' --recursive",
        ],
    )
    sec(
        "gcp_service_account_key",
        lambda: pem("PRIVATE KEY", 600).replace("\n", "\\n"),
        [
            '{"type": "service_account", "project_id": "lab-credits-2026", "private_key_id": "'
            + hx(40)
            + '", "private_key": "{v}", "client_email": "pipeline@lab-credits-2026.iam.gserviceaccount.com"}',
        ],
    )
    sec(
        "jupyterhub_api_token",
        lambda: hx(32),
        [
            "JupyterHub admin API token (for culling idle servers): {v}",
            "curl -H 'Authorization: token {v}' https://jhub.rc.uni.edu/hub/api/users",
            "JUPYTERHUB_API_TOKEN={v} in the cull service config",
        ],
    )
    sec(
        "jupyter_server_token",
        lambda: hx(48),
        [
            "notebook on gpu-b12 is up: http://127.0.0.1:8888/lab?token={v} (tunnel via login node)",
            "jupyter lab token for the shared analysis node = {v}",
        ],
    )
    sec(
        "rstudio_password",
        pw,
        [
            "RStudio Server at rstudio.lab.uni.edu: user 'stats', password {v}",
            "the biostats RStudio login is stats / {v} - don't change it, the TAs use it",
        ],
    )
    sec(
        "wandb_api_key",
        lambda: hx(40),
        [
            "wandb login {v}",
            "W&B key for the team entity 'nlp-lab': {v}",
            "WANDB_API_KEY={v}  # put in sbatch script before python train.py",
        ],
    )
    sec(
        "mlflow_password",
        pw,
        [
            "MLflow tracking server basic auth: MLFLOW_TRACKING_USERNAME=lab, MLFLOW_TRACKING_PASSWORD={v}",
            "mlflow ui behind nginx, htaccess user 'reviewer' pass {v}",
        ],
    )
    sec(
        "huggingface_token",
        lambda: "hf_" + s(ALNUM, 34),
        [
            "HF write token for pushing checkpoints to the lab org: {v}",
            "huggingface-cli login --token {v}",
            "HUGGING_FACE_HUB_TOKEN={v} (gated Llama access is on this account)",
        ],
    )
    sec(
        "comet_api_key",
        lambda: s(ALNUM, 25),
        [
            "Comet ML api_key={v} workspace=visionlab",
            "[comet]\napi_key = {v}\nproject_name = segmentation",
        ],
    )
    sec(
        "neptune_api_token",
        lambda: base64.b64encode(
            json.dumps(
                {
                    "api_address": "https://app.neptune.ai",
                    "api_url": "https://app.neptune.ai",
                    "api_key": uid(),
                }
            ).encode()
        ).decode(),
        [
            'NEPTUNE_API_TOKEN="{v}"',
            "neptune token for the RL group: {v}",
        ],
    )
    sec(
        "instrument_pc_password",
        pw,
        [
            "Confocal PC (Zeiss LSM, room B214) local admin: .\\Administrator / {v}",
            "Mass spec workstation login: labuser pw {v} -- Xcalibur needs admin to export",
            "Plate reader PC password is {v}; it's on the sticky note too but that one is outdated",
        ],
    )
    sec(
        "zenodo_token",
        lambda: s(ALNUM, 60),
        [
            "Zenodo personal access token (deposit:write, deposit:actions): {v}",
            "ZENODO_TOKEN={v} used by the GitHub release -> Zenodo upload script",
            "sandbox.zenodo.org is different; the production zenodo token is {v}",
        ],
    )
    sec(
        "osf_token",
        lambda: s(ALNUM, 70),
        [
            "OSF PAT for osfclient (osf.full_write): {v}",
            "osf -p 7xk2q upload data.csv  (OSF_TOKEN={v})",
        ],
    )
    sec(
        "dataverse_api_token",
        uid,
        [
            "Dataverse API token for Harvard DV (expires 2027-03): {v}",
            'curl -H "X-Dataverse-key:{v}" -X POST https://dataverse.harvard.edu/api/dataverses/lab/datasets',
            "API_TOKEN={v} for pyDataverse uploads",
        ],
    )
    sec(
        "figshare_token",
        lambda: hx(128),
        [
            "Figshare personal token for the institutional repo: {v}",
            "Authorization: token {v}",
        ],
    )
    sec(
        "qualtrics_api_token",
        lambda: s(ALNUM, 40),
        [
            "Qualtrics API token (brand uni, datacenter iad1): {v}",
            "X-API-TOKEN: {v}",
        ],
    )
    sec(
        "surveymonkey_token",
        lambda: s(ALNUM + "-.", 64),
        [
            "SurveyMonkey app bearer token for pulling responses: {v}",
            "SM_ACCESS_TOKEN={v}",
        ],
    )
    sec(
        "redcap_api_token",
        lambda: s("0123456789ABCDEF", 32),
        [
            "REDCap API token for project 'COHORT-B' (PID 4412): {v}",
            "redcap = Project('https://redcap.med.uni.edu/api/', '{v}')",
            "Export script token (read-only records): {v}",
        ],
    )
    sec(
        "redcap_db_password",
        pw,
        [
            "REDCap backend MySQL: $password = '{v}'; in database.php",
            "redcap_db user redcap_app password {v} on dbhost-03",
        ],
    )
    sec(
        "grant_portal_password",
        pw,
        [
            "eRA Commons login for the PI (for just-in-time submission): prof_lindqvist / {v}",
            "Research.gov account: grants@lab.uni.edu, password {v}",
            "Grants.gov AOR password (Sarah said ok to store here): {v}",
        ],
    )
    sec(
        "shared_lab_account_password",
        pw,
        [
            "Shared lab Gmail (lab.neuro.uni@gmail.com) password: {v}",
            "lab Dropbox login is the lab email + {v}",
            "Shared Benchling account: benchling@lab.uni.edu pw {v}",
        ],
    )
    sec(
        "github_pat_classic",
        lambda: "ghp_" + s(ALNUM, 36),
        [
            "GH token for the lab org CI: {v}",
            "git clone https://{v}@github.com/lab-org/private-pipeline.git",
        ],
    )
    sec(
        "github_pat_fine_grained",
        lambda: "github_pat_" + s(ALNUM, 22) + "_" + s(ALNUM, 59),
        [
            "fine-grained PAT (contents:write on lab-org/paper-figs): {v}",
            "GITHUB_TOKEN={v}",
        ],
    )
    sec(
        "gitlab_pat",
        lambda: "glpat-" + s(ALNUM + "-_", 20),
        [
            "GitLab (git.rc.uni.edu) token for the runner registration script: {v}",
            "PRIVATE-TOKEN: {v}",
        ],
    )
    sec(
        "openai_api_key",
        lambda: "sk-proj-" + s(ALNUM + "-_", 120),
        [
            "OpenAI key billed to the grant: {v}",
            "OPENAI_API_KEY={v} for the annotation experiments",
        ],
    )
    sec(
        "anthropic_api_key",
        lambda: "sk-ant-api03-" + s(ALNUM + "-_", 93) + "AA",
        [
            "Claude key for the qualitative coding study: {v}",
            "ANTHROPIC_API_KEY={v}",
        ],
    )
    sec(
        "slack_webhook",
        lambda: (
            "https://hooks.slack.com/services/T"
            + s(string.ascii_uppercase + string.digits, 10)
            + "/B"
            + s(string.ascii_uppercase + string.digits, 10)
            + "/"
            + s(ALNUM, 24)
        ),
        [
            "Slurm job-end notifications go to #cluster-alerts via {v}",
            "SLACK_WEBHOOK_URL={v}",
        ],
    )
    sec(
        "slack_bot_token",
        lambda: "xoxb-" + s(string.digits, 12) + "-" + s(string.digits, 13) + "-" + s(ALNUM, 24),
        [
            "labbot (posts instrument booking reminders) bot token: {v}",
            "SLACK_BOT_TOKEN={v}",
        ],
    )
    sec(
        "postgres_uri_password",
        lambda: pw(),
        [
            "postgresql://lims_app:{v}@lims-db.lab.internal:5432/lims",
            "DATABASE_URL=postgres://portal:{v}@10.20.4.11/dataportal",
        ],
    )
    sec(
        "mysql_cnf_password",
        pw,
        [
            "[client]\nuser=xnat\npassword={v}\nhost=xnat-db",
        ],
    )
    sec(
        "munge_key",
        lambda: b64(128),
        [
            "base64 of /etc/munge/munge.key from the head node (for rebuilding nodes): {v}",
            "munge.key (b64) - same on all compute nodes:\n{v}",
        ],
    )
    sec(
        "slurmdbd_storage_pass",
        pw,
        [
            "slurmdbd.conf: StorageUser=slurm StoragePass={v}",
            "accounting DB password (slurmdbd -> mariadb) is {v}",
        ],
    )
    sec(
        "ldap_bind_password",
        pw,
        [
            "LDAP bind for the cluster sssd: cn=svc-sssd,ou=services,dc=rc,dc=uni,dc=edu / {v}",
            "ldap_default_authtok = {v}",
        ],
    )
    sec(
        "bmc_ipmi_password",
        pw,
        [
            "IPMI on the gpu nodes: ADMIN / {v} (all 24 nodes, yes I know)",
            "ipmitool -I lanplus -H gpu-a07-bmc -U root -P {v} chassis power cycle",
        ],
    )
    sec(
        "vnc_password",
        lambda: s(ALNUM, 8),
        [
            "VNC to the microscope PC: 10.4.2.19:5901, vnc password {v}",
            "TurboVNC session on viz01, password {v}",
        ],
    )
    sec(
        "sudo_password",
        pw,
        [
            "sudo on the lab workstation (ubuntu-ws3): {v}",
            "root pw for the old analysis box under the bench: {v}",
        ],
    )
    sec(
        "wifi_psk",
        lambda: s(ALNUM, 16),
        [
            "Instrument VLAN wifi (SSID LAB-INSTR): WPA2 passphrase {v}",
            "wpa_passphrase LAB-INSTR {v} > /etc/wpa_supplicant.conf",
        ],
    )
    sec(
        "totp_seed",
        lambda: s(B32, 32),
        [
            "Duo/TOTP seed for the shared HPC service account, add to authenticator: {v}",
            "otpauth://totp/RC-VPN:labsvc?secret={v}&issuer=RC-VPN",
        ],
    )
    sec(
        "vpn_psk",
        lambda: s(ALNUM, 24),
        [
            "site-to-site IPsec PSK between the field station and campus: {v}",
            'strongswan: : PSK "{v}"',
        ],
    )
    sec(
        "harbor_robot_token",
        lambda: s(ALNUM, 32),
        [
            "Harbor robot account robot$lab+ci password {v} for pushing containers",
            "docker login harbor.rc.uni.edu -u 'robot$lab+ci' -p {v}",
        ],
    )
    sec(
        "sylabs_library_token",
        lambda: jwt({"sub": "labbuilder", "iss": "sylabs", "exp": 1830000000}),
        [
            "Sylabs cloud library token (apptainer remote login): {v}",
        ],
    )
    sec(
        "slurmrestd_jwt",
        lambda: jwt({"sun": "svc-portal", "exp": 1829999999, "iat": 1796000000}),
        [
            "SLURM_JWT={v}",
            "slurmrestd token for the web portal: X-SLURM-USER-TOKEN: {v}",
        ],
    )
    sec(
        "django_secret_key",
        lambda: s(string.ascii_lowercase + string.digits + "!@#%^&*(-_=+)", 50),
        [
            "data portal settings.py: SECRET_KEY = '{v}'",
            "DJANGO_SECRET_KEY={v} (prod portal, not the dev one)",
        ],
    )
    sec(
        "flask_secret_key",
        lambda: hx(64),
        [
            "app.config['SECRET_KEY'] = '{v}'  # booking app session signing",
        ],
    )
    sec(
        "google_oauth_client_secret",
        lambda: "GOCSPX-" + s(ALNUM + "-_", 28),
        [
            "Google OAuth client for the survey dashboard: client_secret {v}",
            "GOOGLE_CLIENT_SECRET={v}",
        ],
    )
    sec(
        "pypi_token",
        lambda: "pypi-AgEIcHlwaS5vcmc" + s(B64URL, 140),
        [
            "PyPI upload token for the lab's analysis package: {v}",
            "[pypi]\n  username = __token__\n  password = {v}",
        ],
    )
    sec(
        "npm_token",
        lambda: "npm_" + s(ALNUM, 36),
        [
            "//registry.npmjs.org/:_authToken={v}",
        ],
    )
    sec(
        "sendgrid_key",
        lambda: "SG." + s(B64URL, 22) + "." + s(B64URL, 43),
        [
            "participant reminder emails go through SendGrid key {v}",
            "SENDGRID_API_KEY={v}",
        ],
    )
    sec(
        "twilio_auth_token",
        lambda: hx(32),
        [
            "Twilio (SMS EMA prompts) SID AC" + hx(32) + " auth token {v}",
            "TWILIO_AUTH_TOKEN={v}",
        ],
    )
    sec(
        "age_secret_key",
        lambda: "AGE-SECRET-KEY-1" + s("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L".upper(), 58),
        [
            "age identity that decrypts the participant linkage file: {v}",
            "# created: 2026-02-11\n# public key: age1"
            + s("qpzry9x8gf2tvdw0s3jn54khce6mua7l", 58)
            + "\n{v}",
        ],
    )
    sec(
        "pgp_private_key",
        lambda: pem("PGP PRIVATE KEY BLOCK", 220),
        [
            "lab data-officer signing key (export):\n{v}",
        ],
    )
    sec(
        "rclone_obscured_pass",
        lambda: s(B64URL, 44),
        [
            "[labsftp]\ntype = sftp\nhost = sftp.partner.org\nuser = ulab\npass = {v}",
        ],
    )
    sec(
        "s3cfg_secret",
        lambda: s(ALNUM + "+/", 40),
        [
            "~/.s3cfg on dtn01:\naccess_key = " + akid() + "\nsecret_key = {v}",
        ],
    )
    sec(
        "netrc_password",
        pw,
        [
            "machine urs.earthdata.nasa.gov login labremote password {v}",
            "~/.netrc for the ESGF download node:\nmachine esgf-node.llnl.gov\n  login glab\n  password {v}",
        ],
    )
    sec(
        "kaggle_key",
        lambda: hx(32),
        [
            '~/.kaggle/kaggle.json = {"username":"labkaggle","key":"{v}"}',
        ],
    )
    sec(
        "orcid_client_secret",
        uid,
        [
            "ORCID member API: client_id APP-"
            + s("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ", 16)
            + ", client_secret {v}",
        ],
    )
    sec(
        "keycloak_client_secret",
        lambda: s(ALNUM, 32),
        [
            "Keycloak realm 'research', client 'jhub' secret: {v}",
            "OAUTH_CLIENT_SECRET={v}  # jupyterhub GenericOAuthenticator",
        ],
    )
    sec(
        "openstack_app_credential",
        lambda: s(B64URL, 86),
        [
            "clouds.yaml (Jetstream2 allocation):\n  auth_type: v3applicationcredential\n  application_credential_id: "
            + hx(32)
            + "\n  application_credential_secret: {v}",
            "OS_APPLICATION_CREDENTIAL_SECRET={v}",
        ],
    )
    sec(
        "nextcloud_app_password",
        lambda: "-".join(s(ALNUM, 5) for _ in range(5)),
        [
            "Nextcloud app password for rclone (lab share): {v}",
            "WebDAV to cloud.uni.edu with user jlee, app password {v}",
        ],
    )
    sec(
        "sftp_password",
        pw,
        [
            "sequencing core SFTP: sftp ulab_seq@sftp.seqcore.org, password {v}, data deleted after 30d",
            "Partner hospital SFTP credentials for the imaging transfer: ext_uni / {v}",
        ],
    )
    sec(
        "grafana_sa_token",
        lambda: "glsa_" + s(ALNUM, 32) + "_" + hx(8),
        [
            "Grafana service account token for the cluster dashboards: {v}",
        ],
    )
    sec(
        "tailscale_auth_key",
        lambda: "tskey-auth-" + s(ALNUM, 12) + "CNTRL-" + s(ALNUM, 33),
        [
            "reusable tailscale key for the field-station pis: {v}",
        ],
    )
    sec(
        "databricks_token",
        lambda: "dapi" + hx(32),
        [
            "Databricks PAT (workspace from the cloud credits): {v}",
            "DATABRICKS_TOKEN={v}",
        ],
    )
    sec(
        "digitalocean_token",
        lambda: "dop_v1_" + hx(64),
        [
            "DO token for the demo droplets: {v}",
        ],
    )
    sec(
        "prolific_token",
        lambda: s(B64URL, 80),
        [
            "Prolific API token (study launcher): Authorization: Token {v}",
        ],
    )
    sec(
        "dropbox_token",
        lambda: "sl." + s(B64URL, 136),
        [
            "Dropbox short-lived token from the app console, for the transcript sync: {v}",
        ],
    )
    sec(
        "box_developer_token",
        lambda: s(ALNUM, 32),
        [
            "Box developer token (60 min) to bulk-download the interview audio: {v}",
        ],
    )
    sec(
        "xnat_password",
        pw,
        [
            "XNAT (xnat.imaging.uni.edu) admin account: admin / {v}",
        ],
    )
    sec(
        "omero_password",
        pw,
        [
            "OMERO server login for the microscopy facility: omero-root pw {v}",
        ],
    )
    sec(
        "google_api_key_unrestricted",
        lambda: "AIza" + s(ALNUM + "-_", 35),
        [
            "Google Maps/Geocoding server key (unrestricted!) for geocoding participant zips: {v}",
        ],
    )
    sec(
        "cloudflare_api_token",
        lambda: s(ALNUM + "-_", 40),
        [
            "Cloudflare API token (Zone.DNS edit for lab.example.org): {v}",
        ],
    )
    sec(
        "ngrok_authtoken",
        lambda: s(ALNUM, 27) + "_" + s(ALNUM, 21),
        [
            "ngrok config add-authtoken {v}",
        ],
    )
    sec(
        "kerberos_password",
        pw,
        [
            "kinit labsvc@RC.UNI.EDU -> password {v} (for the cron that runs hdfs dfs -put)",
        ],
    )
    sec(
        "session_cookie",
        lambda: s(B64URL, 43),
        [
            "jupyterhub-session-id cookie from my browser for the hub API test: {v}",
            "Cookie: rstudio-session={v} (copied so the script can scrape the session)",
        ],
    )

    # ------------------------------------------------------------------ benign
    ben(
        "ssh_public_key",
        lambda: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAA" + s(B64, 43) + " jlee@ws3",
        [
            "added my pubkey to ~/.ssh/authorized_keys on the login node: {v}",
            "new student's public key (safe to paste): {v}",
            "authorized_keys line for the Krios PC: {v}",
        ],
    )
    ben(
        "ssh_host_fingerprint",
        lambda: "SHA256:" + s(B64, 43),
        [
            "login2 ED25519 host key fingerprint is {v} - verify before typing yes",
            "the host key for dtn01 changed after reinstall; new fingerprint {v}",
        ],
    )
    ben(
        "globus_collection_id",
        uid,
        [
            "Globus collection id for 'Lab Project Storage': {v}",
            "globus transfer {v}:/raw/run17 $LAPTOP:/data/ --recursive",
            "guest collection UUID (share with collaborators): {v}",
        ],
    )
    ben(
        "globus_client_id",
        uid,
        [
            "Globus native app client_id (public, no secret needed for native apps): {v}",
        ],
    )
    ben(
        "slurm_job_id",
        lambda: str(rng.randint(1000000, 9999999)),
        [
            "job {v} died with OOM at step 3, rerun with --mem=64G",
            "sacct -j {v} --format=JobID,MaxRSS,Elapsed",
        ],
    )
    ben(
        "git_commit_sha",
        lambda: hx(40),
        [
            "analysis for the paper was run at commit {v}",
            "pin the pipeline to {v} in the methods section",
        ],
    )
    ben(
        "dataset_sha256",
        lambda: hx(64),
        [
            "sha256 of raw_reads_batch3.tar: {v}",
            "checksum file says {v}  cohort_b.parquet",
            "Zenodo upload verified, sha256={v}",
        ],
    )
    ben(
        "md5_checksum",
        lambda: hx(32),
        [
            "md5sum of the FASTQ from the core: {v}  S1_R1.fastq.gz",
            "iRODS reports checksum md5:{v} for the object, matches local",
        ],
    )
    ben(
        "doi",
        lambda: "10.5281/zenodo." + str(rng.randint(1000000, 17999999)),
        [
            "dataset DOI: {v} (cite this version, not the concept DOI)",
            "Zenodo minted {v} for the v1.2 release",
        ],
    )
    ben(
        "osf_guid",
        lambda: s(string.ascii_lowercase + string.digits, 5),
        [
            "OSF project is osf.io/{v}/ - preregistration is under the Registrations tab",
        ],
    )
    ben(
        "dataverse_pid",
        lambda: "doi:10.7910/DVN/" + s(string.ascii_uppercase + string.digits, 6),
        [
            "Dataverse persistentId={v}",
            "replication data: {v}, version 2.0",
        ],
    )
    ben(
        "figshare_article_id",
        lambda: str(rng.randint(10000000, 29999999)),
        [
            "figshare article id {v} holds the supplementary movies",
        ],
    )
    ben(
        "mlflow_run_id",
        lambda: hx(32),
        [
            "best MLflow run so far: run_id {v} (val_auc 0.913)",
            "mlflow.load_model('runs:/{v}/model')",
            "compare with run {v} which used lr 3e-4",
        ],
    )
    ben(
        "wandb_run_id",
        lambda: s(LOWER_ALNUM, 8),
        [
            "W&B run nlp-lab/ner/{v} is the baseline",
            "resume with wandb.init(id='{v}', resume='must')",
        ],
    )
    ben(
        "hf_model_revision",
        lambda: hx(40),
        [
            "pin the HF model revision to {v} so tokenizer changes don't bite us",
            "from_pretrained('lab-org/cell-bert', revision='{v}')",
        ],
    )
    ben(
        "container_digest",
        lambda: "sha256:" + hx(64),
        [
            "pipeline image harbor.rc.uni.edu/lab/align@{v}",
            "apptainer pulled docker://ghcr.io/lab/qc@{v}",
        ],
    )
    ben(
        "orcid",
        lambda: (
            "0000-000"
            + str(rng.randint(1, 3))
            + "-"
            + str(rng.randint(1000, 9999))
            + "-"
            + str(rng.randint(100, 999))
            + rng.choice("0123456789X")
        ),
        [
            "PI ORCID {v} - add to every deposit",
        ],
    )
    ben(
        "grant_number",
        lambda: "R01GM" + str(rng.randint(100000, 199999)),
        [
            "acknowledge NIH {v} in every paper from the cohort",
            "cost center for cloud spend maps to award {v}",
        ],
    )
    ben(
        "qualtrics_survey_id",
        lambda: "SV_" + s(ALNUM, 15),
        [
            "baseline survey is {v}, follow-up is the copy",
            "distribution link uses survey id {v}",
        ],
    )
    ben(
        "qualtrics_response_id",
        lambda: "R_" + s(ALNUM, 15),
        [
            "participant 0412's response id {v} is a duplicate, drop it",
        ],
    )
    ben(
        "redcap_record_id",
        lambda: str(rng.randint(1000, 9999)) + "-" + str(rng.randint(1, 99)),
        [
            "REDCap record {v} has the wrong visit date, fix in the data quality module",
            "record_id {v} withdrew consent; lock the record, don't delete",
        ],
    )
    ben(
        "aws_access_key_id_only",
        akid,
        [
            "which IAM user is {v}? it shows up in CloudTrail for the credits account (key id only, the secret never left the console)",
            "access key id {v} belongs to the old pipeline user; rotate its secret in IAM",
        ],
    )
    ben(
        "aws_docs_example",
        lambda: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        [
            "the AWS docs example secret is {v} - use it in the tutorial slides, it is not ours",
        ],
    )
    ben(
        "aws_account_id",
        lambda: str(rng.randint(100000000000, 999999999999)),
        [
            "research credits account id {v}, billing alerts at 80%",
        ],
    )
    ben(
        "azure_subscription_id",
        uid,
        [
            "Azure subscription (sponsorship credits) id {v}, expires 2027-08",
            "tenantId {v} for the uni directory",
        ],
    )
    ben(
        "gcp_billing_account",
        lambda: "-".join(s("0123456789ABCDEF", 6) for _ in range(3)),
        [
            "Google Cloud research credits billing account {v}",
        ],
    )
    ben(
        "vault_reference",
        lambda: "secret/data/hpc/" + s(string.ascii_lowercase, 6),
        [
            "the iRODS service password lives in vault at {v}, field 'password'",
            "vault kv get {v}  -> that's where the W&B key is now",
        ],
    )
    ben(
        "onepassword_reference",
        lambda: (
            "op://Lab Shared/"
            + rng.choice(["eRA Commons", "Instrument PCs", "REDCap API"])
            + "/password"
        ),
        [
            "don't paste the password, use {v} with op read",
            "grant portal creds: {v} (ask the PI to share the vault)",
        ],
    )
    ben(
        "env_var_reference",
        lambda: (
            "${" + rng.choice(["WANDB_API_KEY", "HF_TOKEN", "ZENODO_TOKEN", "REDCAP_TOKEN"]) + "}"
        ),
        [
            "sbatch script reads the key from {v}, set it in ~/.bashrc on the login node",
            'curl -H "Authorization: Bearer {v}" ... the real value is never in the repo',
            "the notebook uses os.environ for {v}; nothing is hard-coded",
        ],
    )
    ben(
        "placeholder_token",
        lambda: rng.choice(
            [
                "<YOUR_ZENODO_TOKEN>",
                "YOUR_API_TOKEN_HERE",
                "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
                "hf_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX",
                "changeme",
            ]
        ),
        [
            "template for students: ZENODO_TOKEN={v}",
            "README snippet: huggingface-cli login --token {v}",
            "config.example.yaml has api_key: {v} - copy to config.yaml and fill in",
        ],
    )
    ben(
        "redacted_token",
        lambda: rng.choice(
            [
                "ghp_" + "*" * 36,
                "hf_****" + s(ALNUM, 4),
                "sk-...",
                "[REDACTED]",
                "glpat-••••••••••••••••••••",
            ]
        ),
        [
            "log shows token {v} being rejected with 401",
            "rotated the CI token ({v}) after it appeared in a job log",
            "screenshot in the ticket had {v} - already masked by the tool",
        ],
    )
    ben(
        "masked_last4",
        lambda: s(ALNUM, 4),
        [
            "Dataverse token ending ...{v} is the one that expires in March",
            "W&B shows key ••••{v} under Settings; the full key is only shown once",
        ],
    )
    ben(
        "revoked_token",
        lambda: "ghp_" + s(ALNUM, 36),
        [
            "LEAKED and REVOKED 2026-11-02: {v} was pushed to a public repo; GitHub auto-revoked it, the new one is in the vault",
        ],
    )
    ben(
        "pgp_fingerprint",
        lambda: " ".join(s("0123456789ABCDEF", 4) for _ in range(10)),
        [
            "data officer PGP fingerprint: {v}",
        ],
    )
    ben(
        "pgp_public_key",
        lambda: pem("PGP PUBLIC KEY BLOCK", 200),
        [
            "encrypt transfers to the core with their public key:\n{v}",
        ],
    )
    ben(
        "x509_certificate",
        lambda: pem("CERTIFICATE", 900).replace("\n", "\\n"),
        [
            'InCommon cert for the data portal (public part, for the ops team): tls_cert: "{v}"',
        ],
    )
    ben(
        "tls_fingerprint",
        lambda: ":".join(s("0123456789ABCDEF", 2) for _ in range(32)),
        [
            "new cert on jhub.rc.uni.edu, SHA-256 fingerprint {v}",
        ],
    )
    ben(
        "age_public_key",
        lambda: "age1" + s("qpzry9x8gf2tvdw0s3jn54khce6mua7l", 58),
        [
            "encrypt the linkage file to the data manager: age -r {v} linkage.csv > linkage.csv.age",
            "recipient (public) for the backup: {v}",
        ],
    )
    ben(
        "wireguard_public_key",
        lambda: b64(32),
        [
            "wg peer for the field station, PublicKey = {v}",
            "[Peer]\nPublicKey = {v}\nAllowedIPs = 10.77.0.0/24",
        ],
    )
    ben(
        "kerberos_principal",
        lambda: "labsvc/" + rng.choice(["dtn01", "hdfs02", "gw"]) + ".rc.uni.edu@RC.UNI.EDU",
        [
            "keytab principal is {v}; the keytab itself stays on the host",
        ],
    )
    ben(
        "jupyter_kernel_id",
        uid,
        [
            "kernel {v} keeps dying on gpu-b12; probably the 80GB dataframe",
        ],
    )
    ben(
        "password_policy_talk",
        None,
        [
            "RC password policy: 14+ chars, no reuse of the last 5, rotate the shared lab account when anyone leaves",
            "reminder: never put the instrument PC password in Slack; it's in the lab binder, top drawer",
            "Grants.gov passwords expire every 60 days - set a reminder before the R01 deadline",
        ],
    )
    ben(
        "nlp_token_sense",
        lambda: str(rng.randint(1000, 50000)),
        [
            "tokenizer maps '<pad>' to token id {v}; max tokens per sequence is 512",
            "the model hits the 4096-token limit on long transcripts; token {v} is the EOS",
        ],
    )
    ben(
        "music_key_sense",
        None,
        [
            "stimuli for the auditory study: all melodies in C major, key changes at bar 8",
        ],
    )
    ben(
        "primary_key_sense",
        None,
        [
            "REDCap export: record_id is the primary key, redcap_event_name makes it composite",
            "the participants table's key column is subject_uuid; join on that, not on initials",
        ],
    )
    ben(
        "secret_word_other_sense",
        None,
        [
            "the secret to getting good cryo-EM grids is blotting time; 3.5 s worked today",
        ],
    )
    ben(
        "random_seed",
        lambda: str(rng.randint(1, 2**31)),
        [
            "all bootstrap runs used seed={v}, report in the supplement",
        ],
    )
    ben(
        "instrument_serial",
        lambda: "SN" + s(string.ascii_uppercase + string.digits, 10),
        [
            "Orbitrap serial {v}, service contract renews in May",
        ],
    )
    ben(
        "mac_address",
        lambda: ":".join(s("0123456789abcdef", 2) for _ in range(6)),
        [
            "register the plate-reader PC MAC {v} with netreg so it gets an IP on the instrument VLAN",
        ],
    )
    ben(
        "license_server",
        lambda: str(rng.randint(27000, 27010)) + "@lic" + str(rng.randint(1, 4)) + ".uni.edu",
        [
            "export LM_LICENSE_FILE={v} for MATLAB on the cluster",
        ],
    )
    ben(
        "s3_bucket_arn",
        lambda: "arn:aws:s3:::lab-credits-" + s(LOWER_ALNUM, 8),
        [
            "bucket policy grants the pipeline role read on {v}/*",
        ],
    )
    ben(
        "git_lfs_oid",
        lambda: hx(64),
        [
            "version https://git-lfs.github.com/spec/v1\noid sha256:{v}\nsize 48213394",
        ],
    )
    ben(
        "pip_hash",
        lambda: "sha256:" + hx(64),
        [
            "numpy==2.1.3 --hash={v}",
        ],
    )
    ben(
        "geo_accession",
        lambda: "GSE" + str(rng.randint(100000, 299999)),
        [
            "raw counts deposited to GEO as {v}, private until publication (reviewer link separate)",
        ],
    )
    ben(
        "sra_accession",
        lambda: "SRR" + str(rng.randint(10000000, 29999999)),
        [
            "fasterq-dump {v} on a compute node, not the login node",
        ],
    )
    ben(
        "recaptcha_site_key",
        lambda: "6L" + s(ALNUM + "-_", 38),
        [
            "survey landing page reCAPTCHA site key (public, goes in the HTML): {v}",
        ],
    )
    ben(
        "mapbox_public_token",
        lambda: "pk.eyJ1IjoibGFibWFwcyIsImEiOiJ" + s(ALNUM, 20) + "In0." + s(B64URL, 22),
        [
            "Mapbox public token for the field-site map on the portal (pk, URL-restricted): {v}",
        ],
    )
    ben(
        "orcid_client_id",
        lambda: "APP-" + s("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ", 16),
        [
            "ORCID public API client id {v}; the secret is with the library",
        ],
    )
    ben(
        "oauth_client_id_google",
        lambda: (
            str(rng.randint(10**11, 10**12))
            + "-"
            + s(LOWER_ALNUM, 32)
            + ".apps.googleusercontent.com"
        ),
        [
            "client_id for the survey dashboard sign-in: {v}",
        ],
    )
    ben(
        "k8s_secret_ref",
        None,
        [
            "env:\n- name: REDCAP_TOKEN\n  valueFrom:\n    secretKeyRef:\n      name: redcap-api\n      key: token",
        ],
    )
    ben(
        "base64_nonsecret",
        lambda: base64.b64encode(b"partition=gpu\nqos=normal\naccount=lab_lindqvist\n").decode(),
        [
            "base64 of the default sbatch header, used by the portal form: {v}",
        ],
    )
    ben(
        "request_id",
        uid,
        [
            "Zenodo support asked for the request id from the failed upload: {v}",
        ],
    )
    ben(
        "dna_barcode",
        lambda: s("ACGT", 24),
        [
            "sample 17 barcode {v}, index plate B",
        ],
    )
    ben(
        "iRODS_path",
        lambda: "/labZone/home/labdata/cohortB/" + s(LOWER_ALNUM, 6),
        [
            "iget -r {v} . then run the QC",
        ],
    )
    ben(
        "slurm_account_qos",
        None,
        [
            "use --account=lab_lindqvist --qos=gpu-long for anything over 48h",
        ],
    )
    ben(
        "password_location_note",
        None,
        [
            "the eRA Commons password is with Maria (grants office), not written anywhere",
            "RStudio password reset: use the self-service page, the old one was 'the usual' per Tom",
        ],
    )
    ben(
        "token_expiry_note",
        None,
        [
            "Zenodo tokens don't expire but OSF ones can be scoped; use osf.full_read for the mirror job",
            "HF tokens: read for training jobs, write only on the release machine",
        ],
    )
    ben(
        "jwt_public_jwks",
        lambda: b64u(256),
        [
            '{"kty":"RSA","use":"sig","kid":"rc-2026","alg":"RS256","e":"AQAB","n":"{v}"}',
        ],
    )
    ben(
        "hash_of_dataset_commit_dvc",
        lambda: hx(32),
        [
            "dvc.lock: md5: {v} for data/processed",
        ],
    )
    ben(
        "zenodo_sandbox_dummy",
        None,
        [
            "test deposits go to sandbox.zenodo.org with a separate sandbox account; production token never used in CI tests",
        ],
    )
    ben(
        "uuid_participant",
        uid,
        [
            "pseudonymous participant id {v} (no PHI, mapping lives in REDCap)",
        ],
    )
    ben(
        "short_url_hash",
        lambda: s(ALNUM, 10),
        [
            "slides: https://bit.ly/{v} (public)",
        ],
    )
    ben(
        "cluster_hostname",
        None,
        [
            "login nodes: login1..login4.talon.rc.uni.edu; data transfer: dtn01/dtn02; never run jobs on login",
        ],
    )
    ben(
        "example_jwt_placeholder",
        lambda: "eyJhbGciOiJIUzI1NiJ9.<payload>.<signature>",
        [
            "slurmrestd expects X-SLURM-USER-TOKEN: {v}; generate with scontrol token lifespan=3600",
        ],
    )
    ben(
        "api_docs_key_name",
        None,
        [
            "Dataverse API key goes in the X-Dataverse-key header; get it from Account > API Token",
        ],
    )

    # fill more variety, benign and secret
    sec(
        "labarchives_password", pw, ["LabArchives ELN shared notebook login: eln@lab.uni.edu / {v}"]
    )
    sec(
        "globus_access_token",
        lambda: "Ag" + s(ALNUM, 48),
        ["transfer.api.globus.org bearer (valid 48h): {v}"],
    )
    ben("globus_task_id", uid, ["Globus task {v} finished, 3.2 TB, 0 faults"])
    ben("sshfp_record", lambda: "IN SSHFP 4 2 " + hx(64), ["DNS for login2: {v}"])

    # ------------------------------------------------------------------ more look-alikes
    ben(
        "ssh_public_key_rsa",
        lambda: "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABgQ" + s(B64, 200) + " instr@krios-pc",
        [
            "public half of the Krios push key, already in authorized_keys on archive01:\n{v}",
            "pub key for the sequencing core account (they asked us to paste it in their portal): {v}",
        ],
    )
    ben(
        "pem_public_key",
        lambda: pem("PUBLIC KEY", 91),
        [
            "slurmrestd JWT verification key (public):\n{v}",
            "the portal verifies webhook signatures with this public key:\n{v}",
        ],
    )
    ben(
        "known_hosts_line",
        lambda: "dtn01.rc.uni.edu ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAA" + s(B64, 43),
        [
            "known_hosts entry to push via Ansible: {v}",
        ],
    )
    ben(
        "machine_id",
        lambda: hx(32),
        [
            "/etc/machine-id on the cloned instrument PCs is identical ({v}) - regenerate it or DHCP gets confused",
            "systemd machine-id of gpu-a07: {v}",
        ],
    )
    ben(
        "gpu_uuid",
        lambda: "GPU-" + uid(),
        [
            "nvidia-smi -L shows {v} throwing Xid 79; drain the node",
            "CUDA_VISIBLE_DEVICES={v} pins the job to the healthy A100",
        ],
    )
    ben(
        "mlflow_experiment_id",
        lambda: str(rng.randint(100000000000000000, 999999999999999999)),
        [
            "MLflow experiment id {v} is 'segmentation-v3'",
        ],
    )
    ben(
        "wandb_sweep_id",
        lambda: s(LOWER_ALNUM, 8),
        [
            "wandb agent nlp-lab/ner/{v} --count 20 on each GPU node",
        ],
    )
    ben(
        "hf_dataset_commit",
        lambda: hx(40),
        [
            "load_dataset('lab-org/ema-transcripts', revision='{v}') - this is the frozen split",
            "HF dataset commit {v} is what the preprint used",
        ],
    )
    ben(
        "jupyter_password_hash",
        lambda: "argon2:$argon2id$v=19$m=10240,t=10,p=8$" + s(B64, 22) + "$" + s(B64, 43),
        [
            "jupyter_server_config.py: c.PasswordIdentityProvider.hashed_password = '{v}' (hash only; set via jupyter server password)",
        ],
    )
    ben(
        "jupyter_token_disabled",
        None,
        [
            "c.ServerApp.token = ''  # auth handled by JupyterHub, never expose this port outside the node",
            "jupyter URL pasted in the channel had ?token=... cut off on purpose; ask me for a fresh one",
        ],
    )
    ben(
        "zenodo_concept_recid",
        lambda: str(rng.randint(1000000, 17999999)),
        [
            "concept recid {v} always resolves to the latest version of the dataset",
        ],
    )
    ben(
        "pmid_pmcid",
        lambda: "PMC" + str(rng.randint(5000000, 12000000)),
        [
            "methods paper is {v}; the protocol is in supplementary file 2",
        ],
    )
    ben(
        "ror_id",
        lambda: "https://ror.org/0" + s(LOWER_ALNUM, 6) + str(rng.randint(10, 99)),
        [
            "institution ROR for the DataCite metadata: {v}",
        ],
    )
    ben(
        "ip_address",
        lambda: "10." + ".".join(str(rng.randint(0, 254)) for _ in range(3)),
        [
            "microscope PC static IP {v}, gateway .1, no internet by design",
        ],
    )
    ben(
        "ulid_sample_id",
        lambda: s("0123456789ABCDEFGHJKMNPQRSTVWXYZ", 26),
        [
            "LIMS sample id {v} (ULID) - tube 3 of the second batch",
            "aliquot {v} failed QC, re-extract",
        ],
    )
    ben(
        "flowcell_id",
        lambda: "FA" + s(string.ascii_uppercase, 1) + str(rng.randint(10000, 99999)),
        [
            "MinION flowcell {v} had 1200 pores at start",
        ],
    )
    ben(
        "hmac_pseudonym",
        lambda: hx(64),
        [
            "pseudonymised email (HMAC-SHA256 output, key kept by the data manager): {v}",
        ],
    )
    ben(
        "docker_image_tag",
        lambda: "v" + str(rng.randint(1, 5)) + "." + str(rng.randint(0, 20)) + "-cuda12.4-" + hx(7),
        [
            "use image lab/train:{v} for the reproducibility run",
        ],
    )
    ben(
        "git_ssh_url",
        None,
        [
            "clone via git@github.com:lab-org/private-pipeline.git once your key is added to the org",
        ],
    )
    ben(
        "s3_object_url",
        lambda: "s3://lab-credits-raw/" + s(LOWER_ALNUM, 12) + "/part-0000.parquet",
        [
            "aws s3 cp {v} . --profile credits  (profile creds come from SSO)",
        ],
    )
    ben(
        "physical_key_sense",
        None,
        [
            "key for the -80 freezer room is on the hook by B214; sign the log when you take it",
            "the card reader on the cluster machine room needs RC to add your ID, no physical key anymore",
        ],
    )
    ben(
        "figure_key_sense",
        None,
        [
            "Fig 3 key: filled circles = treated, open = vehicle; move the legend key below the panel",
        ],
    )
    ben(
        "ssh_passphrase_talk",
        None,
        [
            "set a passphrase on your ed25519 key and use ssh-agent; RC will reject keys without one next term",
        ],
    )
    ben(
        "rotation_log",
        None,
        [
            "rotated the REDCap API token for COHORT-B on 2026-11-30; new one in vault, old one deleted in REDCap",
            "W&B key rotated after Priya left; all sbatch scripts read WANDB_API_KEY from the env, nothing to edit",
        ],
    )
    ben(
        "munge_key_path_only",
        None,
        [
            "munge.key must be byte-identical on all nodes: /etc/munge/munge.key, owner munge, mode 0400; copy with scp from the head node",
        ],
    )
    ben(
        "revoked_token_osf",
        lambda: s(ALNUM, 70),
        [
            "DELETED in OSF settings on 2026-10-14 after it was committed by mistake (no longer valid, kept only to match the leak report): {v}",
        ],
    )
    ben(
        "aws_docs_example_id",
        lambda: "AKIAIOSFODNN7EXAMPLE",
        [
            "tutorial config uses the AWS documentation placeholder {v} for the key id",
        ],
    )
    ben(
        "example_password_in_docs",
        lambda: "<password>",
        [
            "iRODS quickstart for students: iinit, then enter {v} when prompted (your own uni password, never a shared one)",
        ],
    )
    ben(
        "uuid_redcap_survey_hash",
        lambda: s(ALNUM, 10),
        [
            "REDCap public survey link https://redcap.med.uni.edu/surveys/?s={v} (the open recruitment survey, meant to be posted on flyers)",
        ],
    )
    ben(
        "crc32_checksum",
        lambda: hx(8),
        [
            "crc32 of the tarball from the instrument export: {v}",
        ],
    )
    ben(
        "conda_lock_hash",
        lambda: hx(64),
        [
            "conda-lock content_hash linux-64: {v}",
        ],
    )
    ben(
        "slurm_reservation",
        None,
        [
            "reservation name lab_demo_dec9 on nodes gpu-a[01-04], use --reservation=lab_demo_dec9",
        ],
    )
    ben(
        "cron_schedule",
        None,
        [
            "globus sync timer runs 0 2 * * * and pulls from the sequencer's guest collection",
        ],
    )
    ben(
        "grant_portal_ids",
        lambda: "PROPOSAL-" + str(rng.randint(2400000, 2699999)),
        [
            "Research.gov proposal {v} submitted; check status with the SRO, not with the PI login",
        ],
    )
    ben(
        "era_commons_username_only",
        None,
        [
            "eRA Commons username for the PI is PLINDQVIST; password and 2FA are on her phone only",
        ],
    )
    ben(
        "secret_santa",
        None,
        [
            "lab secret santa: draw names Friday, $20 limit, don't tell who you got",
        ],
    )
    ben(
        "token_economy_sense",
        None,
        [
            "participants earn tokens in the reward task (1 token = 5 cents), max 40 tokens per session",
        ],
    )
    ben(
        "api_rate_limit_talk",
        None,
        [
            "Zenodo API limit is 100 requests/min per token; batch the file uploads",
            "the Qualtrics token belongs to the brand admin, so regular users should export via the UI",
        ],
    )
    ben(
        "password_manager_ref",
        None,
        [
            "all shared lab account passwords moved to the Bitwarden org 'MLab'; the old spreadsheet is deleted",
        ],
    )
    ben(
        "sha1_short",
        lambda: hx(12),
        [
            "hotfix in {v} fixes the off-by-one in the spike sorter",
        ],
    )
    ben(
        "gpg_key_id",
        lambda: "0x" + s("0123456789ABCDEF", 16),
        [
            "sign release tags with key {v} (public key on keys.openpgp.org)",
        ],
    )
    ben(
        "zenodo_community_slug",
        lambda: s(LOWER_ALNUM, 12),
        [
            "zenodo community slug 'mlab-{v}' - add every deposit to it",
        ],
    )
    ben(
        "example_uuid_docs",
        lambda: "00000000-0000-0000-0000-000000000000",
        [
            "dataverse token in the docs example is {v}; substitute your own from the API Token page",
        ],
    )
    ben(
        "hex_color",
        lambda: "#" + hx(6),
        [
            "lab palette: treated {v}, keep it colorblind safe",
        ],
    )
    ben(
        "nonce_log",
        lambda: hx(24),
        [
            "OIDC login failed: nonce mismatch (expected {v}); cleared cookies and it worked",
        ],
    )
    ben(
        "object_store_bucket_name",
        lambda: "mlab-" + s(LOWER_ALNUM, 10),
        [
            "Ceph bucket {v} is world-readable on purpose (public figures for the paper)",
        ],
    )

    ben(
        "fake_fixture_token",
        lambda: "hf_" + "dummy" + "0" * 29,
        [
            "unit tests mock the hub; the fixture token {v} is not a real token and the mock never calls out",
        ],
    )
    ben(
        "fake_fixture_aws",
        lambda: "AKIA" + "TESTTESTTESTTEST",
        [
            "moto tests set AWS_ACCESS_KEY_ID={v} and AWS_SECRET_ACCESS_KEY=testing (moto's documented dummies)",
        ],
    )
    ben(
        "redcap_token_placeholder",
        lambda: "<32-char token from API page>",
        [
            "REDCAP_API_TOKEN={v}  # each RA requests their own; tokens are per user per project",
        ],
    )
    ben(
        "qualtrics_datacenter",
        lambda: s(string.ascii_lowercase, 2) + str(rng.randint(1, 9)),
        [
            "Qualtrics datacenter id for our brand is {v}; base URL https://{v}.qualtrics.com/API/v3",
        ],
    )
    ben(
        "dataset_manifest",
        lambda: hx(64),
        [
            "MANIFEST.tsv\nfile\tbytes\tsha256\nsub-01_T1w.nii.gz\t18324011\t{v}",
            "BIDS validator passed; dataset_description.json hash {v}",
        ],
    )
    ben(
        "zenodo_file_checksum",
        lambda: "md5:" + hx(32),
        [
            "Zenodo API returned checksum {v} for traces.h5, matches ours",
        ],
    )
    ben(
        "globus_identity_id",
        uid,
        [
            "my Globus identity id is {v} (uni.edu linked); add it to the ACL, not my email",
            "ACL rule: principal_type identity, principal {v}, permissions r",
        ],
    )
    ben(
        "iam_role_arn",
        lambda: (
            "arn:aws:iam::"
            + str(rng.randint(100000000000, 999999999999))
            + ":role/lab-pipeline-"
            + s(LOWER_ALNUM, 5)
        ),
        [
            "batch jobs assume {v}; no long-lived keys on the nodes",
        ],
    )
    ben(
        "azure_client_id_only",
        uid,
        [
            "app registration 'lab-uploader' clientId {v}; uses a managed identity, no client secret exists",
        ],
    )
    ben(
        "openstack_app_cred_id_only",
        lambda: hx(32),
        [
            "Jetstream2 application credential id {v} (the secret part is in ~/.config/openstack on the VM only)",
        ],
    )
    ben(
        "slurm_jwt_talk",
        None,
        [
            "slurmrestd tokens: scontrol token username=svc-portal lifespan=900; the portal fetches a new one each call",
        ],
    )
    ben(
        "nextcloud_share_public",
        lambda: s(ALNUM, 15),
        [
            "public Nextcloud folder for the workshop handouts: https://cloud.uni.edu/s/{v} (meant to be public, read-only)",
        ],
    )
    ben(
        "tokenizer_vocab_entry",
        lambda: s(string.ascii_lowercase, 6),
        [
            "BPE merges show '{v}' split into 3 tokens; add it to the domain vocab",
        ],
    )
    ben(
        "elapsed_hash_bench",
        lambda: hx(16),
        [
            "xxhash64 of each chunk logged for dedup, e.g. {v}; collisions none so far",
        ],
    )
    ben(
        "cloud_credit_grant_id",
        lambda: "PS" + str(rng.randint(100000, 999999)),
        [
            "AWS research credits award {v}, $25k, expires 2027-09-30; spend report due quarterly",
        ],
    )
    ben(
        "instrument_software_license_id",
        lambda: "-".join(s(string.ascii_uppercase + string.digits, 4) for _ in range(3)),
        [
            "Imaris floating license seat id {v} (license server handles activation, id alone does nothing)",
        ],
    )
    ben(
        "ssh_config_block",
        None,
        [
            "Host talon\n  HostName talon-login.rc.uni.edu\n  User jlee\n  IdentityFile ~/.ssh/id_ed25519\n  ProxyJump bastion.rc.uni.edu",
        ],
    )
    ben(
        "orcid_putcode",
        lambda: str(rng.randint(10000000, 99999999)),
        [
            "ORCID work put-code {v} is the duplicate entry to remove",
        ],
    )
    ben(
        "vault_path_jupyter",
        lambda: "kv/jupyterhub/" + s(string.ascii_lowercase, 8),
        [
            "hub's cookie secret is generated at startup and stored in {v}; nobody needs to copy it",
        ],
    )

    # more secrets in other shapes
    sec(
        "ssh_key_passphrase",
        pw,
        [
            "passphrase for the id_ed25519 on the data-mover account: {v}",
            "ssh-add ~/.ssh/lab_mover -> passphrase is {v}",
        ],
    )
    sec(
        "hpc_password_yaml",
        pw,
        [
            'cluster:\n  host: talon-login.rc.uni.edu\n  username: mlab_svc\n  password: "{v}"',
        ],
    )
    sec(
        "instrument_pc_password_de",
        pw,
        [
            "Passwort für den Messrechner (Raman, Raum 2.114): {v}",
        ],
    )
    sec(
        "redcap_token_lowercase_env",
        lambda: s("0123456789ABCDEF", 32),
        [
            "export REDCAP_API_TOKEN={v}  # COHORT-C, export rights only",
        ],
    )
    sec(
        "wandb_netrc",
        lambda: hx(40),
        [
            "machine api.wandb.ai\n  login user\n  password {v}",
        ],
    )
    sec(
        "hf_token_in_url",
        lambda: "hf_" + s(ALNUM, 34),
        [
            "git remote set-url origin https://labbot:{v}@huggingface.co/lab-org/cell-bert",
        ],
    )
    sec(
        "jupyter_token_in_url_remote",
        lambda: hx(48),
        [
            "share this with Ana for the tutorial: https://viz01.rc.uni.edu:9443/tree?token={v}",
        ],
    )
    sec(
        "irods_scrambled_pw_file",
        lambda: s(ALNUM + "+-", 24),
        [
            "contents of ~/.irods/.irodsA on dtn01 (scrambled, but iinit reuses it as-is): {v}",
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

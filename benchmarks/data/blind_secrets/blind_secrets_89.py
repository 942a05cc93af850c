# ruff: noqa: E501, SIM115
"""Blind secret-detector corpus 89: university research computing group and its labs.

Brief: notes, handover lines, chat messages, commands, config and .env lines,
YAML, JSON, URLs, tables and log lines kept as memory by a university research
computing group, the labs it serves and their AI coding agents: the HPC
cluster and SLURM, instrument PCs, LIMS and electronic lab notebooks, research
data storage, grant portals, JupyterHub and licence servers, plus the generic
developer stack. Written in English, Japanese and Italian. Rows labelled
"secret" hold a live credential; rows labelled "benign" hold look-alikes a
careful reader would keep (ids, serials, hashes, public keys, placeholders,
masked or revoked values, env var references, vault paths, policy text).

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Run: python blind_secrets_89.py [out.jsonl]

Kinds, secret: slurm_jwt, munge_key, ldap_bind_password, jupyterhub_api_token,
jupyterhub_cookie_secret, configproxy_auth_token, github_token, gitlab_pat,
aws_secret_access_key, postgres_connection_string, mysql_password,
slack_webhook, teams_webhook, discord_webhook, telegram_bot_token,
ssh_private_key, rsa_private_key, gcp_service_account_key, azure_storage_key,
azure_client_secret, globus_client_secret, irods_password, s3_secret_key,
benchling_api_key, labarchives_password, elabftw_api_key, openai_api_key,
anthropic_api_key, huggingface_token, wandb_api_key,
instrument_pc_admin_password, bitlocker_recovery_key, vnc_password,
door_access_code, bmc_password, totp_seed, recovery_codes, stripe_secret_key,
sendgrid_api_key, twilio_auth_token, matlab_file_installation_key,
licence_portal_password, grant_portal_password, orcid_client_secret,
zenodo_token, figshare_token, vault_token, grafana_token, pypi_token,
django_secret_key, backup_passphrase, luks_passphrase, wifi_psk,
keycloak_client_secret, harbor_robot_secret, smtp_password, redis_password.

Kinds, benign: slurm_job_id, slurm_account, hostname, ssh_public_key,
ssh_host_fingerprint, x509_certificate, git_commit_sha, sha256_checksum,
md5_checksum, doi, orcid_id, orcid_client_id, grant_reference,
aws_documented_example, placeholder, env_var_reference, vault_path,
masked_token, redacted_password, revoked_token, instrument_serial, asset_tag,
mac_address, ip_address, dataset_uuid, lims_sample_id, eln_entry_id,
ticket_reference, licence_server_address, flexlm_hostid,
matlab_license_number, stripe_publishable_key, recaptcha_site_key,
container_image_digest, software_version, pip_hash, kerberos_principal,
ldap_dn, jupyterhub_user_url, s3_bucket_arn, azure_tenant_id,
slack_channel_id, password_policy, pgp_fingerprint, bitlocker_key_id,
booking_reference, purchase_order, ethics_approval, password_hash,
huggingface_repo_id, wandb_run_id, erad_researcher_number, cup_code,
public_key_pem, wireguard_public_key, age_public_key, twilio_account_sid,
globus_collection_id, jwks_kid.
"""

import base64
import json
import random
import string
import sys
import uuid

SEED = 8989
R = random.Random(SEED)

ALNUM = string.ascii_letters + string.digits
UPPER_NUM = string.ascii_uppercase + string.digits
LOWER_NUM = string.ascii_lowercase + string.digits
HEX = "0123456789abcdef"
URLSAFE = ALNUM + "-_"
B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"


def rs(n, alphabet=ALNUM):
    return "".join(R.choice(alphabet) for _ in range(n))


def hx(n):
    return rs(n, HEX)


def digits(n):
    return "".join(R.choice("0123456789") for _ in range(n))


def rbytes(n):
    return bytes(R.getrandbits(8) for _ in range(n))


def b64(n):
    return base64.b64encode(rbytes(n)).decode()


def b64url(n):
    return base64.urlsafe_b64encode(rbytes(n)).decode().rstrip("=")


def uid():
    return str(uuid.UUID(int=R.getrandbits(128), version=4))


def slurm_jwt(user, exp):
    head = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
    body = json.dumps({"exp": exp, "iat": exp - 86400, "sun": user}, separators=(",", ":"))
    payload = base64.urlsafe_b64encode(body.encode()).decode().rstrip("=")
    return f"{head}.{payload}.{b64url(32)}"


def pem(label, nbytes, width=64):
    body = b64(nbytes)
    lines = [body[i : i + width] for i in range(0, len(body), width)]
    return f"-----BEGIN {label}-----\n" + "\n".join(lines) + f"\n-----END {label}-----"


def openssh_key():
    prefix = "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZWQyNTUxOQAAACD"
    body = prefix + b64(300)[len(prefix) - 80 :]
    body = body[: len(body) - len(body) % 4] if len(body) % 4 else body
    lines = [body[i : i + 70] for i in range(0, len(body), 70)]
    return (
        "-----BEGIN OPENSSH PRIVATE KEY-----\n"
        + "\n".join(lines)
        + "\n-----END OPENSSH PRIVATE KEY-----"
    )


def ed25519_pub():
    return "AAAAC3NzaC1lZDI1NTE5AAAAI" + b64(33)[1:44]


def slack_hook():
    return f"https://hooks.slack.com/services/T{rs(10, UPPER_NUM)}/B{rs(10, UPPER_NUM)}/{rs(24)}"


def base32_seed(n=32):
    return rs(n, B32)


def bitlocker():
    return "-".join(f"{R.randrange(0, 65536) * 11:06d}" for _ in range(8))


def fik():
    return "-".join(digits(5) for _ in range(6))


ROWS = []


def S(kind, text, value):
    ROWS.append({"label": "secret", "kind": kind, "text": text, "value": value})


def B(kind, text, value):
    ROWS.append({"label": "benign", "kind": kind, "text": text, "value": value})


def secrets_rows():
    # --- slurm_jwt
    v = slurm_jwt("svc_nfcore", 1796947200)
    S(
        "slurm_jwt",
        f"export SLURM_JWT={v}  # scontrol token lifespan=86400 for svc_nfcore, regenerate Friday",
        v,
    )
    v = slurm_jwt("mrossi", 1797033600)
    S(
        "slurm_jwt",
        f'curl -s -H "X-SLURM-USER-NAME: mrossi" -H "X-SLURM-USER-TOKEN: {v}" https://slurmrest.hpc.uni.example/slurm/v0.0.40/jobs',
        v,
    )
    v = slurm_jwt("tanaka_k", 1797120000)
    S(
        "slurm_jwt",
        f"slurmrestd 用トークン（tanaka_k、有効期限7日）: {v} ← ワークフローサーバ以外に置かないでください",
        v,
    )
    v = slurm_jwt("gbianchi", 1797206400)
    S(
        "slurm_jwt",
        f"Token JWT per slurmrestd, generato con `scontrol token username=gbianchi lifespan=604800`:\n{v}",
        v,
    )
    v = slurm_jwt("nextflow", 1797292800)
    S(
        "slurm_jwt",
        f'slurm:\n  rest_url: https://slurmrest.hpc.uni.example\n  user: nextflow\n  jwt: "{v}"',
        v,
    )

    # --- munge_key
    v = b64(128)
    S(
        "munge_key",
        f"Munge key for the new A100 nodes (base64 of /etc/munge/munge.key, restore with base64 -d > /etc/munge/munge.key; chmod 400):\n{v}",
        v,
    )
    v = b64(96)
    S("munge_key", f'# group_vars/compute.yml\nmunge_key_b64: "{v}"\nmunge_user: munge', v)
    v = b64(128)
    S(
        "munge_key",
        f"新しいログインノード login03 に munge.key を配るときは、これを base64 -d で戻す → {v}",
        v,
    )

    # --- ldap_bind_password
    v = "Bind!Hub-2024q3"
    S(
        "ldap_bind_password",
        f"LDAP bind for JupyterHub: cn=svc-jhub,ou=service,dc=hpc,dc=uni,dc=example / pw {v}",
        v,
    )
    v = "Vh7#pqLm2xZr"
    S(
        "ldap_bind_password",
        f"[domain/hpc]\nldap_default_bind_dn = cn=sssd-ro,ou=service,dc=hpc,dc=uni,dc=example\nldap_default_authtok_type = password\nldap_default_authtok = {v}",
        v,
    )
    v = "Kagami_2025!ldap"
    S(
        "ldap_bind_password",
        f"LIMS 用 LDAP のバインドパスワード（svc-lims）は {v} です。変更したら LIMS の設定画面も更新すること。",
        v,
    )
    v = "Cortile.Dipart7"
    S(
        "ldap_bind_password",
        f"La password di bind LDAP per il portale prenotazioni strumenti è {v} (utente cn=prenota,ou=servizi).",
        v,
    )
    v = "nD4$wq!LabHub"
    S(
        "ldap_bind_password",
        f"c.LDAPAuthenticator.lookup_dn_search_user = 'cn=svc-jhub,ou=service,dc=hpc,dc=uni,dc=example'\nc.LDAPAuthenticator.lookup_dn_search_password = '{v}'",
        v,
    )

    # --- jupyterhub_api_token
    v = hx(32)
    S("jupyterhub_api_token", f"JUPYTERHUB_API_TOKEN={v}   # idle-culler service, admin scope", v)
    v = hx(32)
    S(
        "jupyterhub_api_token",
        f"c.JupyterHub.services = [{{'name': 'cull-idle', 'admin': True, 'api_token': '{v}'}}]",
        v,
    )
    v = hx(32)
    S(
        "jupyterhub_api_token",
        f'curl -H "Authorization: token {v}" https://jupyter.hpc.uni.example/hub/api/users | jq ".[].name"',
        v,
    )
    v = hx(32)
    S(
        "jupyterhub_api_token",
        f"hub の admin 権限付き API トークンを発行しました（授業用ユーザ一括作成スクリプト用）: {v}",
        v,
    )

    # --- jupyterhub_cookie_secret
    v = hx(64)
    S("jupyterhub_cookie_secret", f"c.JupyterHub.cookie_secret = bytes.fromhex('{v}')", v)
    v = hx(64)
    S("jupyterhub_cookie_secret", f"JPY_COOKIE_SECRET={v}", v)
    v = hx(64)
    S(
        "jupyterhub_cookie_secret",
        f"Il cookie secret dell'hub (se lo cambiamo tutti gli studenti vengono disconnessi): {v}",
        v,
    )

    # --- configproxy_auth_token
    v = hx(64)
    S("configproxy_auth_token", f"Environment=CONFIGPROXY_AUTH_TOKEN={v}", v)
    v = hx(64)
    S(
        "configproxy_auth_token",
        f'# config.yaml for z2jh\nproxy:\n  secretToken: "{v}"\nhub:\n  db:\n    type: sqlite-pvc',
        v,
    )
    v = hx(64)
    S(
        "configproxy_auth_token",
        f"z2jh の proxy.secretToken を openssl rand -hex 32 で再生成した → {v}",
        v,
    )

    # --- github_token
    v = "ghp_" + rs(36)
    S(
        "github_token",
        f"git clone https://{v}@github.com/uni-rcg/slurm-configs.git /opt/slurm-configs",
        v,
    )
    v = "ghp_" + rs(36)
    S("github_token", f"echo {v} | gh auth login --with-token   # bot account rcg-ci", v)
    v = "github_pat_11" + rs(20, UPPER_NUM) + "_" + rs(59)
    S(
        "github_token",
        f"GitHub の fine-grained トークン（uni-rcg/lims-plugins, contents:read, 90日）: {v}",
        v,
    )
    v = "ghp_" + rs(36)
    S("github_token", f"Token GitHub per il mirror del repository ELN, scade a marzo: {v}", v)

    # --- gitlab_pat
    v = "glpat-" + rs(20, URLSAFE)
    S("gitlab_pat", f"GITLAB_TOKEN={v}", v)
    v = "glpat-" + rs(20, URLSAFE)
    S(
        "gitlab_pat",
        f"git remote set-url origin https://oauth2:{v}@gitlab.uni.example/rcg/ansible-hpc.git",
        v,
    )
    v = "glpat-" + rs(20, URLSAFE)
    S(
        "gitlab_pat",
        f"GitLab のプロジェクトアクセストークン（rcg/easybuild-recipes, write_repository）を作成: {v}",
        v,
    )

    # --- aws_secret_access_key
    kid = "AKIA" + rs(16, UPPER_NUM)
    v = rs(40, ALNUM + "/+")
    S(
        "aws_secret_access_key",
        f"[rcg-burst]\naws_access_key_id = {kid}\naws_secret_access_key = {v}\nregion = eu-west-1",
        v,
    )
    v = rs(40, ALNUM + "/+")
    S("aws_secret_access_key", f"AWS_SECRET_ACCESS_KEY={v}", v)
    kid = "AKIA" + rs(16, UPPER_NUM)
    v = rs(40, ALNUM + "/+")
    S(
        "aws_secret_access_key",
        f"Chiavi AWS del progetto genomica: id {kid}, secret {v} — usate solo dal nodo di trasferimento.",
        v,
    )
    v = rs(40, ALNUM + "/+")
    S(
        "aws_secret_access_key",
        f"クラウドバースト用 IAM ユーザ rcg-burst のシークレットアクセスキー: {v}",
        v,
    )

    # --- postgres_connection_string
    v = "postgresql://lims_app:Gr8-Sample$Flow@db-lims01.uni.example:5432/lims_prod"
    S("postgres_connection_string", f"DATABASE_URL={v}", v)
    v = "host=eln-db.uni.example port=5432 dbname=eln user=eln_rw password=Q9v!rT2mKc sslmode=require"
    S("postgres_connection_string", f'psql "{v}" -c "select count(*) from experiments"', v)
    v = "postgres://readonly:Yomitori2024@lims-replica.uni.example/lims"
    S("postgres_connection_string", f"LIMS の読み取り専用レプリカ（集計用）: {v}", v)
    v = "postgresql+psycopg2://xdmod:Xdm0d_report!@xdmod-db:5432/modw"
    S("postgres_connection_string", f"SQLALCHEMY_DATABASE_URI = '{v}'", v)

    # --- mysql_password
    v = "Acct!Db#77x"
    S("mysql_password", f"mysql -h slurmdbd-db -u slurm -p'{v}' slurm_acct_db -e 'show tables'", v)
    v = "Sl8rmDBD_pass2025"
    S(
        "mysql_password",
        f"# /etc/slurm/slurmdbd.conf\nStorageType=accounting_storage/mysql\nStorageUser=slurm\nStoragePass={v}",
        v,
    )
    v = "Mariadb!Root_22"
    S(
        "mysql_password",
        f"Password root di MariaDB sul server del LIMS del laboratorio di proteomica: {v}",
        v,
    )

    # --- slack_webhook
    v = slack_hook()
    S("slack_webhook", f"SLACK_WEBHOOK_URL={v}", v)
    v = slack_hook()
    S(
        "slack_webhook",
        f"curl -X POST -H 'Content-type: application/json' --data '{{\"text\":\"slurmctld failover on hpc-ctl02\"}}' {v}",
        v,
    )
    v = slack_hook()
    S("slack_webhook", f"#hpc-alerts チャンネルへの通知 Webhook（Grafana から使用）: {v}", v)

    # --- teams_webhook
    v = f"https://uniexample.webhook.office.com/webhookb2/{uid()}@{uid()}/IncomingWebhook/{hx(32)}/{uid()}/V2{rs(43, URLSAFE)}"
    S("teams_webhook", f"Teams incoming webhook for the Microscopy Core channel: {v}", v)
    v = f"https://uniexample.webhook.office.com/webhookb2/{uid()}@{uid()}/IncomingWebhook/{hx(32)}/{uid()}/V2{rs(43, URLSAFE)}"
    S(
        "teams_webhook",
        f"Webhook Teams del canale 'Strumentazione comune' (avvisi di prenotazione): {v}",
        v,
    )

    # --- discord_webhook
    v = f"https://discord.com/api/webhooks/{digits(19)}/{rs(68, URLSAFE)}"
    S("discord_webhook", f"Webhook Discord del server dei dottorandi per i job finiti: {v}", v)
    v = f"https://discord.com/api/webhooks/{digits(18)}/{rs(68, URLSAFE)}"
    S("discord_webhook", f"notify:\n  on_fail: true\n  url: {v}", v)

    # --- telegram_bot_token
    v = f"{digits(10)}:AA{rs(33, URLSAFE)}"
    S("telegram_bot_token", f"TELEGRAM_BOT_TOKEN={v}\nTELEGRAM_CHAT_ID=-1001{digits(9)}", v)
    v = f"{digits(10)}:AA{rs(33, URLSAFE)}"
    S(
        "telegram_bot_token",
        f"Bot Telegram che avvisa quando il criostato sale sopra 4.5 K: token {v}",
        v,
    )
    v = f"{digits(10)}:AA{rs(33, URLSAFE)}"
    S(
        "telegram_bot_token",
        f"-80℃フリーザー警報用 Telegram bot のトークン: {v}（@freezer_alarm_bot）",
        v,
    )

    # --- ssh_private_key
    v = openssh_key()
    S(
        "ssh_private_key",
        f"Deploy key for the cluster config repo (private half, lives on mgmt01 as /root/.ssh/id_ed25519):\n{v}",
        v,
    )
    v = openssh_key()
    S("ssh_private_key", f"装置PCから転送サーバへ rsync するための鍵（パスフレーズなし）:\n{v}", v)
    v = openssh_key()
    indented = "\n".join("  " + line for line in v.splitlines())
    S("ssh_private_key", f"backup_ssh_key: |\n{indented}", indented[2:])

    # --- rsa_private_key
    v = pem("RSA PRIVATE KEY", 600)
    S(
        "rsa_private_key",
        f"Private key for licence.uni.example TLS cert (renewed via Sectigo, expires 2027-11):\n{v}",
        v,
    )
    v = pem("PRIVATE KEY", 630)
    S(
        "rsa_private_key",
        f"Chiave privata del certificato del server LIMS (lims.chimica.uni.example):\n{v}",
        v,
    )

    # --- gcp_service_account_key
    pk = pem("PRIVATE KEY", 630).replace("\n", "\\n") + "\\n"
    doc = (
        '{"type": "service_account", "project_id": "rcg-genomics-burst", "private_key_id": "'
        + hx(40)
        + '", "private_key": "'
        + pk
        + '", "client_email": "slurm-burst@rcg-genomics-burst.iam.gserviceaccount.com"}'
    )
    S("gcp_service_account_key", doc, pk)
    pk = pem("PRIVATE KEY", 630).replace("\n", "\\n") + "\\n"
    S(
        "gcp_service_account_key",
        f'GCS へアーカイブするサービスアカウントの鍵（JSON から抜粋）: "private_key": "{pk}"',
        pk,
    )

    # --- azure_storage_key
    key = b64(64)
    v = f"DefaultEndpointsProtocol=https;AccountName=rcgarchive;AccountKey={key};EndpointSuffix=core.windows.net"
    S("azure_storage_key", f'AZURE_STORAGE_CONNECTION_STRING="{v}"', v)
    v = b64(64)
    S(
        "azure_storage_key",
        f"az storage blob upload-batch --account-name labrawdata --account-key {v} -d raw -s /data/export",
        v,
    )
    v = b64(64)
    S(
        "azure_storage_key",
        f"Chiave di accesso dell'account di archiviazione 'crioemarchive' (key1): {v}",
        v,
    )

    # --- azure_client_secret
    v = rs(3) + "8Q~" + rs(34, ALNUM + "_-.~")
    S(
        "azure_client_secret",
        f"AZURE_TENANT_ID={uid()}\nAZURE_CLIENT_ID={uid()}\nAZURE_CLIENT_SECRET={v}",
        v,
    )
    v = rs(3) + "8Q~" + rs(34, ALNUM + "_-.~")
    S(
        "azure_client_secret",
        f"Entra ID アプリ 'ELN-SSO' のクライアントシークレット（期限 2027-06-30）: {v}",
        v,
    )
    v = rs(3) + "8Q~" + rs(34, ALNUM + "_-.~")
    S("azure_client_secret", f"Secret client dell'app registrata per il portale grant: {v}", v)

    # --- globus_client_secret
    v = b64(32)
    S("globus_client_secret", f"GLOBUS_CLIENT_ID={uid()}\nGLOBUS_CLIENT_SECRET={v}", v)
    v = b64(32)
    S(
        "globus_client_secret",
        f"Confidential app for the cryo-EM data mover: client id {uid()}, secret {v}",
        v,
    )
    v = b64(32)
    S(
        "globus_client_secret",
        f"Segreto del client Globus usato dal nodo DTN per i trasferimenti automatici: {v}",
        v,
    )

    # --- irods_password
    v = "Rods4Grid!"
    S("irods_password", f"iinit on the data grid: user rods, zone rdsZone, password {v}", v)
    v = "iR0ds-ingest_77"
    S("irods_password", f"IRODS_USER_NAME=ingest\nIRODS_PASSWORD={v}\nIRODS_ZONE_NAME=rdsZone", v)
    v = "ShiryoKanri#9"
    S("irods_password", f"iRODS の ingest ユーザのパスワード: {v}（装置からの自動登録で使用）", v)

    # --- s3_secret_key
    ak = rs(20, UPPER_NUM)
    v = rs(40)
    S("s3_secret_key", f"mc alias set rds https://s3.rds.uni.example {ak} {v}", v)
    ak = rs(20, UPPER_NUM)
    v = rs(40)
    S(
        "s3_secret_key",
        f"[rds]\ntype = s3\nprovider = Ceph\naccess_key_id = {ak}\nsecret_access_key = {v}\nendpoint = https://s3.rds.uni.example",
        v,
    )
    v = rs(40)
    S(
        "s3_secret_key",
        f"研究データストレージ（Ceph RGW）の S3 キー: アクセスキー {rs(20, UPPER_NUM)} / シークレット {v}",
        v,
    )
    v = rs(40)
    S(
        "s3_secret_key",
        f"MinIO del laboratorio di imaging: MINIO_ROOT_USER=imgadmin MINIO_ROOT_PASSWORD={v}",
        v,
    )

    # --- benchling_api_key
    v = "sk_" + rs(30)
    S("benchling_api_key", f"BENCHLING_API_KEY={v}", v)
    v = "sk_" + rs(30)
    S(
        "benchling_api_key",
        f"benchling = Benchling(url='https://unilab.benchling.com', auth_method=ApiKeyAuth('{v}'))",
        v,
    )
    v = "sk_" + rs(30)
    S("benchling_api_key", f"Benchling の API キー（プラスミド台帳同期用、rcg-bot）: {v}", v)

    # --- labarchives_password
    v = rs(20, LOWER_NUM)
    S("labarchives_password", f"LabArchives API: akid=uni_rcg_0042, access password {v}", v)
    v = "Quaderno#Lab2025"
    S(
        "labarchives_password",
        f"Password dell'account LabArchives condiviso del gruppo Bianchi (lab.bianchi@uni.example): {v}",
        v,
    )
    v = rs(20, LOWER_NUM)
    S(
        "labarchives_password",
        f"labarchives:\n  akid: uni_rcg_0042\n  access_password: {v}\n  api_base: https://api.labarchives.com/api",
        v,
    )

    # --- elabftw_api_key
    v = f"{R.randint(2, 90)}-{hx(84)}"
    S(
        "elabftw_api_key",
        f"curl -H 'Authorization: {v}' https://elab.uni.example/api/v2/experiments?limit=5",
        v,
    )
    v = f"{R.randint(2, 90)}-{hx(84)}"
    S("elabftw_api_key", f"ELABFTW_API_KEY={v}", v)
    v = f"{R.randint(2, 90)}-{hx(84)}"
    S("elabftw_api_key", f"eLabFTW の書き込み権限付き API キー（装置データ自動添付用）: {v}", v)

    # --- openai_api_key
    v = "sk-proj-" + rs(40, URLSAFE) + "T3BlbkFJ" + rs(40, URLSAFE)
    S("openai_api_key", f"OPENAI_API_KEY={v}", v)
    v = "sk-proj-" + rs(40, URLSAFE) + "T3BlbkFJ" + rs(40, URLSAFE)
    S("openai_api_key", f"Chiave OpenAI del progetto di trascrizione dei quaderni: {v}", v)
    v = "sk-proj-" + rs(40, URLSAFE) + "T3BlbkFJ" + rs(40, URLSAFE)
    S("openai_api_key", f"論文要約ボット用の OpenAI キー: {v}", v)

    # --- anthropic_api_key
    v = "sk-ant-api03-" + rs(93, URLSAFE) + "AA"
    S("anthropic_api_key", f"ANTHROPIC_API_KEY={v}", v)
    v = "sk-ant-api03-" + rs(93, URLSAFE) + "AA"
    S("anthropic_api_key", f'client = anthropic.Anthropic(api_key="{v}")  # SLURM script helper', v)
    v = "sk-ant-api03-" + rs(93, URLSAFE) + "AA"
    S("anthropic_api_key", f"JupyterHub の AI アシスタント拡張に設定したキー: {v}", v)

    # --- huggingface_token
    v = "hf_" + rs(34, string.ascii_letters)
    S("huggingface_token", f"huggingface-cli login --token {v} --add-to-git-credential", v)
    v = "hf_" + rs(34, string.ascii_letters)
    S("huggingface_token", f"#SBATCH --gres=gpu:a100:2\nexport HF_TOKEN={v}\npython finetune.py", v)
    v = "hf_" + rs(34, string.ascii_letters)
    S("huggingface_token", f"Hugging Face の write トークン（uni-rcg org）: {v}", v)
    v = "hf_" + rs(34, string.ascii_letters)
    S("huggingface_token", f"Token Hugging Face per scaricare i modelli gated sul cluster: {v}", v)

    # --- wandb_api_key
    v = hx(40)
    S("wandb_api_key", f"wandb login {v}", v)
    v = hx(40)
    S("wandb_api_key", f"WANDB_API_KEY={v}\nWANDB_ENTITY=uni-ml-lab", v)
    v = hx(40)
    S("wandb_api_key", f"研究室共有の W&B アカウントの API キー: {v}", v)

    # --- instrument_pc_admin_password
    v = "FEI-Krios#300kV"
    S("instrument_pc_admin_password", f"Krios acquisition PC (EPU): .\\Administrator / {v}", v)
    v = "Zeiss_lsm980!"
    S("instrument_pc_admin_password", f"共焦点顕微鏡 PC（LSM 980）の管理者パスワード: {v}", v)
    v = "Orbi2023!Esq"
    S(
        "instrument_pc_admin_password",
        f"PC dello spettrometro Orbitrap Exploris: utente locale 'mslab', password {v}",
        v,
    )
    v = "Bruker600hd!"
    S("instrument_pc_admin_password", f"NMR console login (TopSpin workstation): nmrsu / {v}", v)
    v = "Aria3_Sort#2022"
    S(
        "instrument_pc_admin_password",
        f"Cell sorter PC admin pw — {v} — do not give it to the students",
        v,
    )

    # --- bitlocker_recovery_key
    kid = uid().upper()[:8]
    v = bitlocker()
    S(
        "bitlocker_recovery_key",
        f"BitLocker recovery key for the NovaSeq control PC (key ID {kid}): {v}",
        v,
    )
    v = bitlocker()
    S("bitlocker_recovery_key", f"電子顕微鏡制御PCの BitLocker 回復キー: {v}", v)
    v = bitlocker()
    S(
        "bitlocker_recovery_key",
        f"Chiave di ripristino BitLocker del portatile del diffrattometro: {v}",
        v,
    )

    # --- vnc_password
    v = "Cryo4K!x"
    S("vnc_password", f"VNC to the cryostat control PC: vnc://10.40.2.15:5900 pw {v}", v)
    v = "vnc8ch#r"
    S("vnc_password", f"遠隔操作用 VNC パスワード（8文字まで）: {v}", v)
    v = "Xrd2019q"
    S("vnc_password", f"Password VNC del PC del diffrattometro: {v} (solo rete interna)", v)

    # --- door_access_code
    v = "4719"
    S("door_access_code", f"Server room B012 keypad code: {v}# (changes every term)", v)
    v = "582013"
    S("door_access_code", f"クリーンルーム前室のドア暗証番号は {v} です。", v)
    v = "0623"
    S("door_access_code", f"Codice della porta della sala macchine al piano -1: {v}", v)
    v = "7734"
    S("door_access_code", f"-80 freezer room alarm disarm code is {v}, then press OFF twice", v)

    # --- bmc_password
    v = "Xq7Lp2Rn9Tz4"
    S(
        "bmc_password",
        f"ipmitool -I lanplus -H node042-bmc -U ADMIN -P '{v}' chassis power cycle",
        v,
    )
    v = "Dell-R750!stor"
    S("bmc_password", f"iDRAC root password on the storage heads (stor01/stor02): {v}", v)
    v = "Ilo5_Kanri2024"
    S("bmc_password", f"GPU ノードの iLO 管理者パスワード: {v}", v)
    v = "Bmc!Rack12ipmi"
    S("bmc_password", f"Password IPMI dei nodi del rack 12: {v}", v)

    # --- totp_seed
    v = base32_seed(32)
    S("totp_seed", f"otpauth://totp/UniVPN:rcg-oncall?secret={v}&issuer=UniVPN", v)
    v = " ".join(base32_seed(4) for _ in range(8))
    S(
        "totp_seed",
        f"Shared 2FA seed for the Thermo Fisher support portal (add to the on-call phone): {v}",
        v,
    )
    v = base32_seed(16)
    S("totp_seed", f"共有アカウントの二段階認証シークレット: {v}", v)

    # --- recovery_codes
    v = " ".join(f"{hx(5)}-{hx(5)}" for _ in range(8))
    S("recovery_codes", f"GitHub org owner (rcg-admin) recovery codes: {v}", v)
    v = ", ".join(digits(8) for _ in range(6))
    S("recovery_codes", f"Codici di backup dell'account Google del laboratorio: {v}", v)
    v = "\n".join(f"{rs(4, LOWER_NUM)}-{rs(4, LOWER_NUM)}" for _ in range(5))
    S("recovery_codes", f"Slack 管理者アカウントのバックアップコード:\n{v}", v)

    # --- stripe_secret_key
    v = "sk_live_51" + rs(97)
    S("stripe_secret_key", f"STRIPE_SECRET_KEY={v}", v)
    v = "sk_live_51" + rs(97)
    S(
        "stripe_secret_key",
        f"Chiave segreta Stripe per le iscrizioni alla summer school HPC: {v}",
        v,
    )
    v = "rk_live_51" + rs(97)
    S(
        "stripe_secret_key",
        f"Restricted key for the core-facility billing export (charges:read): {v}",
        v,
    )

    # --- sendgrid_api_key
    v = f"SG.{rs(22, URLSAFE)}.{rs(43, URLSAFE)}"
    S("sendgrid_api_key", f"SENDGRID_API_KEY={v}", v)
    v = f"SG.{rs(22, URLSAFE)}.{rs(43, URLSAFE)}"
    S("sendgrid_api_key", f"予約システムの通知メール用 SendGrid キー: {v}", v)

    # --- twilio_auth_token
    v = hx(32)
    S("twilio_auth_token", f"TWILIO_ACCOUNT_SID=AC{hx(32)}\nTWILIO_AUTH_TOKEN={v}", v)
    v = hx(32)
    S("twilio_auth_token", f"SMS alerts for LN2 level (Twilio): auth token {v}", v)

    # --- matlab_file_installation_key
    v = fik()
    S(
        "matlab_file_installation_key",
        f"MATLAB R2024b File Installation Key (campus-wide TAH, offline install on instrument PCs): {v}",
        v,
    )
    v = fik()
    S(
        "matlab_file_installation_key",
        f"MATLAB のファイルインストールキー（ネットワークライセンス用）: {v}",
        v,
    )
    v = fik()
    S(
        "matlab_file_installation_key",
        f"Chiave di installazione MATLAB per il PC del laboratorio di elettrofisiologia: {v}",
        v,
    )

    # --- licence_portal_password
    v = "Glide&Maestro24"
    S("licence_portal_password", f"Schrödinger licence portal: rcg-licences@uni.example / {v}", v)
    v = "Gauss16_hosyu!"
    S("licence_portal_password", f"Gaussian 保守サイトのログイン: ID rcg-uni、パスワード {v}", v)
    v = "Fluent.Ansys_77"
    S(
        "licence_portal_password",
        f"Portale licenze ANSYS: utente licenze.dip@uni.example, password {v}",
        v,
    )

    # --- grant_portal_password
    v = "eRad#Jimu2025"
    S(
        "grant_portal_password",
        f"e-Rad 事務代表者アカウント: ログインID erad_jimu01 / パスワード {v}",
        v,
    )
    v = "Prin2022!Mur"
    S(
        "grant_portal_password",
        f"Credenziali del portale PRIN (MUR) per il prof. Bianchi: utente g.bianchi, password {v}",
        v,
    )
    v = "UKRI-Funding#88"
    S(
        "grant_portal_password",
        f"UKRI Funding Service login for the PI's submission: pi.smith@uni.example / {v} (PI asked us to upload the DMP)",
        v,
    )
    v = "EuLogin.Horizon5"
    S(
        "grant_portal_password",
        f"EU Login for the Funding & Tenders portal (LEAR account): lear.research@uni.example pw {v}",
        v,
    )

    # --- orcid_client_secret
    v = uid()
    S(
        "orcid_client_secret",
        f"ORCID member API: client_id APP-{rs(16, UPPER_NUM)}, client_secret {v}",
        v,
    )
    v = uid()
    S("orcid_client_secret", f"ORCID_CLIENT_SECRET={v}", v)
    v = uid()
    S("orcid_client_secret", f"リポジトリ連携用 ORCID のクライアントシークレット: {v}", v)

    # --- zenodo_token
    v = rs(60)
    S("zenodo_token", f"ZENODO_TOKEN={v}", v)
    v = rs(60)
    S(
        "zenodo_token",
        f'curl -H "Authorization: Bearer {v}" https://zenodo.org/api/deposit/depositions',
        v,
    )
    v = rs(60)
    S("zenodo_token", f"Token Zenodo (deposit:write) del gruppo per pubblicare i dataset: {v}", v)

    # --- figshare_token
    v = hx(128)
    S("figshare_token", f"figshare personal token for the institutional account: {v}", v)
    v = hx(128)
    S("figshare_token", f"FIGSHARE_TOKEN={v}", v)

    # --- vault_token
    v = "hvs." + rs(24)
    S("vault_token", f"export VAULT_TOKEN={v}", v)
    v = "hvs." + rs(24)
    S("vault_token", f"vault login {v}   # root token from the re-init, revoke after setup!", v)
    v = "hvs." + rs(24)
    S("vault_token", f"Token Vault con policy lims-app, TTL 720h: {v}", v)

    # --- grafana_token
    v = f"glsa_{rs(32)}_{hx(8)}"
    S("grafana_token", f"GRAFANA_TOKEN={v}", v)
    v = f"glsa_{rs(32)}_{hx(8)}"
    S("grafana_token", f"Grafana のサービスアカウントトークン（ダッシュボード自動生成用）: {v}", v)
    v = f"glsa_{rs(32)}_{hx(8)}"
    S(
        "grafana_token",
        f'curl -H "Authorization: Bearer {v}" https://grafana.hpc.uni.example/api/dashboards/uid/slurm-overview',
        v,
    )

    # --- pypi_token
    v = "pypi-AgEIcHlwaS5vcmc" + rs(140, URLSAFE)
    S("pypi_token", f"[pypi]\n  username = __token__\n  password = {v}", v)
    v = "pypi-AgEIcHlwaS5vcmc" + rs(140, URLSAFE)
    S("pypi_token", f"TWINE_PASSWORD={v}", v)

    # --- django_secret_key
    dj = string.ascii_lowercase + string.digits + "!@#%^&*(-_=+)"
    v = rs(50, dj)
    S("django_secret_key", f"SECRET_KEY = '{v}'", v)
    v = rs(50, dj)
    S("django_secret_key", f"DJANGO_SECRET_KEY={v}", v)
    v = rs(50, dj)
    S(
        "django_secret_key",
        f"Chiave segreta Django del sistema di prenotazione strumenti (produzione): {v}",
        v,
    )

    # --- backup_passphrase
    v = "torta-nebbia-ciclotrone-vaso"
    S("backup_passphrase", f"Passphrase del repository restic per /home del cluster: {v}", v)
    v = "correct-pipette-orbit-gravel-71"
    S(
        "backup_passphrase",
        f"RESTIC_REPOSITORY=s3:https://s3.rds.uni.example/restic-home\nRESTIC_PASSWORD={v}",
        v,
    )
    v = "Sakura-kenbikyo-2025-hozon"
    S("backup_passphrase", f"BorgBackup のリポジトリパスフレーズ（装置データ退避用）: {v}", v)
    v = "granite walrus pipette ozone"
    S("backup_passphrase", f"export BORG_PASSPHRASE='{v}'", v)

    # --- luks_passphrase
    v = "Scratch luks disk 4 tb!"
    S(
        "luks_passphrase",
        f"LUKS passphrase for the encrypted scratch disk on the patient-data workstation: {v}",
        v,
    )
    v = "Anzen_Dhisuku#2024"
    S("luks_passphrase", f"持ち出し用外付けディスクの LUKS パスフレーズ: {v}", v)
    v = "DatiClinici!Cifrati9"
    S("luks_passphrase", f"cryptsetup open /dev/sdb1 dati_clinici — passphrase: {v}", v)

    # --- wifi_psk
    v = "InstrNet-5GHz!2024"
    S("wifi_psk", f"Instrument Wi-Fi (SSID LAB-INSTR, WPA2-PSK): {v}", v)
    v = "kenkyu-shitsu-0815"
    S("wifi_psk", f"実験室の装置用 Wi-Fi パスワード（SSID: lab-iot）: {v}", v)
    v = "LabOspiti2025!"
    S("wifi_psk", f"Wi-Fi ospiti del dipartimento (SSID DIP-OSPITI): {v}", v)

    # --- keycloak_client_secret
    v = rs(32)
    S("keycloak_client_secret", f"OIDC client 'jupyterhub' in Keycloak realm hpc: secret {v}", v)
    v = rs(32)
    S(
        "keycloak_client_secret",
        f"c.GenericOAuthenticator.client_id = 'jupyterhub'\nc.GenericOAuthenticator.client_secret = '{v}'",
        v,
    )
    v = rs(32)
    S("keycloak_client_secret", f"Keycloak の open-ondemand クライアントのシークレット: {v}", v)

    # --- harbor_robot_secret
    v = rs(32)
    S(
        "harbor_robot_secret",
        f"docker login registry.hpc.uni.example -u 'robot$apptainer-builds' -p {v}",
        v,
    )
    v = rs(32)
    S("harbor_robot_secret", f"Harbor robot account robot$ci-push secret: {v}", v)
    v = rs(32)
    S(
        "harbor_robot_secret",
        f"Segreto del robot Harbor per il pull delle immagini sui nodi: {v}",
        v,
    )

    # --- smtp_password
    v = " ".join(rs(4, string.ascii_lowercase) for _ in range(4))
    S("smtp_password", f"Gmail app password for hpc-noreply@uni.example (SLURM MailProg): {v}", v)
    v = "Posta!Slurm2025"
    S("smtp_password", f"SMTP_HOST=smtp.uni.example\nSMTP_USER=noreply-lims\nSMTP_PASSWORD={v}", v)
    v = "Mail_Tsuchi77"
    S("smtp_password", f"メール通知用 SMTP アカウント（notice@lab）のパスワード: {v}", v)

    # --- redis_password
    v = rs(32)
    S("redis_password", f"REDIS_URL=redis://:{v}@redis-lims:6379/0", v)
    v = "Coda_Redis#44"
    S("redis_password", f"requirepass {v}", v)
    v = rs(24)
    S("redis_password", f"redis-cli -h ood-cache -a {v} ping", v)


def benign_rows():
    # --- slurm_job_id
    v = "48213377"
    B("slurm_job_id", f"Job {v} on gpu-a100 OOM-killed at step 3; resubmitted with --mem=480G.", v)
    v = "51900214_17"
    B("slurm_job_id", f"sacct -j {v} --format=JobID,State,Elapsed,MaxRSS", v)
    v = "50122981"
    B("slurm_job_id", f"ジョブ {v} が NODE_FAIL で落ちた。node117 をドレイン済み。", v)
    v = "49877310"
    B(
        "slurm_job_id",
        f"Il job {v} è rimasto in PENDING (Reason=AssocGrpGRESMinutes): quota GPU esaurita.",
        v,
    )

    # --- slurm_account
    v = "prj-cryoem-2025"
    B("slurm_account", f"sacctmgr add user gbianchi account={v} partition=gpu", v)
    v = "kaken_23K01234"
    B("slurm_account", f"#SBATCH --account={v}\n#SBATCH --partition=short", v)
    v = "rcg-teaching"
    B("slurm_account", f"Students in the HPC course charge to account {v}, fairshare 50.", v)

    # --- hostname
    v = "slurmctld01.hpc.uni.example"
    B("hostname", f"SlurmctldHost={v.split('.')[0]}({v})", v)
    v = "dtn02.rds.uni.example"
    B("hostname", f"Globus DTN は {v} に移行しました。", v)
    v = "lims-prod-03.chimica.uni.example"
    B("hostname", f"Il LIMS ora gira su {v} (VM, 8 vCPU).", v)

    # --- ssh_public_key
    v = "ssh-ed25519 " + ed25519_pub() + " mrossi@laptop"
    B("ssh_public_key", f"Please add my public key to the cluster: {v}", v)
    v = "ssh-ed25519 " + ed25519_pub() + " tanaka@instrument-pc"
    B("ssh_public_key", f"authorized_keys に追加する公開鍵:\n{v}", v)
    v = "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABgQ" + b64(270)[:340] + " rsync@krios-pc"
    B("ssh_public_key", f'command="rrsync /data/krios",restrict {v}', v)
    v = "ssh-ed25519 " + ed25519_pub()
    B(
        "ssh_public_key",
        f"Chiave pubblica del nodo di trasferimento (da mettere in authorized_keys): {v}",
        v,
    )

    # --- ssh_host_fingerprint
    v = "SHA256:" + b64(32).rstrip("=")
    B(
        "ssh_host_fingerprint",
        f"login01 host key fingerprint (ED25519): {v} — check this before typing yes.",
        v,
    )
    v = "SHA256:" + b64(32).rstrip("=")
    B("ssh_host_fingerprint", f"ログインノードの新しいホスト鍵フィンガープリント: {v}", v)
    v = "SHA256:" + b64(32).rstrip("=")
    B("ssh_host_fingerprint", f"ED25519 key fingerprint is {v}.", v)

    # --- x509_certificate
    v = pem("CERTIFICATE", 700)
    B(
        "x509_certificate",
        f"Public cert of the campus licence server, for pinning in the client:\n{v}",
        v,
    )
    v = pem("CERTIFICATE", 650)
    B("x509_certificate", f"Certificato CA interno (da installare nei PC strumento):\n{v}", v)
    v = pem("CERTIFICATE", 620)
    B("x509_certificate", f"JupyterHub の中間証明書（公開情報）:\n{v}", v)

    # --- git_commit_sha
    v = hx(40)
    B("git_commit_sha", f"slurm.conf change deployed from commit {v}", v)
    v = hx(7)
    B("git_commit_sha", f"Reverted {v} (broke the GRES autodetect on the H100 nodes).", v)
    v = hx(40)
    B("git_commit_sha", f"ansible-hpc のタグ v2.14.0 は {v} を指しています。", v)
    v = hx(12)
    B(
        "git_commit_sha",
        f"Il fix per il parser dei file .raw è nel commit {v} del repo lims-plugins.",
        v,
    )

    # --- sha256_checksum
    v = hx(64)
    B("sha256_checksum", f"{v}  run_20250912_NovaSeq_S4.tar", v)
    v = hx(64)
    B("sha256_checksum", f"Checksum SHA-256 del dataset depositato su Zenodo: {v}", v)
    v = hx(64)
    B("sha256_checksum", f"転送後の sha256 が一致: {v}", v)
    v = hx(64)
    B("sha256_checksum", f'{{"file": "grid3_atlas.mrc", "sha256": "{v}", "bytes": 2147483648}}', v)

    # --- md5_checksum
    v = hx(32)
    B(
        "md5_checksum",
        f"md5sum reported {v} for sample_A12_R1.fastq.gz, matches the sequencing core manifest.",
        v,
    )
    v = hx(32)
    B("md5_checksum", f'ETag dell\'oggetto S3 (md5): "{v}"', v)
    v = hx(32)
    B("md5_checksum", f"MD5 ({v}) を LIMS の添付ファイル欄に記録。", v)

    # --- doi
    v = "10.5281/zenodo.14207735"
    B("doi", f"Dataset DOI: https://doi.org/{v}", v)
    v = "10.1038/s41592-024-02391-7"
    B("doi", f"論文 DOI {v} を謝辞付きで HPC 利用実績に登録。", v)
    v = "10.6084/m9.figshare.26817453.v2"
    B("doi", f"Cita il dataset come {v}.", v)

    # --- orcid_id
    v = "0000-0002-1825-0097"
    B("orcid_id", f"PI ORCID: https://orcid.org/{v}", v)
    v = "0000-0003-4417-286X"
    B("orcid_id", f"共同研究者の ORCID iD は {v} です。", v)
    v = "0000-0001-7324-5561"
    B("orcid_id", f"ORCID della dottoranda da inserire nella domanda: {v}", v)

    # --- orcid_client_id
    v = "APP-" + rs(16, UPPER_NUM)
    B(
        "orcid_client_id",
        f"ORCID public API client id for the repository login button: {v} (secret is in Vault)",
        v,
    )
    v = "APP-" + rs(16, UPPER_NUM)
    B("orcid_client_id", f"ORCID_CLIENT_ID={v}", v)

    # --- grant_reference
    v = "EP/X012345/1"
    B("grant_reference", f"Compute time for grant {v} ends 2026-09-30; extend allocation?", v)
    v = "23K01234"
    B("grant_reference", f"科研費 基盤研究(C) 課題番号 {v} の計算機利用料を計上。", v)
    v = "2022ABCD12"
    B("grant_reference", f"Progetto PRIN {v}: rendicontazione delle ore macchina entro giugno.", v)
    v = "101086743"
    B("grant_reference", f"Horizon Europe grant agreement No {v} — acknowledge in every paper.", v)
    v = "JPMJCR22B1"
    B("grant_reference", f"JST CREST 課題番号 {v} のデータ管理計画を更新。", v)

    # --- aws_documented_example
    v = "AKIAIOSFODNN7EXAMPLE"
    B(
        "aws_documented_example",
        f"The AWS docs use {v} as the access key id in examples; ours look nothing like that.",
        v,
    )
    v = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
    B("aws_documented_example", f"# example from the AWS CLI guide\naws_secret_access_key = {v}", v)
    v = "AKIAIOSFODNN7EXAMPLE"
    B(
        "aws_documented_example",
        f"Esempio dalla documentazione AWS (non reale): aws_access_key_id = {v}",
        v,
    )

    # --- placeholder
    v = "<your-hf-token>"
    B("placeholder", f"huggingface-cli login --token {v}", v)
    v = "CHANGE_ME_BEFORE_DEPLOY"
    B(
        "placeholder",
        f"c.JupyterHub.cookie_secret_file = '/srv/jupyterhub/cookie_secret'  # template value: {v}",
        v,
    )
    v = "xxxxxxxxxxxxxxxxxxxxxxxx"
    B(
        "placeholder",
        f"SLACK_WEBHOOK_URL=https://hooks.slack.com/services/T00000000/B00000000/{v}",
        v,
    )
    v = "<パスワード>"
    B("placeholder", f"mysql -u slurm -p'{v}' slurm_acct_db  ※実際の値は Vault を参照", v)
    v = "INSERIRE_QUI_LA_CHIAVE"
    B("placeholder", f"BENCHLING_API_KEY={v}", v)

    # --- env_var_reference
    v = "${SLURM_JWT}"
    B(
        "env_var_reference",
        f'curl -H "X-SLURM-USER-TOKEN: {v}" https://slurmrest.hpc.uni.example/slurm/v0.0.40/diag',
        v,
    )
    v = "$HF_TOKEN"
    B("env_var_reference", f"huggingface-cli login --token {v}", v)
    v = "os.environ['ZENODO_TOKEN']"
    B("env_var_reference", f"headers = {{'Authorization': f\"Bearer {{{v}}}\"}}", v)
    v = "${{ secrets.HARBOR_ROBOT_SECRET }}"
    B(
        "env_var_reference",
        f"      - run: echo \"{v}\" | docker login registry.hpc.uni.example -u 'robot$ci-push' --password-stdin",
        v,
    )
    v = "%LABARCHIVES_PASSWORD%"
    B("env_var_reference", f"装置PCのバッチでは {v} を使う（値はユーザ環境変数に設定済み）。", v)

    # --- vault_path
    v = "secret/data/hpc/ldap/svc-jhub"
    B("vault_path", f"LDAP bind password for JupyterHub is in Vault at {v} (key: password).", v)
    v = "kv/rcg/instruments/krios-pc"
    B("vault_path", f"Password admin del PC Krios: vedi Vault {v}", v)
    v = "secret/lims/prod/db"
    B("vault_path", f"vault kv get -field=url {v}", v)
    v = "op://RCG-Infra/iDRAC stor01/password"
    B("vault_path", f"iDRAC のパスワードは 1Password の {v} を参照。", v)

    # --- masked_token
    v = "ghp_************************Xk2Q"
    B("masked_token", f"GitHub shows the bot token as {v}; it expires 2027-02-01.", v)
    v = "sk_live_51…••••9fQe"
    B("masked_token", f"Stripe dashboard: chiave segreta {v} (solo ultimi caratteri visibili)", v)
    v = "hf_****...****wzLp"
    B("masked_token", f"HF トークン（{v}）は W&B の ID と同じ人が管理。", v)
    v = "glpat-••••••••••••••••"
    B("masked_token", f"Project access token {v} (Maintainer, expires in 30 days)", v)
    v = "xoxb-****-****-****"
    B("masked_token", f"Slack bot token: {v} [masked by the agent]", v)

    # --- redacted_password
    v = "********"
    B("redacted_password", f"StoragePass={v}", v)
    v = "[REDACTED]"
    B("redacted_password", f"iDRAC root / {v} — ask Marco on Signal", v)
    v = "＊＊＊＊（口頭で伝達）"
    B("redacted_password", f"装置PC 管理者パスワード: {v}", v)
    v = "<omissis>"
    B("redacted_password", f"Password del portale PRIN: {v}", v)

    # --- revoked_token
    v = "ghp_" + rs(36)
    B(
        "revoked_token",
        f"REVOKED 2026-11-03 after it was pasted in #general: {v} — replaced, do not use.",
        v,
    )
    v = "glpat-" + rs(20, URLSAFE)
    B("revoked_token", f"このトークンは失効済み（2026-10-21 に漏えい対応で revoke）: {v}", v)
    v = "hf_" + rs(34, string.ascii_letters)
    B("revoked_token", f"Token revocato il 12/09, non più valido: {v}", v)
    v = f"glsa_{rs(32)}_{hx(8)}"
    B(
        "revoked_token",
        f"Old Grafana service-account token {v} was deleted in the UI on 2026-08-30 (status: revoked).",
        v,
    )

    # --- instrument_serial
    v = "3812-0417"
    B("instrument_serial", f"Titan Krios G4 serial {v}; service contract renews in April.", v)
    v = "FS10004563"
    B("instrument_serial", f"Orbitrap Exploris 480 S/N {v}", v)
    v = "2800000218"
    B("instrument_serial", f"共焦点顕微鏡 LSM 980 のシリアル番号: {v}", v)
    v = "A00421"
    B("instrument_serial", f"Numero di serie del NovaSeq 6000: {v}", v)

    # --- asset_tag
    v = "UNI-IT-0048213"
    B("asset_tag", f"Instrument PC asset tag {v}, Windows 10 LTSC, not on domain.", v)
    v = "INV-DIP-2019-00731"
    B("asset_tag", f"Numero di inventario del diffrattometro: {v}", v)
    v = "資産番号 K-2021-0563"
    B("asset_tag", f"GPU サーバ（{v}）の廃棄手続きを開始。", v)

    # --- mac_address
    v = "3c:ec:ef:4a:91:0e"
    B("mac_address", f"node042 BMC MAC {v} → DHCP reservation 10.20.42.42", v)
    v = "00-1B-21-AF-37-C2"
    B("mac_address", f"装置PCの MAC アドレス: {v}（装置ネットワーク登録用）", v)
    v = "b8:27:eb:12:6d:50"
    B("mac_address", f"MAC del Raspberry Pi che legge il livello di azoto: {v}", v)

    # --- ip_address
    v = "10.40.2.15"
    B("ip_address", f"Cryostat control PC is on {v} (instrument VLAN 402).", v)
    v = "192.168.77.0/24"
    B("ip_address", f"装置ネットワークのサブネットは {v}。", v)
    v = "172.16.8.10"
    B("ip_address", f"Server licenze FlexLM: {v}, porta 27000", v)

    # --- dataset_uuid
    v = uid()
    B("dataset_uuid", f"RDS dataset id {v} (project: cryoem-ribosome, retention 10y)", v)
    v = uid()
    B("dataset_uuid", f"データセット UUID: {v}", v)
    v = uid()
    B("dataset_uuid", f'{{"dataset_id": "{v}", "owner": "gbianchi", "size_tb": 12.4}}', v)

    # --- lims_sample_id
    v = "S-2025-004817"
    B("lims_sample_id", f"LIMS sample {v} failed QC (RIN 5.1), rerun library prep.", v)
    v = "PRT-24-1193-B"
    B("lims_sample_id", f"Campione {v} registrato nel LIMS di proteomica.", v)
    v = "LIMS#77120"
    B("lims_sample_id", f"検体 {v} の結果を ELN にリンク。", v)

    # --- eln_entry_id
    v = "EXP-2025-0912-03"
    B("eln_entry_id", f"See ELN entry {v} for the grid prep conditions.", v)
    v = "https://elab.uni.example/experiments.php?mode=view&id=4821"
    B("eln_entry_id", f"Esperimento in eLabFTW: {v}", v)
    v = "etr_1aB3cD5e"
    B("eln_entry_id", f"Benchling のエントリ ID: {v}", v)

    # --- ticket_reference
    v = "INC0098213"
    B(
        "ticket_reference",
        f"Opened {v} with central IT for the firewall rule to the licence server.",
        v,
    )
    v = "RT#58812"
    B("ticket_reference", f"{v}: utente chiede più quota su /scratch.", v)
    v = "HPC-4471"
    B("ticket_reference", f"Jira {v}: JupyterHub のスポーンタイムアウトを延長。", v)
    v = "Case 07731902"
    B("ticket_reference", f"Thermo Fisher support {v} — EPU crashes on atlas acquisition.", v)

    # --- licence_server_address
    v = "27000@lic01.uni.example"
    B("licence_server_address", f"export LM_LICENSE_FILE={v}", v)
    v = "1055@flexlm.hpc.uni.example"
    B("licence_server_address", f"ANSYSLMD_LICENSE_FILE={v}", v)
    v = "27001@licenze.dip.uni.example"
    B("licence_server_address", f"Server licenze MATLAB per il dipartimento: {v}", v)
    v = "SERVER lic01 0050569a3f21 27000"
    B("licence_server_address", f"license.dat の先頭行: {v}", v)

    # --- flexlm_hostid
    v = "0050569a3f21"
    B(
        "flexlm_hostid",
        f'lmhostid on lic01 returns "{v}" — send this to the vendor for the new licence file.',
        v,
    )
    v = "HOSTID=ID_STRING=7a3c91f0"
    B("flexlm_hostid", f"VENDOR feature pinned with {v}", v)
    v = "b8ca3a5f0e11"
    B("flexlm_hostid", f"Host ID del server licenze comunicato al fornitore: {v}", v)

    # --- matlab_license_number
    v = "40812345"
    B("matlab_license_number", f"MATLAB campus licence number {v} (TAH, academic).", v)
    v = "1123456"
    B("matlab_license_number", f"MATLAB のライセンス番号 {v} を問い合わせに記載。", v)
    v = "41001177"
    B("matlab_license_number", f"Numero di licenza MATLAB del laboratorio: {v}", v)

    # --- stripe_publishable_key
    v = "pk_live_51" + rs(97)
    B(
        "stripe_publishable_key",
        f"Publishable key for the summer school registration page (safe in the front-end): {v}",
        v,
    )
    v = "pk_live_51" + rs(97)
    B("stripe_publishable_key", f"STRIPE_PUBLISHABLE_KEY={v}", v)

    # --- recaptcha_site_key
    v = "6L" + rs(38, URLSAFE)
    B("recaptcha_site_key", f'<div class="g-recaptcha" data-sitekey="{v}"></div>', v)
    v = "6L" + rs(38, URLSAFE)
    B("recaptcha_site_key", f"reCAPTCHA サイトキー（公開）: {v}", v)

    # --- container_image_digest
    v = "sha256:" + hx(64)
    B(
        "container_image_digest",
        f"apptainer pull docker://registry.hpc.uni.example/rcg/relion@{v}",
        v,
    )
    v = "sha256:" + hx(64)
    B("container_image_digest", f"Digest dell'immagine alphafold3 in uso sui nodi GPU: {v}", v)
    v = "sha256:" + hx(64)
    B("container_image_digest", f"singleuser イメージの digest を固定: {v}", v)

    # --- software_version
    v = "24.05.4"
    B("software_version", f"Upgraded Slurm to {v} on all nodes; slurmdbd first.", v)
    v = "EPU 3.7.1.6209"
    B("software_version", f"Krios の {v} に更新後、atlas が表示されない。", v)
    v = "5.0.3"
    B("software_version", f"JupyterHub {v}, configurable-http-proxy 4.6.2.", v)
    v = "TopSpin 4.4.0"
    B("software_version", f"Aggiornato {v} sulla console NMR 600.", v)

    # --- pip_hash
    v = "sha256:" + hx(64)
    B("pip_hash", f"jupyterhub==5.0.3 \\\n    --hash={v}", v)
    v = "sha256:" + hx(64)
    B("pip_hash", f"requirements.lock: batchspawner==1.3.0 --hash={v}", v)

    # --- kerberos_principal
    v = "HTTP/jupyter.hpc.uni.example@UNI.EXAMPLE"
    B("kerberos_principal", f"Keytab for {v} goes to /etc/krb5.keytab on the hub VM.", v)
    v = "host/login01.hpc.uni.example@HPC.UNI.EXAMPLE"
    B("kerberos_principal", f"ktutil で {v} を追加。", v)
    v = "nfs/stor01.hpc.uni.example@HPC.UNI.EXAMPLE"
    B("kerberos_principal", f"Principal NFS del server di storage: {v}", v)

    # --- ldap_dn
    v = "cn=svc-jhub,ou=service,dc=hpc,dc=uni,dc=example"
    B("ldap_dn", f"Bind DN for the hub: {v} (password in Vault)", v)
    v = "ou=people,dc=hpc,dc=uni,dc=example"
    B("ldap_dn", f"ldap_user_search_base = {v}", v)
    v = "cn=lab-bianchi,ou=groups,dc=hpc,dc=uni,dc=example"
    B("ldap_dn", f"Gruppo LDAP del laboratorio: {v}", v)

    # --- jupyterhub_user_url
    v = "https://jupyter.hpc.uni.example/user/tanaka_k/lab"
    B("jupyterhub_user_url", f"ユーザのサーバ URL: {v}", v)
    v = "https://jupyter.hpc.uni.example/hub/spawn/mrossi/gpu"
    B("jupyterhub_user_url", f"Named server link for the course: {v}", v)

    # --- s3_bucket_arn
    v = "arn:aws:s3:::uni-rcg-genomics-archive"
    B("s3_bucket_arn", f"Bucket policy applies to {v}/* (Glacier after 30 days).", v)
    v = "s3://rds-cryoem-raw/2025/krios/"
    B("s3_bucket_arn", f"I dati grezzi del Krios vanno in {v}", v)
    v = "arn:aws:iam::482113907765:role/rcg-burst-node"
    B("s3_bucket_arn", f"クラウドバーストノードの IAM ロール: {v}", v)

    # --- azure_tenant_id
    v = uid()
    B("azure_tenant_id", f"Uni Entra ID tenant id: {v}", v)
    v = uid()
    B("azure_tenant_id", f"ID sottoscrizione Azure per il progetto di archiviazione: {v}", v)
    v = uid()
    B("azure_tenant_id", f"AZURE_CLIENT_ID={v}  # アプリ ELN-SSO（シークレットは Key Vault）", v)

    # --- slack_channel_id
    v = "C05" + rs(8, UPPER_NUM)
    B("slack_channel_id", f"Post SLURM outage notices to channel {v} (#hpc-announce).", v)
    v = "U02" + rs(8, UPPER_NUM)
    B("slack_channel_id", f"on-call の Slack ユーザ ID: {v}", v)

    # --- password_policy
    v = "at least 14 characters, no reuse of the last 5, rotated every 180 days"
    B("password_policy", f"Cluster password policy: {v}.", v)
    v = "12文字以上、英大文字・小文字・数字・記号を含むこと"
    B("password_policy", f"装置PCのパスワード規則: {v}。", v)
    v = "minimo 12 caratteri, cambio ogni 6 mesi, niente password condivise sui PC strumento"
    B("password_policy", f"Regola di ateneo: {v}.", v)
    v = "minlen = 14"
    B("password_policy", f"/etc/security/pwquality.conf:\n{v}\ndcredit = -1\nucredit = -1", v)

    # --- pgp_fingerprint
    v = " ".join(hx(4).upper() for _ in range(10))
    B("pgp_fingerprint", f"RCG security contact PGP key fingerprint: {v}", v)
    v = hx(40).upper()
    B("pgp_fingerprint", f"gpg --recv-keys {v}", v)
    v = hx(16).upper()
    B("pgp_fingerprint", f"Chiave GPG per firmare i pacchetti RPM interni: {v}", v)

    # --- bitlocker_key_id
    v = uid().upper()
    B("bitlocker_key_id", f"BitLocker key ID {v} — recovery key itself is escrowed in Entra ID.", v)
    v = uid().upper()[:8]
    B("bitlocker_key_id", f"回復キー ID: {v}（回復キー本体は AD に保管）", v)
    v = "{" + uid().upper() + "}"
    B("bitlocker_key_id", f"Identificatore della protezione numerica: {v}", v)

    # --- booking_reference
    v = "KRIOS-2025-W38-02"
    B("booking_reference", f"Krios session {v}: 48 h, grids from the Bianchi lab.", v)
    v = "PPMS #118204"
    B("booking_reference", f"Prenotazione {v} per il citofluorimetro, martedì 9-13.", v)
    v = "予約番号 NMR-0917-4"
    B("booking_reference", f"600 MHz NMR の{v}をキャンセル。", v)

    # --- purchase_order
    v = "PO-4500231187"
    B("purchase_order", f"Renewal of the Schrödinger licence billed on {v}.", v)
    v = "ODA 2025/0412"
    B("purchase_order", f"Ordine {v} per le nuove schede GPU.", v)
    v = "発注番号 R7-003381"
    B("purchase_order", f"{v}（GPU ノード 4 台）納品済み。", v)

    # --- ethics_approval
    v = "REC 24/LO/0917"
    B(
        "ethics_approval",
        f"Patient imaging data under ethics approval {v}; store only on the secure partition.",
        v,
    )
    v = "Prot. CE 112/2024"
    B("ethics_approval", f"Parere del comitato etico {v}.", v)
    v = "承認番号 2024-0381"
    B("ethics_approval", f"倫理審査委員会 {v} のデータは暗号化領域のみ。", v)

    # --- password_hash
    v = "$2y$10$" + rs(53, ALNUM + "./")
    B("password_hash", f"htpasswd entry for the Grafana proxy: admin:{v}", v)
    v = "$6$" + rs(16, ALNUM + "./") + "$" + rs(86, ALNUM + "./")
    B("password_hash", f"root のハッシュ（/etc/shadow、イメージ作成時のもの）: {v}", v)
    v = "sha256$" + rs(16) + "$" + hx(64)
    B(
        "password_hash",
        f"Hash della password salvato nel DB di JupyterHub NativeAuthenticator: {v}",
        v,
    )

    # --- huggingface_repo_id
    v = "uni-rcg/esm2-finetuned-kinases"
    B("huggingface_repo_id", f"Model pushed to https://huggingface.co/{v}", v)
    v = "meta-llama/Llama-3.1-8B-Instruct"
    B("huggingface_repo_id", f"ゲート付きモデル {v} の利用申請が通った。", v)

    # --- wandb_run_id
    v = rs(8, LOWER_NUM)
    B("wandb_run_id", f"W&B run {v} diverged after epoch 12 (lr too high).", v)
    v = f"uni-ml-lab/cryo-denoise/runs/{rs(8, LOWER_NUM)}"
    B("wandb_run_id", f"Run di riferimento: https://wandb.ai/{v}", v)

    # --- erad_researcher_number
    v = "80412345"
    B("erad_researcher_number", f"研究者番号 {v}（e-Rad 登録済み）", v)
    v = "50733921"
    B("erad_researcher_number", f"Co-investigator's e-Rad researcher number: {v}", v)
    v = "90211876"
    B("erad_researcher_number", f"分担者の研究者番号: {v}", v)

    # --- cup_code
    v = "J53D23001230006"
    B("cup_code", f"CUP del progetto PNRR: {v} (da riportare su tutte le fatture)", v)
    v = "B83C22004960001"
    B("cup_code", f"Codice CUP {v} — progetto PRIN, acquisto nodi GPU.", v)
    v = "CIG A0123B4C5D"
    B("cup_code", f"Ordine del server di storage: {v}", v)

    # --- public_key_pem
    v = pem("PUBLIC KEY", 294)
    B("public_key_pem", f"slurmrestd JWT verification public key (RS256):\n{v}", v)
    v = pem("PUBLIC KEY", 294)
    B("public_key_pem", f"ライセンスサーバ署名検証用の公開鍵:\n{v}", v)

    # --- wireguard_public_key
    v = b64(32)
    B(
        "wireguard_public_key",
        f"[Peer]\n# instrument gateway lab-3\nPublicKey = {v}\nAllowedIPs = 10.99.3.0/24",
        v,
    )
    v = b64(32)
    B("wireguard_public_key", f"Chiave pubblica WireGuard del gateway strumenti: {v}", v)
    v = b64(32)
    B("wireguard_public_key", f"WireGuard 公開鍵（サーバ側）: {v}", v)

    # --- age_public_key
    v = "age1" + rs(58, "qpzry9x8gf2tvdw0s3jn54khce6mua7l")
    B(
        "age_public_key",
        f"Encrypt exported patient data to the DPO recipient: age -r {v} -o out.age",
        v,
    )
    v = "age1" + rs(58, "qpzry9x8gf2tvdw0s3jn54khce6mua7l")
    B("age_public_key", f"sops の recipient（公開鍵）: {v}", v)

    # --- twilio_account_sid
    v = "AC" + hx(32)
    B("twilio_account_sid", f"Twilio account SID for the LN2 alerts: {v} (auth token in Vault)", v)
    v = "MG" + hx(32)
    B("twilio_account_sid", f"Messaging service SID: {v}", v)

    # --- globus_collection_id
    v = uid()
    B("globus_collection_id", f"Globus collection 'UNI RDS Cryo-EM' id: {v}", v)
    v = uid()
    B("globus_collection_id", f"globus transfer {v}:/krios/2025/ {uid()}:/scratch/ --recursive", v)
    v = uid()
    B("globus_collection_id", f"Endpoint Globus del laboratorio (ID pubblico): {v}", v)

    # --- jwks_kid
    v = b64url(24)
    B("jwks_kid", f'{{"keys": [{{"kty": "RSA", "use": "sig", "alg": "RS256", "kid": "{v}"}}]}}', v)
    v = hx(40)
    B("jwks_kid", f"Keycloak realm hpc の署名鍵 kid: {v}", v)


def corpus() -> list[dict]:
    ROWS.clear()
    R.seed(SEED)
    secrets_rows()
    benign_rows()
    for row in ROWS:
        assert row["value"] in row["text"], row
        assert row["label"] in ("secret", "benign")
    return list(ROWS)


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

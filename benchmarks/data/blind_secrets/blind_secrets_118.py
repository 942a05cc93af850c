# ruff: noqa: E501, SIM115
"""Blind secret-detector corpus 118: a university research institute (HPC, labs, sequencers, freezers).

Brief: a multi-lab university research institute in Japan/Korea/Mexico collaborations. It runs an
HPC cluster with Slurm, sequencers (Illumina, ONT) and mass specs, -80 freezers with alarm
dial-outs, an electronic lab notebook, grant and ethics portals, student and guest accounts,
lab door and cold-room keypads, shared Wi-Fi and data-sharing buckets. PIs, postdocs, students,
research software engineers, facilities staff and their AI agents write the notes.
Languages: English, Japanese, Korean, Spanish (Mexico).

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Run: python blind_secrets_118.py [out.jsonl]

Kinds, secret: aws_access_key_pair, aws_secret_access_key, github_pat, github_fine_grained_pat, gitlab_pat, slack_bot_token, slack_webhook_url, discord_webhook_url, teams_webhook_url, stripe_secret_key, stripe_restricted_key, twilio_auth_token, sendgrid_api_key, openai_api_key, anthropic_api_key, google_api_key, gcp_service_account_key, ssh_private_key, postgres_connection_string, mongodb_uri, mysql_password, redis_url_password, hpc_account_password, slurm_db_password, munge_key, ipmi_bmc_password, ldap_bind_password, instrument_local_password, basespace_access_token, eln_api_key, freezer_alarm_pin, alarm_dialer_pin, door_access_code, cold_room_code, safe_combination, gate_code, wifi_psk, guest_account_password, student_temp_password, recovery_codes, passphrase, s3_presigned_url, azure_storage_connection_string, azure_sas_token, jupyterhub_api_token, vault_token, npm_token, pypi_token, docker_hub_token, huggingface_token, telegram_bot_token, mailgun_api_key, datadog_api_key, session_cookie, jwt_bearer_token, grant_portal_password, ethics_portal_password, oauth_client_secret, smtp_password, irods_password, nas_share_password, phone_voicemail_pin, card_pin, lab_laptop_password.

Kinds, benign: aws_documented_example_key, git_commit_sha, sha256_checksum, md5_checksum, ssh_public_key, ssh_key_fingerprint, gpg_key_fingerprint, stripe_publishable_key, recaptcha_site_key, password_placeholder, masked_secret, vault_reference, password_manager_reference, password_policy, revoked_token, slurm_job_id, sample_id, sequencer_run_id, flowcell_id, instrument_serial_number, asset_tag, grant_number, ethics_protocol_number, purchase_order_number, invoice_number, ticket_number, error_code, product_catalog_number, lot_number, doi, orcid_id, uuid_record_id, room_number, phone_extension, booking_reference, container_image_digest, mac_address, wifi_network_name, oauth_client_id, aws_account_id, s3_public_url, api_key_id, twilio_account_sid, slack_channel_id, freezer_alarm_threshold, student_id, course_code, license_server_address, secret_variable_reference, access_code_reference, tracking_number, cas_number, accession_number, ip_address, package_version, public_key_pem, hf_model_id, test_mode_placeholder_key, otp_instruction, keypad_battery_notice, phone_number.
"""

import json
import random
import string
import sys

SEED = 240640


def corpus():
    """Every row: {"text": ..., "label": "secret" | "benign", "kind": ...}."""
    rng = random.Random(SEED)
    rows = []
    U = string.ascii_uppercase
    L = string.ascii_lowercase
    D = string.digits
    AN = U + L + D
    HEX = "0123456789abcdef"
    URL = AN + "-_"

    def r(al, n):
        return "".join(rng.choice(al) for _ in range(n))

    def dg(n):
        return r(D, n)

    def hx(n):
        return r(HEX, n)

    def HX(n):
        return r(HEX.upper(), n)

    def an(n):
        return r(AN, n)

    def b64(n):
        return r(AN + "+/", n)

    def ul(n):
        return r(URL, n)

    words = [
        "Sakura",
        "Hanabi",
        "Tsukimi",
        "Nopal",
        "Cenote",
        "Tlaloc",
        "Hangang",
        "Bukhansan",
        "Ribosoma",
        "Pipeta",
        "Kimchi",
        "Mole",
        "Jacaranda",
        "Momiji",
        "Gyoza",
        "Axolotl",
        "Centrifuga",
        "Helix",
        "Plasmid",
        "Matcha",
        "Tamal",
        "Hallasan",
        "Kyoto",
        "Oaxaca",
    ]
    seps = ["!", "#", ".", "@", "$", "_", "-", "*", "%", "&"]

    def pw():
        k = rng.randint(0, 4)
        w = rng.choice(words)
        if k == 0:
            return w + rng.choice(seps) + dg(rng.randint(2, 4))
        if k == 1:
            return w.lower() + "." + rng.choice(words) + dg(2)
        if k == 2:
            return dg(2) + w + rng.choice(seps) + rng.choice(words).lower()
        if k == 3:
            return w[:1].lower() + w[1:].upper() + dg(3) + rng.choice(seps)
        return rng.choice(words) + rng.choice(seps) + w.lower() + dg(rng.randint(1, 3))

    def S(kind, *texts):
        for t in texts:
            rows.append({"text": t, "label": "secret", "kind": kind})

    def B(kind, *texts):
        for t in texts:
            rows.append({"text": t, "label": "benign", "kind": kind})

    # ------------------------------------------------------------------ secrets
    S(
        "aws_access_key_pair",
        f"bucket sync for the ONT runs: AWS_ACCESS_KEY_ID=AKIA{r(U + D, 16)} AWS_SECRET_ACCESS_KEY={b64(40)}",
        f"[profile datashare]\naws_access_key_id = AKIA{r(U + D, 16)}\naws_secret_access_key = {b64(40)}",
        f"Koreaの共同研究先に渡したIAM: AKIA{r(U + D, 16)} / {b64(40)} (read-only のはず、あとでrotate)",
        f"llave de acceso para el bucket de secuencias -> id AKIA{r(U + D, 16)}, secreto {b64(40)}",
    )
    S(
        "aws_secret_access_key",
        f"the secret half for the cryo-EM uploader is {b64(40)} — key id is in the ticket",
        f"export AWS_SECRET_ACCESS_KEY='{b64(40)}'  # lab-imaging user",
        f"S3 시크릿 키 (mass spec 백업용): {b64(40)}",
    )
    S(
        "github_pat",
        f"git clone https://oku-lab:ghp_{an(36)}@github.com/oku-lab/scrnaseq-pipeline.git",
        f"CI용 classic token ghp_{an(36)} 붙여둠, repo scope만",
        f"token de GitHub del bot del grupo: ghp_{an(36)}",
    )
    S(
        "github_fine_grained_pat",
        f"fine-grained PAT for the ELN exporter (expires March):\ngithub_pat_{an(22)}_{an(59)}",
        f"GH_TOKEN=github_pat_{an(22)}_{an(59)} gh release create v2.3.0",
    )
    S(
        "gitlab_pat",
        f"institute GitLab: glpat-{ul(20)} (api scope) - for the snakemake runner",
        f"git remote set-url origin https://oauth2:glpat-{ul(20)}@gitlab.ims.example-u.ac.jp/hpc/modules.git",
        f"学内GitLabのトークン glpat-{ul(20)} を .netrc に入れた",
    )
    S(
        "slack_bot_token",
        f"freezer-bot の Slack token: xoxb-{dg(12)}-{dg(13)}-{an(24)}",
        f"SLACK_BOT_TOKEN=xoxb-{dg(11)}-{dg(13)}-{an(24)} # posts to #sequencing-queue",
        f"el bot de #turnos-microscopio usa xoxb-{dg(12)}-{dg(13)}-{an(24)}",
    )
    S(
        "slack_webhook_url",
        f"alarm dial-out also posts here: https://hooks.slack.com/services/T{r(U + D, 8)}/B{r(U + D, 10)}/{an(24)}",
        f"curl -X POST -H 'Content-type: application/json' --data '{{\"text\":\"job done\"}}' https://hooks.slack.com/services/T{r(U + D, 8)}/B{r(U + D, 10)}/{an(24)}",
        f"Slack 웹훅 (#hpc-alerts):\nhttps://hooks.slack.com/services/T{r(U + D, 8)}/B{r(U + D, 10)}/{an(24)}",
    )
    S(
        "discord_webhook_url",
        f"student study group discord hook https://discord.com/api/webhooks/{dg(19)}/{ul(68)}",
        f"webhook de discord para avisos del clúster: https://discordapp.com/api/webhooks/{dg(18)}/{ul(68)}",
    )
    S(
        "teams_webhook_url",
        f"Teams incoming webhook for the core facility channel: https://exampleu.webhook.office.com/webhookb2/{hx(8)}-{hx(4)}-{hx(4)}-{hx(4)}-{hx(12)}@{hx(8)}-{hx(4)}-{hx(4)}-{hx(4)}-{hx(12)}/IncomingWebhook/{hx(32)}/{hx(8)}-{hx(4)}-{hx(4)}-{hx(4)}-{hx(12)}/V2{ul(43)}",
        f"Teamsの通知URL（冷凍庫アラーム用）https://exampleu.webhook.office.com/webhookb2/{hx(8)}-{hx(4)}-{hx(4)}-{hx(4)}-{hx(12)}@{hx(8)}-{hx(4)}-{hx(4)}-{hx(4)}-{hx(12)}/IncomingWebhook/{hx(32)}/{hx(8)}-{hx(4)}-{hx(4)}-{hx(4)}-{hx(12)}",
    )
    S(
        "stripe_secret_key",
        f"conference registration site (Stripe live): sk_live_{an(24)}",
        f"STRIPE_SECRET_KEY=sk_live_{an(99)}",
        f"clave secreta de Stripe para el congreso de biología: `sk_live_{an(24)}` no la compartas",
    )
    S(
        "stripe_restricted_key",
        f"restricted key for the workshop refunds script: rk_live_{an(24)}",
        f"Stripe 제한 키 rk_live_{an(24)} (환불 전용)",
    )
    S(
        "twilio_auth_token",
        f"freezer SMS dial-out via Twilio: account AC{hx(32)} auth token {hx(32)}",
        f"TWILIO_AUTH_TOKEN={hx(32)}\nTWILIO_ACCOUNT_SID=AC{hx(32)}",
        f"Twilio API key SK{hx(32)} secret {an(32)} — la usa el marcador de alarmas del -80",
    )
    S(
        "sendgrid_api_key",
        f"ELN notification mails go through SendGrid, key: SG.{ul(22)}.{ul(43)}",
        f'SENDGRID_API_KEY="SG.{ul(22)}.{ul(43)}"',
        f"SendGridのAPIキー: SG.{ul(22)}.{ul(43)}",
    )
    S(
        "openai_api_key",
        f"for the abstract-summarizer notebook set OPENAI_API_KEY=sk-proj-{ul(48)}T3BlbkFJ{ul(48)}",
        f"lab shared OpenAI key sk-{an(20)}T3BlbkFJ{an(20)} (billing to grant 24H0012)",
        f"연구실 공용 OpenAI 키: sk-proj-{ul(48)}T3BlbkFJ{ul(48)}",
    )
    S(
        "anthropic_api_key",
        f"ANTHROPIC_API_KEY=sk-ant-api03-{ul(93)}AA",
        f"la llave de Claude del proyecto de anotación: sk-ant-api03-{ul(93)}AA",
    )
    S(
        "google_api_key",
        f"Maps key for the field-sampling app: AIza{ul(35)} (unrestricted!!)",
        f"GOOGLE_API_KEY=AIza{ul(35)}  # Sheets export of the freezer inventory",
        f"サンプル採取アプリのGoogle APIキー AIza{ul(35)}",
    )
    S(
        "gcp_service_account_key",
        f'"type": "service_account", "private_key_id": "{hx(40)}", "private_key": "-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC{b64(40)}\\n',
        f"GCP SA key for the imaging bucket, private_key: -----BEGIN PRIVATE KEY-----\\nMIIEvgIBADANBgkqhkiG9w0BAQEFAASC{b64(56)}==",
    )
    S(
        "ssh_private_key",
        f"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW{b64(36)}\n{b64(70)}",
        f"deploy key for the sequencer share:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA{b64(60)}",
        f"학생 계정 키 복사해둠 -----BEGIN OPENSSH PRIVATE KEY----- b3BlbnNzaC1rZXktdjEAAAAA{b64(64)} -----END OPENSSH PRIVATE KEY-----",
    )
    S(
        "postgres_connection_string",
        f"LIMS db: postgresql://lims_app:{pw()}@db-lims.ims.internal:5432/lims",
        f"DATABASE_URL=postgres://eln_ro:{pw()}@10.40.2.17/eln_prod?sslmode=require",
        f"cadena de conexión del inventario de congeladores -> postgresql://freezer:{pw()}@pg01:5432/inventory",
    )
    S(
        "mongodb_uri",
        f"mongodb+srv://microscopy:{pw()}@cluster0.{r(L + D, 5)}.mongodb.net/images?retryWrites=true",
        f"イメージングのメタデータDB: mongodb://admin:{pw()}@mongo-img01:27017/?authSource=admin",
    )
    S(
        "mysql_password",
        f"mysql -h redcap-db -u redcap -p'{pw()}' redcap",
        f"REDCap MySQL root pw is {pw()} (don't tell the students lol)",
        f"MySQL 비번: {pw()} — 설문 DB",
    )
    S(
        "redis_url_password",
        f"CELERY_BROKER_URL=redis://:{an(24)}@redis-queue.ims.internal:6379/0",
        f"redis-cli -h 10.40.3.9 -a '{pw()}' ping",
    )
    S(
        "hpc_account_password",
        f"Tanaka-sanのHPCアカウント: tanaka_k / {pw()}　ログインノードは login2",
        f"cluster login for the visiting student (mreyes) - password {pw()}",
        f"HPC 계정 비밀번호 초기화했어요: {pw()} 첫 로그인 때 바꾸세요",
        f"contraseña del clúster para lgarcia: {pw()}",
    )
    S(
        "slurm_db_password",
        f"slurmdbd.conf -> StorageUser=slurm StoragePass={pw()}",
        f"accounting DB pw for slurmdbd on mgmt01 is {pw()}",
    )
    S(
        "munge_key",
        f"munge.key in base64 (so we can restore on new compute nodes): {b64(172)}==",
        f"munge key 백업 echo '{b64(86)}==' | base64 -d > /etc/munge/munge.key",
    )
    S(
        "ipmi_bmc_password",
        f"iDRAC on gpu-node07: root / {pw()}",
        f"ipmitool -I lanplus -H 10.50.0.27 -U ADMIN -P {pw()} chassis power cycle",
        f"BMCのパスワード（全GPUノード共通）: {pw()}",
    )
    S(
        "ldap_bind_password",
        f"ldapsearch -x -D 'cn=svc-jupyter,ou=svc,dc=ims,dc=example-u,dc=mx' -w '{pw()}' -b 'ou=people,dc=ims'",
        f"bindpw {pw()}  (sssd.conf, ldap_default_authtok)",
        f"LDAP bind 비밀번호: {pw()}",
    )
    S(
        "instrument_local_password",
        f"NovaSeq control PC local admin: sbsadmin / {pw()}",
        f"Orbitrap のPC (Xcalibur) ログイン: msuser パス {pw()}",
        f"confocal Zeiss PC -> usuario: microscopia, contraseña: {pw()}",
        f"HPLC 장비 PC 관리자 비번 {pw()}",
    )
    S(
        "basespace_access_token",
        f"BaseSpace CLI config: apiServer = https://api.basespace.illumina.com\naccessToken = {hx(32)}",
        f"bs auth token for the core account is {hx(32)}",
    )
    S(
        "eln_api_key",
        f"Benchling API key for the plasmid sync: sk_{an(28)}",
        f"ELN API token (LabArchives) uid={dg(6)} akid=ims_core password={an(32)}",
        f"電子ラボノートのAPIトークン: eln_{an(40)}",
    )
    S(
        "freezer_alarm_pin",
        f"-80 #4 (Thermo TSX) alarm panel PIN: {dg(4)}",
        f"para silenciar la alarma del ultracongelador en el cuarto B214 el PIN es {dg(4)}",
        f"초저온 냉동고 알람 해제 PIN {dg(6)}",
        f"freezer monitoring dial-out (Rees/Centron) acknowledge code is {dg(4)}#",
    )
    S(
        "alarm_dialer_pin",
        f"when the autodialer calls you, press {dg(4)} to acknowledge the LN2 alarm",
        f"自動通報装置の確認コード：{dg(4)}（夜間当番だけ共有）",
    )
    S(
        "door_access_code",
        f"lab 3F east door keypad: {dg(4)}#",
        f"puerta del laboratorio de cultivo celular: código {dg(5)}",
        f"3층 실험실 도어락 번호 {dg(6)} 입니다",
        f"BSL2 suite door code changed to {dg(4)} from Monday",
        f"実験室の扉の暗証番号は {dg(4)} です。ゲストには教えないで",
    )
    S(
        "cold_room_code",
        f"cold room 4C keypad = {dg(4)}",
        f"コールドルームの暗証 {dg(4)}*",
        f"cuarto frío, código nuevo {dg(4)} (el viejo ya no sirve)",
    )
    S(
        "safe_combination",
        f"controlled substances safe combo: {dg(2)}-{dg(2)}-{dg(2)}",
        f"caja fuerte de reactivos controlados: {dg(2)}-{dg(2)}-{dg(2)}",
        f"麻薬金庫のダイヤル番号: 右{dg(2)} 左{dg(2)} 右{dg(2)}",
    )
    S(
        "gate_code",
        f"loading dock gate for the LN2 delivery: {dg(4)}",
        f"주차장 게이트 비번 {dg(4)}# (야간)",
        f"portón del estacionamiento del instituto: {dg(5)}",
    )
    S(
        "wifi_psk",
        f"IMS-Lab-5G WPA2 key: {pw()}",
        f"Wi-Fi para invitados del simposio: red IMS-Guest, clave {pw()}",
        f"共有Wi-Fi「IMS-Research」のパスワード → {pw()}",
        f"WIFI:S:IMS-Instruments;T:WPA;P:{pw()};;",
        f"세미나실 와이파이 비번: {pw()}",
    )
    S(
        "guest_account_password",
        f"guest account for the visiting Korean team: guest07 / {pw()} (valid until 12/20)",
        f"cuenta de invitado para el taller: invitado03, pass {pw()}",
        f"ゲストアカウント guest12 のPW {pw()}",
    )
    S(
        "student_temp_password",
        f"new MSc student accounts, temp passwords: akim {pw()}, jlopez {pw()}",
        f"初期パスワード（学部生） s2310045: {pw()}",
        f"신입 대학원생 임시 비밀번호 {pw()} — 첫 로그인시 변경 필수",
    )
    S(
        "recovery_codes",
        f"2FA backup codes for the lab Google account: {dg(4)} {dg(4)}, {dg(4)} {dg(4)}, {dg(4)} {dg(4)}",
        f"GitHub recovery codes (oku-lab org owner):\n{hx(5)}-{hx(5)} {hx(5)}-{hx(5)} {hx(5)}-{hx(5)}",
        f"códigos de recuperación de la cuenta del core: {dg(8)} {dg(8)} {dg(8)}",
    )
    S(
        "passphrase",
        f'GPG passphrase for encrypting patient-derived data: "{rng.choice(words).lower()} {rng.choice(words).lower()} {rng.choice(words).lower()} {dg(2)}"',
        f"ssh key passphrase (hpc deploy key): {rng.choice(words).lower()}-{rng.choice(words).lower()}-{rng.choice(words).lower()}-{dg(3)}",
        f"frase de contraseña del disco cifrado del portátil de campo: {rng.choice(words)} {rng.choice(words)} {dg(4)}",
    )
    S(
        "s3_presigned_url",
        f"download link for the collaborators (7 days): https://ims-datashare.s3.ap-northeast-1.amazonaws.com/run_{dg(4)}/fastq.tar?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIA{r(U + D, 16)}%2F20261207%2Fap-northeast-1%2Fs3%2Faws4_request&X-Amz-Date=20261207T031500Z&X-Amz-Expires=604800&X-Amz-SignedHeaders=host&X-Amz-Signature={hx(64)}",
    )
    S(
        "azure_storage_connection_string",
        f"DefaultEndpointsProtocol=https;AccountName=imsimaging;AccountKey={b64(86)}==;EndpointSuffix=core.windows.net",
        f"Azure 스토리지 키 (현미경 데이터): {b64(86)}==",
    )
    S(
        "azure_sas_token",
        f"SAS for the Mexico partners: https://imsshare.blob.core.windows.net/cohort?sv=2022-11-02&ss=b&srt=co&sp=rl&se=2027-01-31T00:00:00Z&st=2026-12-01T00:00:00Z&spr=https&sig={ul(43)}%3D",
        f"sig={ul(43)}%3D のSASトークンを共同研究者に送付済み (sp=rwl)",
    )
    S(
        "jupyterhub_api_token",
        f"JupyterHub admin API token: {hx(32)}",
        f"curl -H 'Authorization: token {hx(32)}' https://jhub.ims.internal/hub/api/users",
    )
    S(
        "vault_token",
        f"VAULT_TOKEN=hvs.{an(24)}",
        f"vault login hvs.{an(24)}  # root token from the unseal ceremony, rotate!",
    )
    S(
        "npm_token",
        f"//registry.npmjs.org/:_authToken=npm_{an(36)}",
        f"npm publish token para @ims-lab/plate-viewer: npm_{an(36)}",
    )
    S(
        "pypi_token",
        f"twine upload -u __token__ -p pypi-AgEIcHlwaS5vcmc{ul(70)}",
        f"PyPI API token (scanpy-ims package): pypi-AgEIcHlwaS5vcmcCJ{ul(60)}",
    )
    S(
        "docker_hub_token",
        f"docker login -u imslab -p dckr_pat_{ul(27)}",
        f"Docker Hub 토큰 dckr_pat_{ul(27)} (singularity 이미지 빌드용)",
    )
    S(
        "huggingface_token",
        f"HF_TOKEN=hf_{r(U + L, 34)}  # to pull the gated protein LM",
        f"HuggingFaceのwriteトークン hf_{r(U + L, 34)}",
    )
    S(
        "telegram_bot_token",
        f"freezer alerts telegram bot: {dg(10)}:AA{ul(33)}",
        f"bot de telegram del grupo de campo, token {dg(10)}:AA{ul(33)}",
    )
    S(
        "mailgun_api_key",
        f"Mailgun key for the grant-deadline reminders: key-{hx(32)}",
        f"MAILGUN_API_KEY=key-{hx(32)}",
    )
    S(
        "datadog_api_key",
        f"DD_API_KEY={hx(32)} (cluster node metrics)",
        f"datadog-agent.yaml: api_key: {hx(32)}",
    )
    S(
        "session_cookie",
        f"Cookie: sessionid={r(L + D, 32)}; csrftoken={an(64)}  (copied from my browser to debug the booking system)",
        f"grant portal session: JSESSIONID={HX(32)}",
        f"e-Rad のセッション cookie _erad_session={hx(64)} を貼っておく",
    )
    S(
        "jwt_bearer_token",
        f"Authorization: Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ{ul(60)}.{ul(43)}",
        f"token de acceso del portal de bioética: eyJhbGciOiJSUzI1NiJ9.eyJ{ul(80)}.{ul(86)}",
    )
    S(
        "grant_portal_password",
        f"e-Rad 研究者ID 70{dg(6)} パスワード: {pw()}",
        f"NIH eRA Commons for the PI: user sokuda, pw {pw()}",
        f"CONAHCYT (plataforma de convocatorias) contraseña del Dr. Herrera: {pw()}",
        f"NRF 과제관리 시스템 비밀번호 {pw()}",
    )
    S(
        "ethics_portal_password",
        f"IRB portal login irb_coord / {pw()}",
        f"倫理審査システムのPW: {pw()}（事務の佐藤さん用）",
        f"comité de ética, sistema en línea: usuario cei_ims, clave {pw()}",
    )
    S(
        "oauth_client_secret",
        f"Globus app client secret: {b64(44)}=",
        f"ORCID integration client_secret={hx(8)}-{hx(4)}-{hx(4)}-{hx(4)}-{hx(12)}",
        f"Keycloak client 'jhub' secret = {an(32)}",
    )
    S(
        "smtp_password",
        f"postfix relay for the alarm mails: smtp.example-u.ac.jp:587 user alarm-noreply pass {pw()}",
        f"SMTP_PASSWORD={pw()}",
    )
    S(
        "irods_password",
        f"iinit → host irods.ims.internal zone imsZone user seqcore password {pw()}",
        f"iRODS 비번 {pw()} (seqcore 계정)",
    )
    S(
        "nas_share_password",
        f"smb://nas-imaging/raw  user imaging  pass {pw()}",
        f"共有NAS（Synology）の admin パスワード {pw()}",
        f"mount -t cifs //nas01/seq /mnt/seq -o username=seq,password={pw()}",
    )
    S(
        "phone_voicemail_pin",
        f"lab phone ext 4417 voicemail PIN {dg(4)}",
        f"buzón de voz del teléfono del bioterio, NIP {dg(4)}",
    )
    S(
        "card_pin",
        f"lab purchasing card (Visa ending 4421) PIN {dg(4)}",
        f"연구비 카드 비밀번호 {dg(4)}",
    )
    S(
        "lab_laptop_password",
        f"field laptop (Dell, asset 0771) login: campo / {pw()}",
        f"共用ノートPCのログインPW：{pw()}",
    )

    # ------------------------------------------------------------------ benign
    B(
        "aws_documented_example_key",
        "the AWS docs use AKIAIOSFODNN7EXAMPLE / wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY in the credentials example, copy that format",
        "ejemplo de la documentación: aws_access_key_id = AKIAIOSFODNN7EXAMPLE",
        "README の例: AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY（ダミー）",
    )
    B(
        "git_commit_sha",
        f"pipeline pinned at commit {hx(40)} for the paper revision",
        f"이 버그는 {hx(7)} 커밋에서 고쳐짐",
        f"revertí el commit {hx(40)} porque rompió el módulo de Slurm",
    )
    B(
        "sha256_checksum",
        f"sha256 of the reference genome tarball: {hx(64)}",
        f"sha256sum GRCh38.fa.gz → {hx(64)}  OK",
        f"チェックサム一致しました: {hx(64)}",
    )
    B(
        "md5_checksum",
        f"{hx(32)}  S1_L001_R1_001.fastq.gz",
        f"md5 del archivo de la corrida: {hx(32)} (coincide con el del core)",
        f"MD5 {hx(32)} 확인 완료, 전송 문제 없음",
    )
    B(
        "ssh_public_key",
        f"please add my public key to the cluster: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{b64(43)} mreyes@laptop",
        f"authorized_keys に追加: ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ{b64(60)} tanaka@lab",
        f"공개키 보내드립니다 ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{b64(43)} jkim",
    )
    B(
        "ssh_key_fingerprint",
        f"host key fingerprint for login1: SHA256:{b64(43)} — verify before typing yes",
        f"la huella de la llave es ED25519 SHA256:{b64(43)}",
        f"ECDSA key fingerprint is SHA256:{b64(43)}.",
    )
    B(
        "gpg_key_fingerprint",
        f"encrypt the cohort files to the data steward's key, fingerprint {HX(4)} {HX(4)} {HX(4)} {HX(4)} {HX(4)}  {HX(4)} {HX(4)} {HX(4)} {HX(4)} {HX(4)}",
        f"GPG 公開鍵ID 0x{HX(16)} をキーサーバーに上げた",
    )
    B(
        "stripe_publishable_key",
        f"registration form frontend uses the publishable key pk_live_{an(24)} — safe in the page source",
        f"STRIPE_PUBLISHABLE_KEY=pk_live_{an(24)} (la secreta está en Vault)",
    )
    B(
        "recaptcha_site_key",
        f"reCAPTCHA site key for the booking form: 6L{ul(38)}",
        f"サイトキー（公開）: 6L{ul(38)}、シークレットキーは1Password",
    )
    B(
        "password_placeholder",
        "DB_PASSWORD=<your-password-here>",
        "mysql -u redcap -p'********' redcap  (replace with yours)",
        "contraseña: CAMBIAR_AQUI",
        "password: ${LIMS_DB_PASSWORD}  # injected by the CI",
    )
    B(
        "masked_secret",
        f"Slack token configured: xoxb-****-****-{an(4)} (last 4 shown)",
        f"API key: sk_live_••••••••••••{an(4)}",
        "Wi-Fi パスワード: ●●●●●●●●（事務室で聞いてください）",
        "token=REDACTED in the log excerpt below",
    )
    B(
        "vault_reference",
        "slurmdbd StoragePass now comes from vault kv get secret/hpc/slurmdbd, not the conf file",
        "la contraseña del NAS está en Vault bajo kv/lab/nas-imaging",
        "BMC 비밀번호는 vault 경로 secret/infra/ipmi 에 있음",
    )
    B(
        "password_manager_reference",
        "door + cold-room codes are in the 1Password vault 'Lab Ops', item 'Keypads 3F'",
        "los códigos de la puerta están en Bitwarden, colección Laboratorio",
        "Wi-Fiのパスワードは研究室のKeePassファイル（共有ドライブ）にあります",
        "게스트 계정 비번은 LastPass 공유 폴더 참고",
    )
    B(
        "password_policy",
        "HPC passwords: min 14 chars, no reuse of the last 5, rotate every 180 days",
        "política: los PIN de las alarmas deben tener 6 dígitos y cambiarse cada semestre",
        "パスワードは12文字以上、英大文字・小文字・数字・記号を含めること",
        "비밀번호 규칙: 10자 이상, 특수문자 1개 이상, 생일 금지",
    )
    B(
        "revoked_token",
        f"the ghp_{an(36)} token Diego pasted in #general was revoked at 14:02, new one is in Vault",
        f"REVOKED, do not use: xoxb-{dg(12)}-{dg(13)}-{an(24)} (rotated after the leak review)",
        f"este token ya fue revocado: glpat-{ul(20)}",
    )
    B(
        "slurm_job_id",
        f"job {dg(7)} OOM-killed on gpu-node03, resubmitted as {dg(7)}",
        f"sacct -j {dg(7)} --format=JobID,MaxRSS,Elapsed",
        f"ジョブID {dg(7)} がPENDのまま (Reason=QOSMaxGRESPerUser)",
    )
    B(
        "sample_id",
        f"sample IMS-{dg(4)}-{dg(3)} failed QC (RIN 4.1), re-extract",
        f"muestra MX-{dg(3)}-{dg(2)}B en la caja 7, posición C4",
        f"검체 번호 KR{dg(6)} 재시퀀싱 요청",
    )
    B(
        "sequencer_run_id",
        f"run folder {dg(6)}_A{dg(5)}_{dg(4)}_B{r(U + D, 9)} finished, demux tonight",
        f"MiSeq run {dg(6)}_M{dg(5)}_{dg(4)}_000000000-{r(U + D, 5)} のデータ転送完了",
    )
    B(
        "flowcell_id",
        f"flowcell {r(U + D, 9)} loaded lane 1-4",
        f"ONT flow cell FAX{dg(5)} — quedaban 1,180 poros",
    )
    B(
        "instrument_serial_number",
        f"-80 freezer S/N {dg(10)} (Thermo TSX60086V) warranty until 2028",
        f"シリアル番号 M{dg(5)} のMiSeq、修理依頼済み",
        f"número de serie del citómetro: R{dg(6)}",
    )
    B(
        "asset_tag",
        f"asset tag IMS-{dg(6)} on the old centrifuge, send to surplus",
        f"자산번호 {dg(10)} 노트북 반납",
    )
    B(
        "grant_number",
        f"acknowledge JSPS KAKENHI Grant Number JP{dg(2)}K{dg(5)} in the paper",
        f"NIH R01GM{dg(6)} — progress report due Jan 15",
        f"proyecto CONAHCYT CF-2023-I-{dg(4)}",
        f"NRF 과제번호 2024R1A2C{dg(7)}",
    )
    B(
        "ethics_protocol_number",
        f"IRB protocol #IRB-2026-{dg(4)} approved with minor changes",
        f"倫理審査承認番号 R{dg(4)}-{dg(3)}",
        f"protocolo del comité de ética CEI-{dg(3)}/2026, vigente hasta noviembre",
    )
    B(
        "purchase_order_number",
        f"PO {dg(10)} for 4x flow cells approved",
        f"orden de compra OC-{dg(6)} enviada a Illumina México",
        f"発注番号 PO-{dg(8)}（液体窒素）",
    )
    B(
        "invoice_number",
        f"Invoice INV-{dg(7)} from the sequencing core, charge to grant",
        f"factura A{dg(5)} del proveedor de CO2, ya pagada",
        f"청구서 번호 {dg(4)}-{dg(6)}",
    )
    B(
        "ticket_number",
        f"opened HPC-{dg(4)} about the scratch quota",
        f"INC{dg(7)} — freezer alarm false positive, closed",
        f"チケット #{dg(5)} でVPNの件を問い合わせ中",
    )
    B(
        "error_code",
        f"NovaSeq stopped with error code {dg(5)}, Illumina support case opened",
        f"Slurm: srun: error: Unable to create step for job {dg(7)}: Invalid generic resource (gres) specification",
        "冷凍庫の表示エラー E-07（ドアセンサ）",
        f"el termociclador marca error 0x{HX(4)}, reiniciar",
    )
    B(
        "product_catalog_number",
        f"order more Qubit dsDNA HS kit, cat. Q{dg(5)}",
        f"Sigma cat# A{dg(4)}-{dg(3)}G, 1 botella",
        f"カタログ番号 {dg(5)}-{dg(3)} のチップ（200 µL）",
    )
    B(
        "lot_number",
        f"FBS lot {dg(7)} tested OK for the iPSC lines",
        f"로트 번호 {r(U, 2)}{dg(6)} 항체 재주문",
        f"lote {dg(8)} del medio DMEM vence 2027-03",
    )
    B(
        "doi",
        f"dataset DOI 10.5281/zenodo.{dg(8)}",
        f"cite as doi:10.1038/s41586-0{dg(2)}-{dg(5)}-{dg(1)}",
    )
    B(
        "orcid_id",
        f"my ORCID is 0000-000{dg(1)}-{dg(4)}-{dg(3)}X",
        f"ORCID iD 0000-0002-{dg(4)}-{dg(4)} を論文に追加",
    )
    B(
        "uuid_record_id",
        f"ELN entry {hx(8)}-{hx(4)}-4{hx(3)}-a{hx(3)}-{hx(12)} has the plasmid map",
        f"Globus endpoint id {hx(8)}-{hx(4)}-{hx(4)}-{hx(4)}-{hx(12)}",
        f"ID del experimento en el ELN: {hx(8)}-{hx(4)}-{hx(4)}-{hx(4)}-{hx(12)}",
    )
    B("room_number", f"cold room is B{dg(3)}, freezers in B{dg(3)}", f"세미나는 {dg(3)}호실에서")
    B(
        "phone_extension",
        f"facilities on-call ext. {dg(4)}, security desk {dg(4)}",
        f"内線 {dg(4)} が機器室",
    )
    B(
        "booking_reference",
        f"confocal booked, reservation code CF-{r(U + D, 6)}",
        f"reserva del espectrómetro: folio {dg(6)}",
        f"出張の予約番号 {r(U + D, 6)}（JAL）",
    )
    B(
        "container_image_digest",
        f"image pinned: ghcr.io/ims-lab/cellranger@sha256:{hx(64)}",
        f"apptainer pull docker://quay.io/biocontainers/samtools@sha256:{hx(64)}",
    )
    B(
        "mac_address",
        f"register the sequencer NIC {':'.join(hx(2) for _ in range(6))} on the instrument VLAN",
        f"MACアドレス {'-'.join(HX(2) for _ in range(6))} をDHCP予約",
    )
    B(
        "wifi_network_name",
        "students should join eduroam, not IMS-Lab-5G",
        "la red de invitados se llama IMS-Guest, la clave la da recepción",
        "게스트 와이파이 SSID: IMS-Guest-2G",
    )
    B(
        "oauth_client_id",
        f"Google OAuth client ID {dg(12)}-{r(L + D, 32)}.apps.googleusercontent.com (public, ok to commit)",
        f"ORCID client id APP-{r(U + D, 16)}",
        "Keycloak client_id=jhub, redirect https://jhub.ims.internal/hub/oauth_callback",
    )
    B(
        "aws_account_id",
        f"datashare bucket lives in account {dg(12)}",
        f"arn:aws:iam::{dg(12)}:role/ims-datashare-readonly",
    )
    B(
        "s3_public_url",
        f"public demo data: https://ims-public.s3.amazonaws.com/tutorial/pbmc_{dg(1)}k.h5ad",
        f"s3://ims-datashare/projects/MX-{dg(3)}/raw/",
    )
    B(
        "api_key_id",
        f"KMS key id {hx(8)}-{hx(4)}-{hx(4)}-{hx(4)}-{hx(12)} encrypts the backup bucket",
        f"the Datadog key ID (not the key) is {hx(8)}-{hx(4)}-{hx(4)}-{hx(4)}-{hx(12)}",
        f"IAM key AKIA{r(U + D, 16)} deactivated and deleted for the departed postdoc",
    )
    B(
        "twilio_account_sid",
        f"Twilio account SID AC{hx(32)} (auth token in Vault)",
        f"número de Twilio +52 55 {dg(4)} {dg(4)} para las alertas SMS",
    )
    B(
        "slack_channel_id",
        f"post to channel C{r(U + D, 10)} (#freezer-alarms)",
        f"Slack user ID U{r(U + D, 10)} = 오쿠다 교수님",
    )
    B(
        "freezer_alarm_threshold",
        "-80 #4 alarm setpoint -65 °C, dial-out after 15 min",
        "umbral de alarma del tanque de LN2: nivel < 20 cm",
        "アラーム設定温度 -70℃、遅延 10分",
    )
    B(
        "student_id",
        f"student number {dg(8)} needs cluster access (advisor approved)",
        f"학번 20{dg(6)} 계정 생성 요청",
        f"matrícula A0{dg(7)}, alta en el clúster",
    )
    B(
        "course_code",
        "BIOL 5520 lab safety training required before door access",
        "授業コード LS-301 の受講生にゲストWi-Fiを案内",
    )
    B(
        "license_server_address",
        f"MATLAB license: 27000@lic{dg(2)}.ims.internal",
        f"licencia de Geneious: servidor flex01, puerto {dg(4)}",
    )
    B(
        "secret_variable_reference",
        "password: ${{ secrets.HPC_DEPLOY_PASSWORD }}",
        "export SLACK_WEBHOOK_URL=$(vault kv get -field=url secret/ci/slack)",
        "os.environ['OPENAI_API_KEY']  # never hardcode",
    )
    B(
        "access_code_reference",
        "door code for 3F changed today, ask Sato-san in the office",
        "el código del cuarto frío cambió, pídelo a la coordinadora",
        "금고 번호는 안전관리자에게 직접 문의하세요",
        "冷凍庫アラームのPINはラボ長が管理しています",
    )
    B(
        "tracking_number",
        f"dry ice shipment to Monterrey, FedEx tracking {dg(12)}",
        f"DHL waybill {dg(10)} (samples to Seoul)",
        f"追跡番号 {dg(4)}-{dg(4)}-{dg(4)}（ヤマト）",
    )
    B(
        "cas_number",
        f"CAS {dg(4)}-{dg(2)}-{dg(1)} stored in the flammables cabinet",
        "número CAS 67-64-1 (acetona), hoja de seguridad en la carpeta",
    )
    B(
        "accession_number",
        f"raw reads deposited: SRA PRJNA{dg(6)}, SRR{dg(8)}",
        f"GEO accession GSE{dg(6)} 공개 예정",
        f"GenBank OR{dg(6)}.1",
    )
    B(
        "ip_address",
        f"login nodes 10.40.{dg(1)}.{dg(2)} and 10.40.{dg(1)}.{dg(2)}, port 22",
        f"NASのIP 192.168.{dg(2)}.{dg(2)}",
    )
    B(
        "package_version",
        f"module load cuda/12.4.1 gcc/13.2.0 — samtools {dg(1)}.{dg(2)}",
        f"conda env hash {hx(12)} locked in environment.lock.yml",
    )
    B(
        "public_key_pem",
        f"ELN webhook signature public key:\n-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE{b64(52)}",
        f"clave pública del portal (verificar firmas JWT): -----BEGIN PUBLIC KEY----- MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA{b64(48)}",
    )
    B(
        "hf_model_id",
        "pulled facebook/esm2_t33_650M_UR50D to /scratch/models",
        "modelo en HF: ims-lab/scGPT-finetune-kr (private repo)",
    )
    B(
        "test_mode_placeholder_key",
        "sk_live_xxxxxxxxxxxxxxxxxxxxxxxx in .env.example, fill your own",
        "GITHUB_TOKEN=ghp_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX # example",
        "xoxb-your-bot-token-here",
    )
    B(
        "otp_instruction",
        "Duo push or the 6-digit code from your authenticator app is required for login2",
        "2段階認証のコードは毎回変わるので共有しないこと",
    )
    B(
        "keypad_battery_notice",
        "door keypad 3F low battery, facilities ticket opened",
        "la cerradura electrónica del bioterio marca 'batería baja'",
    )
    B(
        "phone_number",
        f"freezer alarm dial-out numbers: +81 3-{dg(4)}-{dg(4)}, +82 10-{dg(4)}-{dg(4)}",
        f"guardia del edificio: 55 {dg(4)} {dg(4)}",
    )

    # ------------------------------------------------------------------ more rows, field-specific
    S(
        "door_access_code",
        f"flow cytometry room: press * then {dg(4)} then #",
        f"animal facility (bioterio) anteroom code {dg(6)}, change shoes first",
    )
    S("cold_room_code", f"냉장실(4도) 번호키 {dg(4)} — 문 꼭 닫기")
    S(
        "freezer_alarm_pin",
        f"LN2 dewar monitor (CryoGuard) silence PIN: {dg(4)}\nreset after refill",
        f"-80 No.2 のアラーム解除は {dg(4)} を入力してENT",
    )
    S("hpc_account_password", f"su - seqadmin  (pw: {pw()}) on login1 to fix the demux cron")
    S("wifi_psk", f'instrument VLAN Wi-Fi "IMS-Sensors" PSK {pw()} — freezer probes use this')
    S(
        "instrument_local_password",
        f"PromethION MinKNOW UI login: minit / {pw()}",
        f"lector de placas (Tecan) usuario admin clave {pw()}",
    )
    S("safe_combination", f"key lockbox at the loading dock: {dg(4)}")
    S("gate_code", f"field station gate (estación de campo Los Tuxtlas) candado {dg(3)}")
    S(
        "postgres_connection_string",
        f'psql "host=pg-eln port=5432 dbname=eln user=eln_admin password={pw()}"',
    )
    S("guest_account_password", f"ELN 게스트 로그인: guest_kr / {pw()}")
    S("grant_portal_password", f"科研費電子申請のパスワード変更しました → {pw()}")
    S(
        "slack_webhook_url",
        f"SLACK_WEBHOOK=https://hooks.slack.com/services/T{r(U + D, 8)}/B{r(U + D, 10)}/{an(24)}  # sacct daily report",
    )
    S("github_pat", f"GitHub token vencido? no, este sigue activo: ghp_{an(36)}")
    S(
        "recovery_codes",
        f"1Password emergency kit secret key for the lab account: A3-{r(U + D, 6)}-{r(U + D, 6)}-{r(U + D, 5)}-{r(U + D, 5)}-{r(U + D, 5)}-{r(U + D, 5)}",
    )
    S("session_cookie", f"reservas de equipos, cookie PHPSESSID={r(L + D, 26)}")
    S(
        "aws_secret_access_key",
        f"aws configure set aws_secret_access_key {b64(40)} --profile ims-archive",
    )
    S("card_pin", f"tarjeta de la caja chica del laboratorio, NIP {dg(4)}")
    S(
        "smtp_password",
        f"알람 메일 발송용 Gmail 앱 비밀번호: {r(L, 4)} {r(L, 4)} {r(L, 4)} {r(L, 4)}",
    )

    B("slurm_job_id", f"array job {dg(7)}_[1-96] all COMPLETED")
    B("sample_id", f"cryovial label: KO-{dg(3)} P{dg(1)} {dg(2)}/11/2026, box 12 rack C")
    B("instrument_serial_number", f"LN2 tank serial {r(U, 3)}{dg(7)}, inspection due")
    B(
        "error_code",
        "MinKNOW: error 'Flow cell check failed (code 3)'",
        "PCR 기계 에러 코드 E103, 뚜껑 센서",
    )
    B(
        "access_code_reference",
        "new keypad codes go out by SMS only, never in Slack",
        "dial-out PIN changed (see the 1Password item 'Freezer dialer'), old one disabled",
    )
    B("password_policy", "guest Wi-Fi passwords rotate every Monday; reception prints the card")
    B(
        "masked_secret",
        "LDAP bindpw: [hidden]  — ask sysadmin",
        f"contraseña del clúster: {dg(1)}*********",
    )
    B("booking_reference", f"HPC reservation name 'maint_{dg(4)}' on 2026-12-12, nodes drained")
    B("grant_number", f"科研費 課題番号 {dg(2)}H{dg(5)} の報告書")
    B(
        "revoked_token",
        f"HF token hf_{r(U + L, 34)} was exposed in a notebook and has been invalidated on 12/03",
    )
    B("freezer_alarm_threshold", "CO2 incubator alarm if CO2 < 4.5% for more than 30 min")
    B("ticket_number", f"Jira LAB-{dg(3)}: ELN template for western blots")
    B("uuid_record_id", f"ELN notebook page id nb_{hx(24)}, entry etr_{an(8)}")
    B("product_catalog_number", f"MinION flow cell R10.4.1, product code FLO-MIN114, {dg(1)} units")
    B("wifi_network_name", "SSID IMS-Sensors is hidden; the freezer probes join it automatically")
    B(
        "password_placeholder",
        'wifi_psk: "<ask reception>"',
        "PIN: ____ (write it on the card, not here)",
    )
    B("student_id", f"学籍番号 {dg(2)}B{dg(5)} のアカウント有効期限を延長")
    B("sha256_checksum", f"container sif sha256 {hx(64)} verified")
    B("phone_extension", f"autodialer calls ext {dg(4)} first, then the on-call mobile")
    B("secret_variable_reference", "StoragePass=${SLURMDB_PASS} (templated by ansible from vault)")
    B("lot_number", f"Lot# {r(U, 1)}{dg(5)} ナノポアキット SQK-LSK114")

    return rows


def main():
    rows = corpus()
    out = open(sys.argv[1], "w", encoding="utf-8") if len(sys.argv) > 1 else sys.stdout
    for row in rows:
        out.write(json.dumps(row, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()

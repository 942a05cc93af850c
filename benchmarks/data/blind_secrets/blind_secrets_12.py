"""Blind secret-detection corpus 12: SRE / support engineering under pressure.

What it is: incident post-mortems, runbooks, on-call handovers and support
tickets written in a hurry by SRE and support engineers -- pasted shell output,
log excerpts, kubectl / terraform / aws / gcloud / az commands, chat-ops
transcripts, Jira / Linear ticket bodies -- covering cloud, databases, queues,
CI/CD and SaaS providers. Each row is a memory an AI coding agent might be
asked to store; `secret` rows would leak access to a real system, `benign`
rows are look-alikes that grant nothing.

Written blind on 2026-12-06: the author did not read the detector, its tests
or any earlier corpus.

Run:
    python benchmarks/data/blind_secrets/blind_secrets_12.py /tmp/blind12.jsonl
    (writes JSONL to the given path, or to stdout without an argument)

Every random value comes from random.Random(SEED) inside corpus(); none of
them is a real credential, but each has its provider's format.

Kinds, secret:
    aws_secret_access_key, aws_session_token, aws_presigned_url,
    gcp_service_account_key, gcp_oauth_access_token, google_refresh_token,
    google_oauth_client_secret, google_server_api_key,
    azure_storage_account_key, azure_sas_token, azure_client_secret,
    azure_devops_pat, github_pat_classic, github_pat_fine_grained,
    github_app_installation_token, github_webhook_secret, gitlab_pat,
    gitlab_runner_token, slack_bot_token, slack_webhook_url,
    discord_webhook_url, telegram_bot_token, pagerduty_routing_key,
    datadog_api_key, datadog_app_key, newrelic_license_key,
    newrelic_user_key, sentry_auth_token, grafana_sa_token, stripe_secret_key,
    stripe_restricted_key, stripe_webhook_secret, twilio_auth_token,
    sendgrid_api_key, mailgun_api_key, postgres_url_password,
    mysql_cli_password, redis_password, mongodb_srv_password,
    amqp_url_password, kafka_sasl_password, k8s_sa_token,
    k8s_secret_decoded, docker_config_auth, basic_auth_header,
    bearer_token_curl, session_cookie, npm_token, pypi_token,
    terraform_cloud_token, vault_token, vault_unseal_key, consul_acl_token,
    openai_api_key, anthropic_api_key, openssh_private_key, rsa_private_key,
    ec_private_key, jwt_signing_secret, django_secret_key, rails_master_key,
    cloudflare_api_token, digitalocean_token, heroku_api_key,
    jenkins_api_token, okta_api_token, atlassian_api_token, linear_api_key,
    opsgenie_api_key, shopify_admin_token, age_secret_key,
    wireguard_private_key, totp_seed, supabase_service_role_key,
    doppler_token, pulumi_token, buildkite_agent_token, argocd_admin_password,
    rds_master_password, ldap_bind_password, smtp_password,
    elastic_password, elastic_api_key, minio_root_password, mapbox_secret_token

Kinds, benign:
    aws_access_key_id_only, aws_docs_example_key, aws_arn, aws_sts_identity,
    aws_secretsmanager_arn, aws_kms_key_id, ssm_parameter_reference,
    gcp_secret_manager_path, gcp_service_account_email, gcp_oauth_client_id,
    azure_guid_ids, azure_keyvault_secret_uri, vault_path_reference,
    onepassword_reference, k8s_secretkeyref_yaml, k8s_secret_listing,
    k8s_describe_secret_sizes, k8s_resource_uid, sops_ciphertext,
    sealed_secret_ciphertext, ansible_vault_blob, kms_ciphertext_blob,
    redacted_value, masked_token_prefix, placeholder_angle, env_interpolation,
    ci_secret_expression, terraform_sensitive_output, url_without_password,
    default_or_docs_url_creds, git_commit_sha, image_digest, container_id,
    artifact_checksum, npm_integrity_hash, go_sum_hash, s3_etag,
    request_id_hex, trace_context, amz_request_ids, uuid_identifiers,
    terraform_lock_id, pagerduty_ids, slack_channel_ids, slack_webhook_redacted,
    stripe_publishable_key, datadog_client_token, mapbox_public_token,
    sentry_dsn, ssh_public_key, ssh_host_fingerprint, x509_certificate,
    pgp_public_key, wireguard_public_key, age_public_key, gpg_key_id,
    cloudflare_zone_id, jwt_io_sample, stored_token_hash, base64_config,
    analytics_cookie, revoked_token_truncated, password_policy_talk,
    key_word_other_sense, token_word_other_sense, rotation_narrative,
    secret_env_names, feature_flag_key, idempotency_key,
    cloudfront_and_endpoint_ids, ci_run_ids, github_app_ids,
    docker_config_credhelper, kubeconfig_exec_auth, pgpass_format_doc,
    ssh_known_hosts_line, stripe_object_ids, twilio_account_sid,
    consul_accessor_id, vault_lease_id, k8s_pod_names
"""

# ruff: noqa: E501  (corpus rows are long pasted lines on purpose)

from __future__ import annotations

import base64
import json
import random
import sys

SEED = 512012

UP = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
LO = "abcdefghijklmnopqrstuvwxyz"
DIG = "0123456789"
HEX = "0123456789abcdef"
ALNUM = UP + LO + DIG
B64 = ALNUM + "+/"
B64URL = ALNUM + "-_"
B32 = UP + "234567"
BECH32 = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"


def corpus() -> list[dict]:
    rng = random.Random(SEED)

    def rs(alpha: str, n: int) -> str:
        return "".join(rng.choice(alpha) for _ in range(n))

    def hx(n: int) -> str:
        return rs(HEX, n)

    def uuid() -> str:
        h = hx(32)
        h = h[:12] + "4" + h[13:16] + rng.choice("89ab") + h[17:]
        return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"

    def pw(n: int = 20) -> str:
        alpha = ALNUM + "!#%^*-_=+.~"
        while True:
            p = rs(alpha, n)
            if any(c in DIG for c in p) and any(c in "!#%^*-_=+.~" for c in p):
                return p

    def b64e(raw: bytes) -> str:
        return base64.b64encode(raw).decode()

    def b64u(obj: dict) -> str:
        raw = json.dumps(obj, separators=(",", ":")).encode()
        return base64.urlsafe_b64encode(raw).decode().rstrip("=")

    def akia() -> str:
        return "AKIA" + rs(UP + "234567", 16)

    def asia() -> str:
        return "ASIA" + rs(UP + "234567", 16)

    def aws_sk() -> str:
        return rs(B64, 40)

    def pem_body(lines: int, first: str) -> str:
        out = [first + rs(B64, 64 - len(first))]
        out += [rs(B64, 64) for _ in range(lines - 1)]
        out.append(rs(B64, rng.randint(20, 60)) + "==")
        return "\n".join(out)

    def jwt(header: dict, payload: dict, siglen: int = 43) -> str:
        return f"{b64u(header)}.{b64u(payload)}.{rs(B64URL, siglen)}"

    rows: list[dict] = []

    def S(kind: str, value: str, text: str) -> None:
        rows.append({"label": "secret", "kind": kind, "text": text, "value": value})

    def B(kind: str, value: str, text: str) -> None:
        rows.append({"label": "benign", "kind": kind, "text": text, "value": value})

    # ------------------------------------------------------------------ secret
    # aws_secret_access_key
    v = aws_sk()
    S(
        "aws_secret_access_key",
        v,
        f"INC-4412 handover: the deploy bot creds that leaked into the build log were\n"
        f"  aws_access_key_id = {akia()}\n  aws_secret_access_key = {v}\n"
        f"still active as of 02:10, rotation blocked on the billing team.",
    )
    v = aws_sk()
    S(
        "aws_secret_access_key",
        v,
        f"$ export AWS_ACCESS_KEY_ID={akia()} AWS_SECRET_ACCESS_KEY={v}\n"
        f"$ aws s3 ls s3://acme-prod-backups/pg/ --region eu-west-1\n"
        f"2026-11-30 03:00:12  48213409812 base-2026-11-30.tar.zst",
    )
    v = aws_sk()
    S(
        "aws_secret_access_key",
        v,
        f"Ticket SUP-2291 (customer pasted their IAM user creds, reply asked them to rotate):\n"
        f"> our keys are {akia()} / {v} can you check why replication fails",
    )

    # aws_session_token
    v = "IQoJb3JpZ2luX2VjE" + rs(B64, 300) + "="
    S(
        "aws_session_token",
        v,
        f"assumed role for the failover drill, valid 12h:\n"
        f"AWS_ACCESS_KEY_ID={asia()}\nAWS_SECRET_ACCESS_KEY={aws_sk()}\n"
        f"AWS_SESSION_TOKEN={v}",
    )
    v = "FwoGZXIvYXdzE" + rs(B64, 260)
    S(
        "aws_session_token",
        v,
        f"aws sts assume-role output from the bastion (expires 18:40 UTC):\n"
        f'  "SessionToken": "{v}",\n  "Expiration": "2026-12-06T18:40:02+00:00"',
    )
    v = "IQoJb3JpZ2luX2VjEH" + rs(B64, 280)
    S(
        "aws_session_token",
        v,
        f"#ops-bridge 14:22 <mkovacs> pasting the break-glass session so kai can run the restore:\n"
        f"aws_session_token={v}",
    )

    # aws_presigned_url
    sig = hx(64)
    v = (
        "https://acme-support-uploads.s3.eu-central-1.amazonaws.com/SUP-3318/heapdump.hprof"
        f"?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential={akia()}%2F20261206%2Feu-central-1"
        f"%2Fs3%2Faws4_request&X-Amz-Date=20261206T091500Z&X-Amz-Expires=604800"
        f"&X-Amz-SignedHeaders=host&X-Amz-Signature={sig}"
    )
    S(
        "aws_presigned_url",
        v,
        f"Sent the customer a 7-day upload link for the heap dump:\n{v}",
    )
    sig = hx(64)
    v = (
        "https://prod-exports.s3.amazonaws.com/tenants/8812/export.csv.gz?X-Amz-Algorithm="
        f"AWS4-HMAC-SHA256&X-Amz-Credential={akia()}%2F20261206%2Fus-east-1%2Fs3%2Faws4_request"
        f"&X-Amz-Date=20261206T220100Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host"
        f"&X-Amz-Signature={sig}"
    )
    S(
        "aws_presigned_url",
        v,
        f"export for ACME-GMBH is ready, link works for 24h -> {v}",
    )

    # gcp_service_account_key
    pk = (
        "-----BEGIN PRIVATE KEY-----\\n"
        + pem_body(8, "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC").replace("\n", "\\n")
        + "\\n-----END PRIVATE KEY-----\\n"
    )
    S(
        "gcp_service_account_key",
        pk,
        f'cat sa-ci-deployer.json (from the runner that got popped)\n{{\n  "type": "service_account",\n'
        f'  "project_id": "acme-prod-231407",\n  "private_key_id": "{hx(40)}",\n'
        f'  "private_key": "{pk}",\n'
        f'  "client_email": "ci-deployer@acme-prod-231407.iam.gserviceaccount.com"\n}}',
    )
    pk = (
        "-----BEGIN PRIVATE KEY-----\\n"
        + pem_body(6, "MIIEvgIBADANBgkqhkiG9w0BAQEFAASC").replace("\n", "\\n")
        + "\\n-----END PRIVATE KEY-----\\n"
    )
    S(
        "gcp_service_account_key",
        pk,
        f"GOOGLE_CREDENTIALS secret in the terraform workspace, value was:\n"
        f'{{"type":"service_account","project_id":"data-lake-9921","private_key":"{pk}"}}',
    )

    # gcp_oauth_access_token
    v = "ya29.a0" + rs(B64URL, 170)
    S(
        "gcp_oauth_access_token",
        v,
        f'$ curl -s -H "Authorization: Bearer {v}" \\\n'
        f"    https://bigquery.googleapis.com/bigquery/v2/projects/acme-prod-231407/jobs | jq .",
    )
    v = "ya29.c." + rs(B64URL, 150)
    S(
        "gcp_oauth_access_token",
        v,
        f"gcloud auth print-access-token on the jump host gave\n{v}\n(good for ~1h, used it for the GCS restore)",
    )

    # google_refresh_token
    v = "1//0g" + rs(B64URL, 98)
    S(
        "google_refresh_token",
        v,
        f"~/.config/gcloud/application_default_credentials.json on build-07 has\n"
        f'  "refresh_token": "{v}",\n  "type": "authorized_user"',
    )
    v = "1//09" + rs(B64URL, 100)
    S(
        "google_refresh_token",
        v,
        f"Gmail relay for alerts breaks every time the refresh token rotates. current one: {v}",
    )

    # google_oauth_client_secret
    v = "GOCSPX-" + rs(B64URL, 28)
    S(
        "google_oauth_client_secret",
        v,
        f"SSO for the internal grafana: client id 80412-ab.apps.googleusercontent.com, "
        f"client secret {v}",
    )
    v = "GOCSPX-" + rs(B64URL, 28)
    S(
        "google_oauth_client_secret",
        v,
        f"oauth2-proxy args that fixed the redirect loop:\n"
        f"--provider=google --client-id=551203-k2.apps.googleusercontent.com --client-secret={v} "
        f"--cookie-secure=true",
    )

    # google_server_api_key
    v = "AIza" + rs(B64URL, 35)
    S(
        "google_server_api_key",
        v,
        f"server-side geocoding key (unrestricted, billed to prod project!) GEOCODE_KEY={v}",
    )
    v = "AIza" + rs(B64URL, 35)
    S(
        "google_server_api_key",
        v,
        f"Ticket body: Translation API calls 403 since 09:00. We call it from the worker with "
        f"key={v} -- quota page shows 0 usage.",
    )

    # azure_storage_account_key
    v = rs(B64, 86) + "=="
    S(
        "azure_storage_account_key",
        v,
        f"DefaultEndpointsProtocol=https;AccountName=acmeprodlogs;AccountKey={v};"
        f"EndpointSuffix=core.windows.net",
    )
    v = rs(B64, 86) + "=="
    S(
        "azure_storage_account_key",
        v,
        f"$ az storage account keys list -g rg-prod-weu -n stprodweu01 -o table\n"
        f"KeyName    Permissions    Value\n---------  -------------  -----\nkey1       FULL           {v}",
    )
    v = rs(B64, 86) + "=="
    S(
        "azure_storage_account_key",
        v,
        f"for the blob restore just do  az storage blob download-batch --account-name stbackup02 "
        f"--account-key '{v}' -s pg-wal -d /restore",
    )

    # azure_sas_token
    v = (
        "sv=2022-11-02&ss=bfqt&srt=sco&sp=rwdlacupiytfx&se=2027-01-31T23:59:59Z"
        f"&st=2026-12-01T00:00:00Z&spr=https&sig={rs(ALNUM + '%', 44)}%3D"
    )
    S(
        "azure_sas_token",
        v,
        f"SAS for the vendor to drop files (account-level, rw, till end of Jan): ?{v}",
    )
    v = f"sp=racwdl&st=2026-12-06T08:00:00Z&se=2026-12-20T08:00:00Z&spr=https&sv=2022-11-02&sr=c&sig={rs(ALNUM, 43)}%3D"
    S(
        "azure_sas_token",
        v,
        f"AZCOPY dest url: https://stingest.blob.core.windows.net/landing?{v}",
    )

    # azure_client_secret
    v = rs(ALNUM, 3) + "8Q~" + rs(ALNUM + "_~.-", 31)
    S(
        "azure_client_secret",
        v,
        f"sp-aks-prod creds for the pipeline:\n  ARM_CLIENT_ID={uuid()}\n  ARM_CLIENT_SECRET={v}\n"
        f"  ARM_TENANT_ID={uuid()}",
    )
    v = rs(ALNUM, 3) + "8Q~" + rs(ALNUM + "_~.-", 31)
    S(
        "azure_client_secret",
        v,
        f'$ az ad sp credential reset --id {uuid()}\n{{\n  "appId": "{uuid()}",\n'
        f'  "password": "{v}",\n  "tenant": "{uuid()}"\n}}',
    )
    v = rs(ALNUM, 3) + "7Q~" + rs(ALNUM + "_~.-", 31)
    S(
        "azure_client_secret",
        v,
        f"az login --service-principal -u {uuid()} -p '{v}' --tenant contoso.onmicrosoft.com",
    )

    # azure_devops_pat
    v = rs(LO + "234567", 52)
    S(
        "azure_devops_pat",
        v,
        f"git clone https://build:{v}@dev.azure.com/contoso/Platform/_git/infra-live",
    )
    v = rs(LO + "234567", 52)
    S(
        "azure_devops_pat",
        v,
        f"AZURE_DEVOPS_EXT_PAT={v} az pipelines run --name nightly-dr --org https://dev.azure.com/contoso",
    )

    # github_pat_classic
    v = "ghp_" + rs(ALNUM, 36)
    S(
        "github_pat_classic",
        v,
        f"handover: the release script uses my PAT until the app is approved -> {v} (repo, workflow scopes)",
    )
    v = "ghp_" + rs(ALNUM, 36)
    S(
        "github_pat_classic",
        v,
        f"$ git remote -v\norigin  https://oncall-bot:{v}@github.com/acme/payments.git (fetch)",
    )
    v = "ghp_" + rs(ALNUM, 36)
    S(
        "github_pat_classic",
        v,
        f"runbook step 4: echo {v} | gh auth login --with-token",
    )

    # github_pat_fine_grained
    v = "github_pat_" + rs(ALNUM, 22) + "_" + rs(ALNUM, 59)
    S(
        "github_pat_fine_grained",
        v,
        f"Renovate kept failing on private modules; gave it GITHUB_COM_TOKEN={v}",
    )
    v = "github_pat_" + rs(ALNUM, 22) + "_" + rs(ALNUM, 59)
    S(
        "github_pat_fine_grained",
        v,
        f"token for the status-page sync job (contents:read on acme/statuspage only): {v}",
    )

    # github_app_installation_token
    v = "ghs_" + rs(ALNUM, 36)
    S(
        "github_app_installation_token",
        v,
        f"2026-12-06T10:14:03Z DEBUG gh-actions-runner: using installation token {v} for acme/infra",
    )
    v = "ghs_" + rs(ALNUM, 36)
    S(
        "github_app_installation_token",
        v,
        f"curl -H 'Authorization: token {v}' https://api.github.com/repos/acme/infra/actions/runs?per_page=5",
    )

    # github_webhook_secret
    v = hx(40)
    S(
        "github_webhook_secret",
        v,
        f"Atlantis webhooks 401'ing after the migration. Re-set the secret on the org hook to\n"
        f"ATLANTIS_GH_WEBHOOK_SECRET={v}",
    )
    v = pw(32)
    S(
        "github_webhook_secret",
        v,
        f"jenkins github-webhook shared secret (must match repo settings > webhooks): {v}",
    )

    # gitlab_pat
    v = "glpat-" + rs(B64URL, 20)
    S(
        "gitlab_pat",
        v,
        f"helm repo add internal https://gitlab.acme.io/api/v4/projects/88/packages/helm/stable "
        f"--username ci --password {v}",
    )
    v = "glpat-" + rs(B64URL, 20)
    S(
        "gitlab_pat",
        v,
        f"PRIVATE-TOKEN: {v}\nused for the mass MR-close script after the bad dependabot run",
    )
    v = "glpat-" + rs(B64URL, 20)
    S(
        "gitlab_pat",
        v,
        f"LIN-733 | CI mirror stopped. Mirror user token expired; new one is {v}, set it in "
        f"Settings > Repository > Mirroring.",
    )

    # gitlab_runner_token
    v = "glrt-" + rs(B64URL, 20)
    S(
        "gitlab_runner_token",
        v,
        f"gitlab-runner register --non-interactive --url https://gitlab.acme.io "
        f"--token {v} --executor kubernetes",
    )
    v = "glrt-" + rs(B64URL, 20)
    S(
        "gitlab_runner_token",
        v,
        f'/etc/gitlab-runner/config.toml on runner-3:\n[[runners]]\n  name = "k8s-prod"\n'
        f'  token = "{v}"',
    )

    # slack_bot_token
    v = f"xoxb-{rs(DIG, 12)}-{rs(DIG, 13)}-{rs(ALNUM, 24)}"
    S(
        "slack_bot_token",
        v,
        f"alertmanager slack_configs -> api_url is the webhook but the bot uses SLACK_BOT_TOKEN={v}",
    )
    v = f"xoxb-{rs(DIG, 11)}-{rs(DIG, 13)}-{rs(ALNUM, 24)}"
    S(
        "slack_bot_token",
        v,
        f"curl -X POST -H 'Authorization: Bearer {v}' -d channel=C04INCIDENT "
        f"-d text='SEV2 opened' https://slack.com/api/chat.postMessage",
    )
    v = f"xoxp-{rs(DIG, 12)}-{rs(DIG, 12)}-{rs(DIG, 13)}-{hx(32)}"
    S(
        "slack_bot_token",
        v,
        f"(my user token, for the export script only) xoxp = {v}",
    )

    # slack_webhook_url
    v = f"https://hooks.slack.com/services/T{rs(UP + DIG, 8)}/B{rs(UP + DIG, 10)}/{rs(ALNUM, 24)}"
    S(
        "slack_webhook_url",
        v,
        f"receivers:\n- name: sev-channel\n  slack_configs:\n  - api_url: '{v}'\n    channel: '#inc-bridge'",
    )
    v = f"https://hooks.slack.com/services/T{rs(UP + DIG, 8)}/B{rs(UP + DIG, 10)}/{rs(ALNUM, 24)}"
    S(
        "slack_webhook_url",
        v,
        f'quick test that the webhook still posts:\ncurl -X POST --data \'{{"text":"ping"}}\' {v}',
    )

    # discord_webhook_url
    v = f"https://discord.com/api/webhooks/{rs(DIG, 19)}/{rs(B64URL, 68)}"
    S(
        "discord_webhook_url",
        v,
        f"community status bot posts here, don't lose it: {v}",
    )
    v = f"https://discordapp.com/api/webhooks/{rs(DIG, 18)}/{rs(B64URL, 68)}"
    S(
        "discord_webhook_url",
        v,
        f"UPTIME_DISCORD_URL={v}",
    )

    # telegram_bot_token
    v = f"{rs(DIG, 10)}:AA{rs(B64URL, 33)}"
    S(
        "telegram_bot_token",
        v,
        f"the RU on-call team gets pages via telegram bot @acme_pager_bot, token {v}",
    )
    v = f"{rs(DIG, 10)}:AA{rs(B64URL, 33)}"
    S(
        "telegram_bot_token",
        v,
        f"curl https://api.telegram.org/bot{v}/getUpdates  # check if the bot is still alive",
    )

    # pagerduty_routing_key
    v = hx(32)
    S(
        "pagerduty_routing_key",
        v,
        f'pagerduty_configs:\n  - routing_key: "{v}"\n    severity: critical',
    )
    v = rs(LO + DIG, 32)
    S(
        "pagerduty_routing_key",
        v,
        f"Events v2 integration key for 'payments-api' service: {v}\n(if alerts stop, recreate integration)",
    )
    v = hx(32)
    S(
        "pagerduty_routing_key",
        v,
        f"curl -X POST https://events.pagerduty.com/v2/enqueue -H 'Content-Type: application/json' "
        f'-d \'{{"routing_key":"{v}","event_action":"trigger","payload":{{"summary":"test"}}}}\'',
    )

    # datadog_api_key
    v = hx(32)
    S(
        "datadog_api_key",
        v,
        f"helm upgrade datadog datadog/datadog -n monitoring --set datadog.apiKey={v} --set datadog.site=datadoghq.eu",
    )
    v = hx(32)
    S(
        "datadog_api_key",
        v,
        f"agent on db-replica-2 wasn't shipping. /etc/datadog-agent/datadog.yaml had a typo, "
        f"correct line is\napi_key: {v}",
    )
    v = hx(32)
    S(
        "datadog_api_key",
        v,
        f"DD-API-KEY: {v}\n(header used by the log forwarder lambda)",
    )

    # datadog_app_key
    v = hx(40)
    S(
        "datadog_app_key",
        v,
        f"for the monitor export script you need both: DD_API_KEY from vault and DD_APP_KEY={v}",
    )
    v = hx(40)
    S(
        "datadog_app_key",
        v,
        f"curl 'https://api.datadoghq.com/api/v1/monitor' -H 'DD-API-KEY: ${{DD_API_KEY}}' "
        f"-H 'DD-APPLICATION-KEY: {v}'",
    )

    # newrelic_license_key
    v = hx(36) + "NRAL"
    S(
        "newrelic_license_key",
        v,
        f"newrelic.yml in the legacy app:\ncommon: &default_settings\n  license_key: {v}",
    )
    v = hx(36) + "NRAL"
    S(
        "newrelic_license_key",
        v,
        f"NEW_RELIC_LICENSE_KEY={v} NEW_RELIC_APP_NAME=checkout-prod",
    )

    # newrelic_user_key
    v = "NRAK-" + rs(UP + DIG, 27)
    S(
        "newrelic_user_key",
        v,
        f"nerdgraph query for the SLO export, header API-Key: {v}",
    )
    v = "NRAK-" + rs(UP + DIG, 27)
    S(
        "newrelic_user_key",
        v,
        f"terraform newrelic provider: export NEW_RELIC_API_KEY={v} NEW_RELIC_ACCOUNT_ID=3391022",
    )

    # sentry_auth_token
    v = "sntryu_" + hx(64)
    S(
        "sentry_auth_token",
        v,
        f"sentry-cli releases finalize 4.18.2 --auth-token {v}",
    )
    v = (
        "sntrys_"
        + b64u({"iat": 1764979200, "url": "https://sentry.io", "org": "acme"})
        + "_"
        + rs(B64URL, 43)
    )
    S(
        "sentry_auth_token",
        v,
        f"SENTRY_AUTH_TOKEN for the sourcemap upload step (org token): {v}",
    )

    # grafana_sa_token
    v = "glsa_" + rs(ALNUM, 32) + "_" + hx(8)
    S(
        "grafana_sa_token",
        v,
        f"grafana service account 'dash-sync' token: {v}\nused by the dashboards-as-code job",
    )
    v = "glsa_" + rs(ALNUM, 32) + "_" + hx(8)
    S(
        "grafana_sa_token",
        v,
        f"curl -H 'Authorization: Bearer {v}' https://grafana.acme.io/api/search?query=slo",
    )

    # stripe_secret_key
    v = "sk_live_" + rs(ALNUM, 99)
    S(
        "stripe_secret_key",
        v,
        f"P1 post-mortem draft: the key committed in checkout/.env.production was\nSTRIPE_SECRET_KEY={v}\n"
        f"Roll it in the dashboard before publishing this doc.",
    )
    v = "sk_live_" + rs(ALNUM, 24)
    S(
        "stripe_secret_key",
        v,
        f"curl https://api.stripe.com/v1/charges/ch_3QkY2L -u {v}:",
    )
    v = "sk_test_" + rs(ALNUM, 99)
    S(
        "stripe_secret_key",
        v,
        f"staging checkout broken; staging uses the test-mode secret {v} (test mode still shows real "
        f"customer-like data from QA, keep it private)",
    )

    # stripe_restricted_key
    v = "rk_live_" + rs(ALNUM, 99)
    S(
        "stripe_restricted_key",
        v,
        f"restricted key for the refunds tool (charges:write, refunds:write): {v}",
    )
    v = "rk_live_" + rs(ALNUM, 24)
    S(
        "stripe_restricted_key",
        v,
        f"reporting pipeline reads balance txns with STRIPE_RK={v}",
    )

    # stripe_webhook_secret
    v = "whsec_" + rs(ALNUM, 32)
    S(
        "stripe_webhook_secret",
        v,
        f"webhook signature failures after endpoint recreate -> new signing secret is {v}, "
        f"update STRIPE_WEBHOOK_SECRET in prod",
    )
    v = "whsec_" + hx(64)
    S(
        "stripe_webhook_secret",
        v,
        f"$ stripe listen --forward-to localhost:8080/webhooks\n"
        f"> Ready! Your webhook signing secret is {v} (^C to quit)",
    )

    # twilio_auth_token
    v = hx(32)
    S(
        "twilio_auth_token",
        v,
        f"SMS fallback for pages: TWILIO_ACCOUNT_SID=AC{hx(32)} TWILIO_AUTH_TOKEN={v}",
    )
    v = hx(32)
    S(
        "twilio_auth_token",
        v,
        f"curl -X POST https://api.twilio.com/2010-04-01/Accounts/AC{hx(32)}/Messages.json "
        f"-u AC{hx(32)}:{v} --data-urlencode 'Body=test page'",
    )

    # sendgrid_api_key
    v = "SG." + rs(B64URL, 22) + "." + rs(B64URL, 43)
    S(
        "sendgrid_api_key",
        v,
        f"password reset mails not going out. SMTP user is literally 'apikey', password {v}",
    )
    v = "SG." + rs(B64URL, 22) + "." + rs(B64URL, 43)
    S(
        "sendgrid_api_key",
        v,
        f"SENDGRID_API_KEY={v}  # full access, the restricted one lacked mail.send",
    )

    # mailgun_api_key
    v = "key-" + hx(32)
    S(
        "mailgun_api_key",
        v,
        f"curl -s --user 'api:{v}' https://api.eu.mailgun.net/v3/mg.acme.io/events?event=failed",
    )
    v = hx(32) + "-" + hx(8) + "-" + hx(8)
    S(
        "mailgun_api_key",
        v,
        f"MAILGUN_API_KEY={v}\nMAILGUN_DOMAIN=mg.acme.io",
    )

    # postgres_url_password
    p = pw(22)
    v = f"postgres://app_rw:{p}@prod-pg-primary.c8x2kq.eu-west-1.rds.amazonaws.com:5432/orders"
    S(
        "postgres_url_password",
        p,
        f"failover test: pointed the canary at the new writer\nDATABASE_URL={v}",
    )
    p = pw(18)
    S(
        "postgres_url_password",
        p,
        f"$ psql 'postgresql://postgres:{p}@10.40.3.17:5432/billing?sslmode=require' -c 'select now()'\n"
        f"              now\n-------------------------------\n 2026-12-06 03:41:12.0+00",
    )
    p = pw(16)
    S(
        "postgres_url_password",
        p,
        f"PGPASSWORD='{p}' pg_dump -h analytics-db -U etl -Fc warehouse > /mnt/dump/wh.dump",
    )

    # mysql_cli_password
    p = pw(18)
    S(
        "mysql_cli_password",
        p,
        f"mysql -h legacy-mysql.internal -u root -p'{p}' -e 'SHOW SLAVE STATUS\\G' | grep Seconds_Behind",
    )
    p = pw(14)
    S(
        "mysql_cli_password",
        p,
        f"Handover: replica broke again. Creds for the replication user: repl / {p}. "
        f"CHANGE MASTER TO ... MASTER_PASSWORD='{p}' fixed it last time.",
    )

    # redis_password
    p = pw(24)
    S(
        "redis_password",
        p,
        f"redis-cli -h cache-prod.abc123.ng.0001.euw1.cache.amazonaws.com --tls -a '{p}' INFO replication",
    )
    p = pw(32)
    S(
        "redis_password",
        p,
        f"REDIS_URL=rediss://default:{p}@redis-17421.c12.eu-west-1-2.ec2.cloud.redislabs.com:17421",
    )
    p = pw(20)
    S(
        "redis_password",
        p,
        f"sentinel.conf on the new node needs `sentinel auth-pass mymaster {p}` or failover hangs",
    )

    # mongodb_srv_password
    p = rs(ALNUM, 16)
    S(
        "mongodb_srv_password",
        p,
        f"mongosh 'mongodb+srv://support_ro:{p}@cluster0.q8xk2.mongodb.net/tickets' --eval 'db.stats()'",
    )
    p = rs(ALNUM, 24)
    S(
        "mongodb_srv_password",
        p,
        f"MONGO_URI=mongodb://admin:{p}@mongo-0.mongo.db.svc:27017,mongo-1.mongo.db.svc:27017/?replicaSet=rs0&authSource=admin",
    )

    # amqp_url_password
    p = pw(18)
    S(
        "amqp_url_password",
        p,
        f"celery workers reconnect loop, broker url is amqps://orders:{p}@b-3f1a.mq.eu-west-1.amazonaws.com:5671/prod",
    )
    p = pw(16)
    S(
        "amqp_url_password",
        p,
        f"rabbitmqctl add_user shovel_user '{p}' && rabbitmqctl set_permissions -p / shovel_user '.*' '.*' '.*'",
    )

    # kafka_sasl_password
    p = rs(B64, 64)
    S(
        "kafka_sasl_password",
        p,
        f"client.properties for the confluent cluster:\nsecurity.protocol=SASL_SSL\nsasl.mechanism=PLAIN\n"
        f"sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required "
        f'username="{rs(UP + DIG, 16)}" password="{p}";',
    )
    p = pw(24)
    S(
        "kafka_sasl_password",
        p,
        f"kcat -b msk-1.prod:9096 -X security.protocol=SASL_SSL -X sasl.mechanisms=SCRAM-SHA-512 "
        f"-X sasl.username=lag-monitor -X sasl.password='{p}' -L",
    )

    # k8s_sa_token
    v = jwt(
        {"alg": "RS256", "kid": rs(B64URL, 43)},
        {
            "iss": "kubernetes/serviceaccount",
            "kubernetes.io/serviceaccount/namespace": "kube-system",
            "kubernetes.io/serviceaccount/secret.name": "ci-admin-token-x7k2p",
            "sub": "system:serviceaccount:kube-system:ci-admin",
        },
        342,
    )
    S(
        "k8s_sa_token",
        v,
        f"$ kubectl -n kube-system get secret ci-admin-token-x7k2p -o jsonpath='{{.data.token}}' | base64 -d\n{v}",
    )
    v = jwt(
        {"alg": "RS256", "kid": rs(B64URL, 43)},
        {
            "aud": ["https://kubernetes.default.svc"],
            "exp": 1796515200,
            "iss": "https://oidc.eks.eu-west-1.amazonaws.com/id/" + hx(32).upper(),
            "sub": "system:serviceaccount:argocd:argocd-manager",
        },
        342,
    )
    S(
        "k8s_sa_token",
        v,
        f"kubeconfig for the DR cluster (1y token, argocd-manager):\nusers:\n- name: dr-admin\n  user:\n    token: {v}",
    )

    # k8s_secret_decoded
    p = pw(20)
    S(
        "k8s_secret_decoded",
        p,
        f"$ kubectl -n payments get secret pg-creds -o go-template='{{{{.data.password | base64decode}}}}'\n{p}",
    )
    p = pw(26)
    enc = b64e(p.encode())
    S(
        "k8s_secret_decoded",
        enc,
        f"$ kubectl get secret keycloak-admin -n auth -o yaml\napiVersion: v1\ndata:\n  password: {enc}\n"
        f"  username: YWRtaW4=\nkind: Secret",
    )

    # docker_config_auth
    raw = b64e(f"deploy-bot:{pw(20)}".encode())
    S(
        "docker_config_auth",
        raw,
        f'~/.docker/config.json on ci-runner-4:\n{{\n  "auths": {{\n    "registry.acme.io": {{\n'
        f'      "auth": "{raw}"\n    }}\n  }}\n}}',
    )
    p = pw(20)
    S(
        "docker_config_auth",
        p,
        f"kubectl create secret docker-registry regcred --docker-server=ghcr.io "
        f"--docker-username=acme-bot --docker-password={p} -n apps",
    )

    # basic_auth_header
    v = b64e(f"admin:{pw(16)}".encode())
    S(
        "basic_auth_header",
        v,
        f"> GET /api/overview HTTP/1.1\n> Host: rabbit-mgmt.internal:15672\n> Authorization: Basic {v}\n"
        f"< HTTP/1.1 200 OK",
    )
    p = pw(18)
    S(
        "basic_auth_header",
        p,
        f"curl -u elastic-ops:{p} 'https://es-prod:9200/_cluster/health?pretty'",
    )

    # bearer_token_curl
    v = rs(B64URL, 48)
    S(
        "bearer_token_curl",
        v,
        f"repro for ZD-88120 (customer's own token, they asked us to test):\n"
        f"curl -H 'Authorization: Bearer {v}' https://api.acme.io/v2/invoices?limit=1",
    )
    v = "pat_" + rs(ALNUM, 40)
    S(
        "bearer_token_curl",
        v,
        f"internal admin API token (never expires, full scope): {v}",
    )

    # session_cookie
    v = rs(B64URL, 86)
    S(
        "session_cookie",
        v,
        f"HAR from the customer (admin session still live!):\ncookie: _acme_session={v}; path=/; secure; HttpOnly",
    )
    v = "s%3A" + rs(B64URL, 32) + "." + rs(B64URL, 43)
    S(
        "session_cookie",
        v,
        f"curl 'https://admin.acme.io/users/search?q=test' -H 'Cookie: connect.sid={v}'",
    )

    # npm_token
    v = "npm_" + rs(ALNUM, 36)
    S(
        "npm_token",
        v,
        f".npmrc in the publish job:\n//registry.npmjs.org/:_authToken={v}",
    )
    v = "npm_" + rs(ALNUM, 36)
    S(
        "npm_token",
        v,
        f"automation token for @acme scope publishes: {v}",
    )

    # pypi_token
    v = "pypi-AgEIcHlwaS5vcmc" + rs(B64URL, 140)
    S(
        "pypi_token",
        v,
        f"twine upload -u __token__ -p {v} dist/*",
    )
    v = "pypi-AgENdGVzdC5weXBpLm9yZw" + rs(B64URL, 130)
    S(
        "pypi_token",
        v,
        f"~/.pypirc\n[pypi]\n  username = __token__\n  password = {v}",
    )

    # terraform_cloud_token
    v = rs(ALNUM, 14) + ".atlasv1." + rs(ALNUM, 67)
    S(
        "terraform_cloud_token",
        v,
        f'~/.terraform.d/credentials.tfrc.json\n{{"credentials":{{"app.terraform.io":{{"token":"{v}"}}}}}}',
    )
    v = rs(ALNUM, 14) + ".atlasv1." + rs(ALNUM, 67)
    S(
        "terraform_cloud_token",
        v,
        f"TF_TOKEN_app_terraform_io={v} terraform -chdir=envs/prod plan -lock-timeout=5m",
    )

    # vault_token
    v = "hvs." + rs(ALNUM, 24)
    S(
        "vault_token",
        v,
        f"$ vault login -method=userpass username=oncall\n...\nKey                  Value\n"
        f"token                {v}\ntoken_accessor       {rs(ALNUM, 24)}\ntoken_duration       768h",
    )
    v = "hvs.CAESI" + rs(B64URL, 90)
    S(
        "vault_token",
        v,
        f"VAULT_ADDR=https://vault.acme.io VAULT_TOKEN={v} vault kv get -mount=kv prod/payments",
    )
    v = "s." + rs(ALNUM, 24)
    S(
        "vault_token",
        v,
        f"legacy vault 1.6 root token (still valid, we never revoked it): {v}",
    )

    # vault_unseal_key
    v = rs(B64, 43) + "="
    S(
        "vault_unseal_key",
        v,
        f"vault operator init output -- copy each share to its own holder:\nUnseal Key 1: {v}\n"
        f"Unseal Key 2: {rs(B64, 43)}=",
    )
    v = rs(B64, 43) + "="
    S(
        "vault_unseal_key",
        v,
        f"$ vault operator unseal {v}\nSealed: true  Unseal Progress 2/3",
    )

    # consul_acl_token
    v = uuid()
    S(
        "consul_acl_token",
        v,
        f"bootstrap ACL token (global-management) for the new consul DC: SecretID {v}",
    )
    v = uuid()
    S(
        "consul_acl_token",
        v,
        f"CONSUL_HTTP_TOKEN={v} consul kv put config/checkout/maintenance true",
    )

    # openai_api_key
    v = "sk-proj-" + rs(B64URL, 156)
    S(
        "openai_api_key",
        v,
        f"support-summarizer worker env: OPENAI_API_KEY={v}",
    )
    v = "sk-svcacct-" + rs(B64URL, 150)
    S(
        "openai_api_key",
        v,
        f"service account key for the triage bot, rate limited to 500 rpm: {v}",
    )

    # anthropic_api_key
    v = "sk-ant-api03-" + rs(B64URL, 93) + "AA"
    S(
        "anthropic_api_key",
        v,
        f"incident-summary bot config\nllm:\n  provider: anthropic\n  api_key: {v}",
    )
    v = "sk-ant-api03-" + rs(B64URL, 93) + "AA"
    S(
        "anthropic_api_key",
        v,
        f"curl https://api.anthropic.com/v1/messages -H 'x-api-key: {v}' -H 'anthropic-version: 2023-06-01'",
    )

    # openssh_private_key
    body = (
        "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
        + "\n".join(rs(B64, 70) for _ in range(2))
        + "\n"
        + rs(B64, 20)
        + "=="
    )
    v = f"-----BEGIN OPENSSH PRIVATE KEY-----\n{body}\n-----END OPENSSH PRIVATE KEY-----"
    S(
        "openssh_private_key",
        v,
        f"bastion deploy key (ed25519), the one on the wiki is stale:\n{v}",
    )
    body = (
        "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAABlwAAAAdzc2gtcn\n"
        + "\n".join(rs(B64, 70) for _ in range(3))
        + "\n"
        + rs(B64, 32)
    )
    v = f"-----BEGIN OPENSSH PRIVATE KEY-----\n{body}\n-----END OPENSSH PRIVATE KEY-----"
    S(
        "openssh_private_key",
        v,
        f"$ cat ~/.ssh/id_rsa_legacy_sftp\n{v}",
    )

    # rsa_private_key
    v = (
        "-----BEGIN RSA PRIVATE KEY-----\n"
        + pem_body(3, "MIIEpAIBAAKCAQEA")
        + "\n-----END RSA PRIVATE KEY-----"
    )
    S(
        "rsa_private_key",
        v,
        f"tls key for *.internal.acme.io that was in the nginx configmap:\n{v}",
    )
    v = (
        "-----BEGIN PRIVATE KEY-----\n"
        + pem_body(3, "MIIEvAIBADANBgkqhkiG9w0BAQEFAASCBKYwggSiAgEAAoIBAQ")
        + "\n-----END PRIVATE KEY-----"
    )
    S(
        "rsa_private_key",
        v,
        f"github app private key (acme-deployer), downloaded from app settings:\n{v}",
    )

    # ec_private_key
    v = (
        "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEI"
        + rs(B64, 55)
        + "\n"
        + rs(B64, 64)
        + "\n"
        + rs(B64, 40)
        + "==\n-----END EC PRIVATE KEY-----"
    )
    S(
        "ec_private_key",
        v,
        f"APNs signing key for the mobile push service (AuthKey_8K2J.p8 contents):\n{v}",
    )
    v = (
        "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEI"
        + rs(B64, 55)
        + "\n"
        + rs(B64, 64)
        + "\n"
        + rs(B64, 40)
        + "==\n-----END EC PRIVATE KEY-----"
    )
    S(
        "ec_private_key",
        v,
        f"kubectl -n ingress get secret wildcard-tls -o jsonpath='{{.data.tls\\.key}}' | base64 -d\n{v}",
    )

    # jwt_signing_secret
    v = rs(B64, 64)
    S(
        "jwt_signing_secret",
        v,
        f"auth-svc HS256 signing secret (all sessions invalidate if changed): JWT_SECRET={v}",
    )
    v = hx(64)
    S(
        "jwt_signing_secret",
        v,
        f'hasura env:\nHASURA_GRAPHQL_JWT_SECRET=\'{{"type":"HS256","key":"{v}"}}\'',
    )
    v = pw(40)
    S(
        "jwt_signing_secret",
        v,
        f"Linear ENG-2291: tokens minted by staging were accepted by prod because both use\n"
        f"jwt.secret = {v}",
    )

    # django_secret_key
    v = "django-insecure-" + rs(LO + DIG + "!@#%^&*(-_=+)", 50)
    S(
        "django_secret_key",
        v,
        f"found in prod settings.py, yes the insecure prefix went to prod:\nSECRET_KEY = '{v}'",
    )
    v = rs(LO + DIG + "!@#%^&*(-_=+)", 50)
    S(
        "django_secret_key",
        v,
        f"DJANGO_SECRET_KEY={v}\n(rotating this logs everyone out of the support console)",
    )

    # rails_master_key
    v = hx(32)
    S(
        "rails_master_key",
        v,
        f"RAILS_MASTER_KEY={v} bin/rails credentials:show  # to read the prod stripe key",
    )
    v = hx(32)
    S(
        "rails_master_key",
        v,
        f"$ cat config/master.key\n{v}",
    )

    # cloudflare_api_token
    v = rs(B64URL, 40)
    S(
        "cloudflare_api_token",
        v,
        f"CLOUDFLARE_API_TOKEN={v}  # Zone.DNS edit on all zones, for cert-manager dns01",
    )
    v = rs(B64URL, 40)
    S(
        "cloudflare_api_token",
        v,
        f"curl -X POST 'https://api.cloudflare.com/client/v4/zones/{hx(32)}/purge_cache' "
        f"-H 'Authorization: Bearer {v}' --data '{{\"purge_everything\":true}}'",
    )
    v = hx(37)
    S(
        "cloudflare_api_token",
        v,
        f"old global api key (X-Auth-Key) for ops@acme.io: {v}",
    )

    # digitalocean_token
    v = "dop_v1_" + hx(64)
    S(
        "digitalocean_token",
        v,
        f"doctl auth init -t {v}",
    )
    v = "dop_v1_" + hx(64)
    S(
        "digitalocean_token",
        v,
        f'provider "digitalocean" {{\n  token = "{v}"\n}}',
    )

    # heroku_api_key
    v = uuid()
    S(
        "heroku_api_key",
        v,
        f"HEROKU_API_KEY={v} heroku pg:backups:capture -a acme-legacy",
    )
    v = "HRKU-" + rs(B64URL, 60)
    S(
        "heroku_api_key",
        v,
        f"new-style heroku token for the CI deploy: {v}",
    )

    # jenkins_api_token
    v = "11" + hx(32)
    S(
        "jenkins_api_token",
        v,
        f"curl -X POST -u svc-release:{v} https://jenkins.acme.io/job/deploy-prod/buildWithParameters?TAG=v4.18.2",
    )
    v = "11" + hx(32)
    S(
        "jenkins_api_token",
        v,
        f"jenkins-cli -s https://ci.internal/ -auth admin:{v} safe-restart",
    )

    # okta_api_token
    v = "00" + rs(B64URL, 40)
    S(
        "okta_api_token",
        v,
        f"SCIM sync broke after admin left. New SSWS token: {v}",
    )
    v = "00" + rs(B64URL, 40)
    S(
        "okta_api_token",
        v,
        f"curl -H 'Authorization: SSWS {v}' https://acme.okta.com/api/v1/users?filter=status+eq+%22LOCKED_OUT%22",
    )

    # atlassian_api_token
    v = "ATATT3xFfGF0" + rs(B64URL, 170) + "=" + rs("0123456789ABCDEF", 8)
    S(
        "atlassian_api_token",
        v,
        f"jira automation creates the PIR ticket with oncall-bot@acme.io and token {v}",
    )
    v = "ATATT3xFfGF0" + rs(B64URL, 170) + "=" + rs("0123456789ABCDEF", 8)
    S(
        "atlassian_api_token",
        v,
        f"curl -u svc-statuspage@acme.io:{v} https://acme.atlassian.net/rest/api/3/search?jql=project=OPS",
    )

    # linear_api_key
    v = "lin_api_" + rs(ALNUM, 40)
    S(
        "linear_api_key",
        v,
        f"incident bot files Linear issues via LINEAR_API_KEY={v}",
    )
    v = "lin_api_" + rs(ALNUM, 40)
    S(
        "linear_api_key",
        v,
        f"curl https://api.linear.app/graphql -H 'Authorization: {v}' -d '{{\"query\":\"{{ viewer {{ id }} }}\"}}'",
    )

    # opsgenie_api_key
    v = uuid()
    S(
        "opsgenie_api_key",
        v,
        f"curl -XPOST https://api.eu.opsgenie.com/v2/alerts -H 'Authorization: GenieKey {v}' -d @alert.json",
    )
    v = uuid()
    S(
        "opsgenie_api_key",
        v,
        f"opsgenie_configs:\n  - api_key: {v}\n    responders:\n      - name: sre-primary\n        type: team",
    )

    # shopify_admin_token
    v = "shpat_" + hx(32)
    S(
        "shopify_admin_token",
        v,
        f"merchant SUP-4471 shared their admin API access token so we can debug the webhook: {v}",
    )
    v = "shpat_" + hx(32)
    S(
        "shopify_admin_token",
        v,
        f"X-Shopify-Access-Token: {v}",
    )

    # age_secret_key
    v = "AGE-SECRET-KEY-1" + rs(BECH32, 58).upper()
    S(
        "age_secret_key",
        v,
        f"sops age key for the prod overlay (keys.txt):\n# created: 2026-03-02T10:11:00Z\n"
        f"# public key: age1{rs(BECH32, 58)}\n{v}",
    )
    v = "AGE-SECRET-KEY-1" + rs(BECH32, 58).upper()
    S(
        "age_secret_key",
        v,
        f"SOPS_AGE_KEY={v} sops -d secrets/prod.enc.yaml",
    )

    # wireguard_private_key
    v = rs(B64, 42) + rs("AEIMQUYcgkosw048", 1) + "="
    S(
        "wireguard_private_key",
        v,
        f"/etc/wireguard/wg0.conf on the vpn gw:\n[Interface]\nAddress = 10.99.0.1/24\n"
        f"PrivateKey = {v}\nListenPort = 51820",
    )
    v = rs(B64, 42) + rs("AEIMQUYcgkosw048", 1) + "="
    S(
        "wireguard_private_key",
        v,
        f"peer config for the contractor laptop (send via 1password, NOT slack):\n"
        f"[Interface]\nPrivateKey = {v}\n[Peer]\nPublicKey = {rs(B64, 43)}=",
    )

    # totp_seed
    v = rs(B32, 32)
    S(
        "totp_seed",
        v,
        f"shared MFA for the registrar account (break glass): otpauth://totp/Gandi:ops@acme.io?secret={v}&issuer=Gandi",
    )
    v = " ".join(rs(B32, 4) for _ in range(4))
    S(
        "totp_seed",
        v,
        f"root AWS account MFA seed, in case the yubikey is lost: {v}",
    )

    # supabase_service_role_key
    v = jwt(
        {"alg": "HS256", "typ": "JWT"},
        {
            "iss": "supabase",
            "ref": rs(LO, 20),
            "role": "service_role",
            "iat": 1730000000,
            "exp": 2045576000,
        },
    )
    S(
        "supabase_service_role_key",
        v,
        f"SUPABASE_SERVICE_ROLE_KEY={v}\n(bypasses RLS, server only)",
    )
    v = jwt(
        {"alg": "HS256", "typ": "JWT"},
        {
            "iss": "supabase",
            "ref": rs(LO, 20),
            "role": "service_role",
            "iat": 1741000000,
            "exp": 2056576000,
        },
    )
    S(
        "supabase_service_role_key",
        v,
        f"edge function cron calls the db with the service_role key: {v}",
    )

    # doppler_token
    v = "dp.st.prd." + rs(ALNUM, 43)
    S(
        "doppler_token",
        v,
        f"DOPPLER_TOKEN={v} doppler run -- ./bin/migrate",
    )
    v = "dp.pt." + rs(ALNUM, 43)
    S(
        "doppler_token",
        v,
        f"my personal doppler token, for the secrets audit: {v}",
    )

    # pulumi_token
    v = "pul-" + hx(40)
    S(
        "pulumi_token",
        v,
        f"PULUMI_ACCESS_TOKEN={v} pulumi stack select acme/prod && pulumi refresh",
    )
    v = "pul-" + hx(40)
    S(
        "pulumi_token",
        v,
        f"pulumi login token for the CD runner: {v}",
    )

    # buildkite_agent_token
    v = "bkua_" + hx(40)
    S(
        "buildkite_agent_token",
        v,
        f"buildkite api token used by the flaky-test reaper: {v}",
    )
    v = hx(50)
    S(
        "buildkite_agent_token",
        v,
        f'agent.cfg on the mac minis:\ntoken="{v}"\nname="%hostname-%spawn"',
    )

    # argocd_admin_password
    p = rs(ALNUM + "-", 16)
    S(
        "argocd_admin_password",
        p,
        f"$ kubectl -n argocd get secret argocd-initial-admin-secret -o jsonpath='{{.data.password}}' | base64 -d\n{p}",
    )
    p = pw(16)
    S(
        "argocd_admin_password",
        p,
        f"argocd login argocd.acme.io --username admin --password '{p}' --grpc-web",
    )

    # rds_master_password
    p = pw(24)
    S(
        "rds_master_password",
        p,
        f"aws rds modify-db-instance --db-instance-identifier orders-prod --master-user-password '{p}' --apply-immediately",
    )
    p = pw(20)
    S(
        "rds_master_password",
        p,
        f"restored snapshot as orders-restore-1206; master creds: postgres / {p}",
    )
    p = pw(20)
    S(
        "rds_master_password",
        p,
        f"$ terraform output -raw db_master_password\n{p}\n(output was marked sensitive, -raw shows it anyway)",
    )

    # ldap_bind_password
    p = pw(18)
    S(
        "ldap_bind_password",
        p,
        f"ldapsearch -H ldaps://dc1.corp.acme.io -D 'CN=svc-gitlab,OU=Service,DC=corp,DC=acme,DC=io' "
        f"-w '{p}' -b 'DC=corp,DC=acme,DC=io' '(sAMAccountName=jdoe)'",
    )
    p = pw(16)
    S(
        "ldap_bind_password",
        p,
        f'gitlab.rb ldap section:\n  bind_dn: "CN=svc-gitlab,OU=Service,DC=corp,DC=acme,DC=io"\n  password: "{p}"',
    )

    # smtp_password
    p = rs(LO, 16)
    S(
        "smtp_password",
        p,
        f"alertmanager smtp via google workspace app password: smtp_auth_username: alerts@acme.io "
        f"smtp_auth_password: {p}",
    )
    p = rs(B64, 44)
    S(
        "smtp_password",
        p,
        f"SES SMTP creds (eu-west-1) for the ticketing system: user {akia()} pass {p}",
    )

    # elastic_password
    p = rs(ALNUM + "_*", 20)
    S(
        "elastic_password",
        p,
        f"$ bin/elasticsearch-reset-password -u elastic -b\nPassword for the [elastic] user successfully reset.\n"
        f"New value: {p}",
    )
    v = b64e(f"{rs(B64URL, 20)}:{rs(B64URL, 22)}".encode())
    S(
        "elastic_api_key",
        v,
        f"filebeat output.elasticsearch.api_key is base64(id:api_key): {v}",
    )

    # minio_root_password
    p = rs(ALNUM, 32)
    S(
        "minio_root_password",
        p,
        f"MINIO_ROOT_USER=minioadmin-prod\nMINIO_ROOT_PASSWORD={p}",
    )
    p = pw(24)
    S(
        "minio_root_password",
        p,
        f"mc alias set prod https://minio.internal:9000 backup-svc '{p}'",
    )

    # mapbox_secret_token
    v = "sk." + b64u({"u": "acme-maps", "a": rs(LO + DIG, 25)}) + "." + rs(B64URL, 22)
    S(
        "mapbox_secret_token",
        v,
        f"tileset upload needs the SECRET scope token (uploads:write): MAPBOX_SK={v}",
    )
    v = "sk." + b64u({"u": "acme-ops", "a": rs(LO + DIG, 25)}) + "." + rs(B64URL, 22)
    S(
        "mapbox_secret_token",
        v,
        f"mapbox styles:write token for the deploy: {v}",
    )

    # ------------------------------------------------------------------ benign
    # aws_access_key_id_only
    v = akia()
    B(
        "aws_access_key_id_only",
        v,
        f"CloudTrail shows the ListBuckets burst came from access key id {v} (user svc-etl). "
        f"Key deactivated 03:12, secret never left the vault.",
    )
    v = asia()
    B(
        "aws_access_key_id_only",
        v,
        f'"userIdentity": {{"type": "AssumedRole", "accessKeyId": "{v}", '
        f'"arn": "arn:aws:sts::412093385517:assumed-role/OrganizationAccountAccessRole/mkovacs"}}',
    )
    v = akia()
    B(
        "aws_access_key_id_only",
        v,
        f"$ aws iam list-access-keys --user-name deploy-bot --query 'AccessKeyMetadata[].[AccessKeyId,Status]'\n"
        f'[["{v}", "Inactive"]]',
    )

    # aws_docs_example_key
    B(
        "aws_docs_example_key",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "runbook template for new joiners (values are the AWS docs examples, replace them):\n"
        "aws_access_key_id = AKIAIOSFODNN7EXAMPLE\n"
        "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    )
    B(
        "aws_docs_example_key",
        "AKIAI44QH8DHBEXAMPLE",
        "localstack compose file uses the doc sample AKIAI44QH8DHBEXAMPLE / "
        "je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY, localstack accepts anything",
    )

    # aws_arn
    v = f"arn:aws:iam::{rs(DIG, 12)}:role/eks-node-{rs(LO + DIG, 8)}"
    B(
        "aws_arn",
        v,
        f"nodes can't pull from ECR; instance profile role is {v}, missing AmazonEC2ContainerRegistryReadOnly",
    )
    v = f"arn:aws:sns:eu-west-1:{rs(DIG, 12)}:prod-alarms-{hx(8)}"
    B(
        "aws_arn",
        v,
        f"alarm topic: {v} (subscriptions: pagerduty https endpoint + #alerts email)",
    )

    # aws_sts_identity
    v = "AIDA" + rs(UP + "234567", 17)
    B(
        "aws_sts_identity",
        v,
        f'$ aws sts get-caller-identity\n{{\n    "UserId": "{v}",\n    "Account": "{rs(DIG, 12)}",\n'
        f'    "Arn": "arn:aws:iam::{rs(DIG, 12)}:user/oncall-readonly"\n}}',
    )
    v = "AROA" + rs(UP + "234567", 17)
    B(
        "aws_sts_identity",
        v,
        f"confirmed we were on the right account: UserId {v}:botocore-session-1733475521",
    )

    # aws_secretsmanager_arn
    v = f"arn:aws:secretsmanager:eu-west-1:{rs(DIG, 12)}:secret:prod/orders/db-{rs(ALNUM, 6)}"
    B(
        "aws_secretsmanager_arn",
        v,
        f"ECS task def pulls the db password from {v} -- rotation lambda failed at setSecret, see logs",
    )
    v = f"arn:aws:secretsmanager:us-east-1:{rs(DIG, 12)}:secret:stripe/live/api-key-{rs(ALNUM, 6)}"
    B(
        "aws_secretsmanager_arn",
        v,
        f"valueFrom: {v}:api_key::",
    )
    v = f"prod/payments/stripe-{rs(ALNUM, 6)}"
    B(
        "aws_secretsmanager_arn",
        v,
        f"$ aws secretsmanager describe-secret --secret-id {v} --query '[Name,LastRotatedDate,RotationEnabled]'",
    )

    # aws_kms_key_id
    v = uuid()
    B(
        "aws_kms_key_id",
        v,
        f"EBS snapshots are encrypted with KMS key {v} (alias/prod-ebs); DR account needs a grant on it",
    )
    v = "mrk-" + hx(32)
    B(
        "aws_kms_key_id",
        v,
        f"multi-region key for the backup bucket: arn:aws:kms:eu-west-1:{rs(DIG, 12)}:key/{v}",
    )

    # ssm_parameter_reference
    B(
        "ssm_parameter_reference",
        "/prod/checkout/STRIPE_SECRET_KEY",
        "secret moved to SSM SecureString /prod/checkout/STRIPE_SECRET_KEY; task role reads it at start, "
        "nothing in the env file anymore",
    )
    B(
        "ssm_parameter_reference",
        "{{resolve:ssm-secure:/prod/db/master-password:3}}",
        "CloudFormation: MasterUserPassword: '{{resolve:ssm-secure:/prod/db/master-password:3}}'",
    )

    # gcp_secret_manager_path
    v = "projects/acme-prod-231407/secrets/pg-app-password/versions/7"
    B(
        "gcp_secret_manager_path",
        v,
        f"cloud run service mounts {v} as PGPASSWORD; version 6 disabled after the leak",
    )
    v = "sm://acme-prod-231407/sendgrid-api-key"
    B(
        "gcp_secret_manager_path",
        v,
        f"SENDGRID_API_KEY=${{{v}}}  # resolved by berglas at boot",
    )
    B(
        "gcp_secret_manager_path",
        "gcloud secrets versions access latest --secret=ci-deployer-key",
        "to get the deployer key (needs secretAccessor): gcloud secrets versions access latest --secret=ci-deployer-key",
    )

    # gcp_service_account_email
    v = f"ci-deployer@acme-prod-{rs(DIG, 6)}.iam.gserviceaccount.com"
    B(
        "gcp_service_account_email",
        v,
        f"gcloud iam service-accounts keys list --iam-account={v}\nKEY_ID                                    CREATED_AT\n"
        f"{hx(40)}  2026-02-11T09:00:00Z",
    )
    v = hx(40)
    B(
        "gcp_service_account_email",
        v,
        f"deleted the leaked key: gcloud iam service-accounts keys delete {v} --iam-account=etl@data-lake-9921.iam.gserviceaccount.com",
    )

    # gcp_oauth_client_id
    v = f"{rs(DIG, 12)}-{rs(LO + DIG, 32)}.apps.googleusercontent.com"
    B(
        "gcp_oauth_client_id",
        v,
        f"IAP for the admin panel uses OAuth client {v}; secret lives in Secret Manager",
    )
    v = f"{rs(DIG, 12)}-{rs(LO + DIG, 32)}.apps.googleusercontent.com"
    B(
        "gcp_oauth_client_id",
        v,
        f'<meta name="google-signin-client_id" content="{v}"> is in the public login page, fine to share',
    )

    # azure_guid_ids
    v = uuid()
    B(
        "azure_guid_ids",
        v,
        f'$ az account show --query \'{{sub:id,tenant:tenantId}}\'\n{{\n  "sub": "{v}",\n  "tenant": "{uuid()}"\n}}',
    )
    v = uuid()
    B(
        "azure_guid_ids",
        v,
        f"ARM_CLIENT_ID={v}  ARM_CLIENT_SECRET comes from the pipeline variable group (kv-linked)",
    )
    v = uuid()
    B(
        "azure_guid_ids",
        v,
        f"AADSTS7000215: Invalid client secret provided. Ensure the secret being sent is the client secret value, "
        f"not the client secret ID, for a secret added to app '{v}'.",
    )

    # azure_keyvault_secret_uri
    v = f"https://kv-prod-weu.vault.azure.net/secrets/pg-admin-password/{hx(32)}"
    B(
        "azure_keyvault_secret_uri",
        v,
        f"app setting DB_PASSWORD=@Microsoft.KeyVault(SecretUri={v})",
    )
    v = hx(32)
    B(
        "azure_keyvault_secret_uri",
        v,
        f"$ az keyvault secret list-versions --vault-name kv-prod-weu -n storage-key --query '[].id' -o tsv | tail -1\n"
        f"https://kv-prod-weu.vault.azure.net/secrets/storage-key/{v}",
    )

    # vault_path_reference
    B(
        "vault_path_reference",
        "kv/data/prod/payments#stripe_secret_key",
        "vault-agent template reads kv/data/prod/payments#stripe_secret_key; agent token is in-memory only",
    )
    v = rs(ALNUM, 24)
    B(
        "vault_path_reference",
        v,
        f"$ vault token lookup -accessor {v}\n(accessor only -- it can look up/revoke but can't be used as a token)",
    )
    B(
        "vault_path_reference",
        "vault kv get -field=password secret/prod/mysql/root",
        "MySQL root pw: don't paste it anywhere, run `vault kv get -field=password secret/prod/mysql/root` when needed",
    )

    # onepassword_reference
    B(
        "onepassword_reference",
        "op://SRE-Breakglass/aws-root/one-time password?attribute=otp",
        "root MFA code: op read 'op://SRE-Breakglass/aws-root/one-time password?attribute=otp'",
    )
    B(
        "onepassword_reference",
        "op://Prod/Datadog/api key",
        "DD_API_KEY=op://Prod/Datadog/api key  (op run --env-file injects it)",
    )

    # k8s_secretkeyref_yaml
    B(
        "k8s_secretkeyref_yaml",
        "secretKeyRef:\n              name: pg-creds\n              key: password",
        "env:\n  - name: PGPASSWORD\n    valueFrom:\n      secretKeyRef:\n              name: pg-creds\n"
        "              key: password",
    )
    B(
        "k8s_secretkeyref_yaml",
        "remoteRef:\n      key: prod/orders/db\n      property: password",
        "ExternalSecret spec.data:\n  - secretKey: DB_PASSWORD\n    remoteRef:\n      key: prod/orders/db\n"
        "      property: password",
    )

    # k8s_secret_listing
    v = f"default-token-{rs(LO + DIG, 5)}"
    B(
        "k8s_secret_listing",
        v,
        f"$ kubectl get secrets -n payments\nNAME                  TYPE                                  DATA   AGE\n"
        f"{v}   kubernetes.io/service-account-token   3      412d\npg-creds              Opaque"
        f"                                2      37d",
    )
    v = f"sh.helm.release.v1.checkout.v{rng.randint(20, 90)}"
    B(
        "k8s_secret_listing",
        v,
        f"rollback target is {v} (helm stores releases as secrets, that's why the ns has 80 of them)",
    )

    # k8s_describe_secret_sizes
    B(
        "k8s_describe_secret_sizes",
        "password:  32 bytes",
        "$ kubectl describe secret pg-creds -n payments\nName:         pg-creds\nType:  Opaque\n\nData\n====\n"
        "password:  32 bytes\nusername:  6 bytes",
    )
    B(
        "k8s_describe_secret_sizes",
        "token:      1062 bytes",
        "kubectl describe secret ci-admin-token -n kube-system | tail -3\nca.crt:     1099 bytes\n"
        "namespace:  11 bytes\ntoken:      1062 bytes",
    )

    # k8s_resource_uid
    v = uuid()
    B(
        "k8s_resource_uid",
        v,
        f"ownerReferences:\n  - apiVersion: apps/v1\n    kind: ReplicaSet\n    name: checkout-7d9f8c6b5\n    uid: {v}",
    )
    v = uuid()
    B(
        "k8s_resource_uid",
        v,
        f'Warning  FailedMount  kubelet  MountVolume.SetUp failed for volume "pvc-{v}" : rpc error: code = DeadlineExceeded',
    )

    # sops_ciphertext
    v = f"ENC[AES256_GCM,data:{rs(B64, 44)},iv:{rs(B64, 43)}=,tag:{rs(B64, 22)}==,type:str]"
    B(
        "sops_ciphertext",
        v,
        f"secrets/prod.enc.yaml after sops -e (safe to commit):\ndb_password: {v}",
    )
    v = f"ENC[AES256_GCM,data:{rs(B64, 60)},iv:{rs(B64, 43)}=,tag:{rs(B64, 22)}==,type:str]"
    B(
        "sops_ciphertext",
        v,
        f"diff in PR #4410 only touches encrypted value + sops.lastmodified:\n-  api_key: ENC[...]\n+  api_key: {v}",
    )

    # sealed_secret_ciphertext
    v = "AgB" + rs(B64, 300) + "=="
    B(
        "sealed_secret_ciphertext",
        v,
        f"kind: SealedSecret\nspec:\n  encryptedData:\n    password: {v}",
    )
    v = "AgA" + rs(B64, 280)
    B(
        "sealed_secret_ciphertext",
        v,
        f"kubeseal --raw output (only the controller in prod-eu can decrypt this): {v}",
    )

    # ansible_vault_blob
    v = "$ANSIBLE_VAULT;1.1;AES256\n" + "\n".join(rs(DIG + "abcdef", 80) for _ in range(3))
    B(
        "ansible_vault_blob",
        v,
        f"group_vars/prod/vault.yml is encrypted, don't worry about it being in git:\n{v}",
    )
    v = "!vault |\n          $ANSIBLE_VAULT;1.2;AES256;prod\n          " + rs(HEX, 64)
    B(
        "ansible_vault_blob",
        v,
        f"mysql_root_password: {v}",
    )

    # kms_ciphertext_blob
    v = "AQICAHh" + rs(B64, 200) + "=="
    B(
        "kms_ciphertext_blob",
        v,
        f"CiphertextBlob from aws kms encrypt (decrypt needs kms:Decrypt on alias/app-secrets): {v}",
    )
    v = "CiQA" + rs(B64, 120) + "="
    B(
        "kms_ciphertext_blob",
        v,
        f"gcloud kms encrypt output for the webhook secret, stored in the repo as webhook.enc: {v}",
    )

    # redacted_value
    B(
        "redacted_value",
        "sk_live_****************************************",
        "Stripe dashboard shows the old key as sk_live_**************************************** "
        "(rolled 2026-12-06 09:14, expired immediately)",
    )
    B(
        "redacted_value",
        "password=[REDACTED]",
        '2026-12-06T04:11:09Z ERROR db: connect failed dsn="host=pg-primary user=app password=[REDACTED] dbname=orders"',
    )
    B(
        "redacted_value",
        "AWS_SECRET_ACCESS_KEY=****",
        "GitHub Actions log line: AWS_SECRET_ACCESS_KEY=**** (masked automatically, we're fine)",
    )
    B(
        "redacted_value",
        "Authorization: Bearer <redacted>",
        "customer ticket, headers sanitized by the support form:\n> Authorization: Bearer <redacted>\n> X-Request-Id: 7b1e",
    )

    # masked_token_prefix
    v = "ghp_" + rs(ALNUM, 4) + "…"
    B(
        "masked_token_prefix",
        v,
        f"GitHub secret scanning alert #212: token starting {v} found in acme/payments, auto-revoked by GitHub",
    )
    v = "xoxb-" + rs(DIG, 4) + "..." + rs(ALNUM, 4)
    B(
        "masked_token_prefix",
        v,
        f"Slack admin revoked bot token {v} after it showed up in a public gist",
    )
    v = "glpat-" + rs(B64URL, 3) + "*****************"
    B(
        "masked_token_prefix",
        v,
        f"GitLab > Access Tokens > 'ci-mirror' {v} last used 3 days ago, expires 2027-01-01",
    )

    # placeholder_angle
    B(
        "placeholder_angle",
        "<PAGERDUTY_ROUTING_KEY>",
        "runbook: add a receiver with routing_key: <PAGERDUTY_ROUTING_KEY> (get it from the service's Integrations tab)",
    )
    B(
        "placeholder_angle",
        "xoxb-your-bot-token-here",
        "README snippet for the chatops bot: SLACK_BOT_TOKEN=xoxb-your-bot-token-here",
    )
    B(
        "placeholder_angle",
        "sk_live_XXXXXXXXXXXXXXXXXXXXXXXX",
        "ticket template: 'Please do NOT send us keys like sk_live_XXXXXXXXXXXXXXXXXXXXXXXX in tickets'",
    )
    B(
        "placeholder_angle",
        "ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        "export GH_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx   # substitute your own, needs repo scope",
    )

    # env_interpolation
    B(
        "env_interpolation",
        "${POSTGRES_PASSWORD}",
        "docker-compose.override.yml: DATABASE_URL: postgres://app:${POSTGRES_PASSWORD}@db:5432/app",
    )
    B(
        "env_interpolation",
        "$(cat /run/secrets/redis_pass)",
        'redis-cli -a "$(cat /run/secrets/redis_pass)" --no-auth-warning ping',
    )
    B(
        "env_interpolation",
        "%(ENV_RABBIT_PASSWORD)s",
        'supervisord conf: environment=BROKER_URL="amqp://orders:%(ENV_RABBIT_PASSWORD)s@rabbit:5672//"',
    )

    # ci_secret_expression
    B(
        "ci_secret_expression",
        "${{ secrets.AWS_SECRET_ACCESS_KEY }}",
        "- uses: aws-actions/configure-aws-credentials@v4\n  with:\n    aws-access-key-id: ${{ secrets.AWS_ACCESS_KEY_ID }}\n"
        "    aws-secret-access-key: ${{ secrets.AWS_SECRET_ACCESS_KEY }}",
    )
    B(
        "ci_secret_expression",
        "$CI_JOB_TOKEN",
        "gitlab: docker login -u gitlab-ci-token -p $CI_JOB_TOKEN $CI_REGISTRY (job token dies with the job)",
    )
    B(
        "ci_secret_expression",
        "credentials('dockerhub-creds')",
        "Jenkinsfile: environment { DOCKER = credentials('dockerhub-creds') }",
    )

    # terraform_sensitive_output
    B(
        "terraform_sensitive_output",
        "(sensitive value)",
        'terraform plan:\n  ~ resource "aws_db_instance" "orders" {\n      ~ password = (sensitive value)\n    }',
    )
    B(
        "terraform_sensitive_output",
        "<sensitive>",
        '$ terraform output\ndb_endpoint = "orders-prod.c8x2kq.eu-west-1.rds.amazonaws.com"\ndb_master_password = <sensitive>',
    )

    # url_without_password
    B(
        "url_without_password",
        "postgres://iam_app@orders-prod.c8x2kq.eu-west-1.rds.amazonaws.com:5432/orders?sslmode=verify-full",
        "app now uses IAM auth, no password in the URL at all: "
        "postgres://iam_app@orders-prod.c8x2kq.eu-west-1.rds.amazonaws.com:5432/orders?sslmode=verify-full",
    )
    B(
        "url_without_password",
        "mongodb+srv://cluster0.q8xk2.mongodb.net/?authMechanism=MONGODB-AWS",
        "mongo connection via aws auth: mongodb+srv://cluster0.q8xk2.mongodb.net/?authMechanism=MONGODB-AWS",
    )

    # default_or_docs_url_creds
    B(
        "default_or_docs_url_creds",
        "amqp://guest:guest@localhost:5672/",
        "local dev broker only (rabbit default creds, only works on localhost): amqp://guest:guest@localhost:5672/",
    )
    B(
        "default_or_docs_url_creds",
        "redis://:password@localhost:6379/0",
        "docs example, not our config: redis://:password@localhost:6379/0",
    )

    # git_commit_sha
    v = hx(40)
    B(
        "git_commit_sha",
        v,
        f"regression introduced in {v} (bump pgbouncer pool_size); reverted in {hx(7)}",
    )
    v = hx(40)
    B(
        "git_commit_sha",
        v,
        f"argocd app status: Sync: OutOfSync  Revision: {v}",
    )
    v = hx(40)
    B(
        "git_commit_sha",
        v,
        f"- uses: actions/checkout@{v}  # v4.2.2, pinned by sha per policy",
    )

    # image_digest
    v = "sha256:" + hx(64)
    B(
        "image_digest",
        v,
        f"rolled checkout back to the last good image ghcr.io/acme/checkout@{v}",
    )
    v = "sha256:" + hx(64)
    B(
        "image_digest",
        v,
        f'  Normal  Pulled  kubelet  Successfully pulled image "registry.acme.io/api:4.18.2" in 2.1s. Image digest: {v}',
    )

    # container_id
    v = hx(64)
    B(
        "container_id",
        v,
        f"containerStatuses:\n  - containerID: containerd://{v}\n    lastState:\n      terminated:\n        reason: OOMKilled",
    )
    v = hx(12)
    B(
        "container_id",
        v,
        f"$ docker ps --filter name=pgbouncer\nCONTAINER ID   IMAGE                      STATUS\n{v}   edoburu/pgbouncer:1.22.1   Up 3 hours (unhealthy)",
    )

    # artifact_checksum
    v = hx(64)
    B(
        "artifact_checksum",
        v,
        f"verified the terraform binary before installing on the runners:\n{v}  terraform_1.9.8_linux_amd64.zip",
    )
    v = hx(128)
    B(
        "artifact_checksum",
        v,
        f"SHA512 of the support bundle the customer uploaded (matches their side): {v}",
    )
    v = hx(32)
    B(
        "artifact_checksum",
        v,
        f"md5sum base-2026-11-30.tar.zst -> {v}, same as the manifest, backup intact",
    )

    # npm_integrity_hash
    v = "sha512-" + rs(B64, 86) + "=="
    B(
        "npm_integrity_hash",
        v,
        f'package-lock diff that broke CI:\n"integrity": "{v}"',
    )
    v = "sha384-" + rs(B64, 64)
    B(
        "npm_integrity_hash",
        v,
        f'status page CDN script tag: <script src="https://cdn.statuspage.io/se-v2.js" integrity="{v}" crossorigin="anonymous">',
    )

    # go_sum_hash
    v = "h1:" + rs(B64, 43) + "="
    B(
        "go_sum_hash",
        v,
        f"go: verifying module: checksum mismatch\n  downloaded: {v}\n  go.sum:     h1:{rs(B64, 43)}=",
    )
    v = "h1:" + rs(B64, 43) + "="
    B(
        "go_sum_hash",
        v,
        f"github.com/aws/aws-sdk-go-v2/service/sts v1.33.2 {v}",
    )

    # s3_etag
    v = hx(32) + "-" + str(rng.randint(2, 900))
    B(
        "s3_etag",
        v,
        f'$ aws s3api head-object --bucket acme-prod-backups --key pg/base.tar.zst\n    "ETag": "\\"{v}\\"",\n'
        f'    "ContentLength": 48213409812',
    )
    v = hx(32)
    B(
        "s3_etag",
        v,
        f"gsutil ls -L gs://acme-exports/8812/export.csv.gz | grep md5 -> Hash (md5): {v}",
    )

    # request_id_hex
    v = hx(32)
    B(
        "request_id_hex",
        v,
        f"customer's failing call has x-request-id {v}; found it in the gateway logs, upstream 504",
    )
    v = hx(32)
    B(
        "request_id_hex",
        v,
        f"Datadog trace_id={int(v[:16], 16)} span {v} -- slow span is the pg query on invoices",
    )
    v = hx(40)
    B(
        "request_id_hex",
        v,
        f"Cloudflare cf-ray: {rs(HEX, 16)}-FRA, ticket #{rng.randint(10000, 99999)} error id {v}",
    )

    # trace_context
    v = f"00-{hx(32)}-{hx(16)}-01"
    B(
        "trace_context",
        v,
        f"traceparent: {v}\n(pasted from the failing request so the tempo link works)",
    )
    v = f"Root=1-{hx(8)}-{hx(24)};Parent={hx(16)};Sampled=1"
    B(
        "trace_context",
        v,
        f"X-Amzn-Trace-Id: {v}",
    )

    # amz_request_ids
    v = rs(B64, 76)
    B(
        "amz_request_ids",
        v,
        f"AccessDenied on PutObject. x-amz-request-id: {rs(UP + DIG, 16)} x-amz-id-2: {v}",
    )
    v = rs(UP + DIG, 16)
    B(
        "amz_request_ids",
        v,
        f"An error occurred (SlowDown) when calling the PutObject operation; RequestId: {v}",
    )

    # uuid_identifiers
    v = uuid()
    B(
        "uuid_identifiers",
        v,
        f"tenant {v} is the one with 40k orphaned jobs in the queue; support ticket links to it",
    )
    v = uuid()
    B(
        "uuid_identifiers",
        v,
        f'{{"level":"error","msg":"payment capture timeout","order_id":"{v}","attempt":3}}',
    )
    v = uuid()
    B(
        "uuid_identifiers",
        v,
        f"SQS DLQ sample: MessageId {v}, ApproximateReceiveCount 10, body is a plain order event",
    )

    # terraform_lock_id
    v = uuid()
    B(
        "terraform_lock_id",
        v,
        f"Error acquiring the state lock\nLock Info:\n  ID:        {v}\n  Path:      acme-tfstate/prod/network.tfstate\n"
        f"  Who:       runner@ip-10-0-3-12",
    )
    v = uuid()
    B(
        "terraform_lock_id",
        v,
        f"after confirming nobody was applying: terraform force-unlock {v}",
    )

    # pagerduty_ids
    v = "P" + rs(UP + DIG, 6)
    B(
        "pagerduty_ids",
        v,
        f"PD service id {v}, escalation policy P{rs(UP + DIG, 6)}; incident Q{rs(UP + DIG, 13)} auto-resolved 04:02",
    )
    v = "Q" + rs(UP + DIG, 13)
    B(
        "pagerduty_ids",
        v,
        f"ack'd PD incident {v} from the app, dedup_key was checkout-5xx-rate",
    )

    # slack_channel_ids
    v = "C0" + rs(UP + DIG, 9)
    B(
        "slack_channel_ids",
        v,
        f"incident channel id {v}, bot user U0{rs(UP + DIG, 9)}, team T0{rs(UP + DIG, 8)}",
    )
    v = f"{rng.randint(1700000000, 1799999999)}.{rs(DIG, 6)}"
    B(
        "slack_channel_ids",
        v,
        f"decision thread: https://acme.slack.com/archives/C04INCIDENT/p{v.replace('.', '')} (ts {v})",
    )

    # slack_webhook_redacted
    v = f"https://hooks.slack.com/services/T{rs(UP + DIG, 8)}/B{rs(UP + DIG, 10)}/XXXXXXXXXXXXXXXXXXXXXXXX"
    B(
        "slack_webhook_redacted",
        v,
        f"alertmanager.yml (as committed, real url comes from the secret): api_url: {v}",
    )
    B(
        "slack_webhook_redacted",
        "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
        "Slack's own docs example: https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
    )

    # stripe_publishable_key
    v = "pk_live_" + rs(ALNUM, 99)
    B(
        "stripe_publishable_key",
        v,
        f"checkout page shows the wrong account's logo -- publishable key in the bundle is {v}, belongs to the old entity",
    )
    v = "pk_test_" + rs(ALNUM, 99)
    B(
        "stripe_publishable_key",
        v,
        f"NEXT_PUBLIC_STRIPE_PK={v}  (publishable, ships to the browser)",
    )

    # datadog_client_token
    v = "pub" + hx(32)
    B(
        "datadog_client_token",
        v,
        f"RUM init: datadogRum.init({{ applicationId: '{uuid()}', clientToken: '{v}', site: 'datadoghq.eu' }})",
    )
    v = "pub" + hx(32)
    B(
        "datadog_client_token",
        v,
        f"browser logs client token {v} is public by design, it can only submit logs",
    )

    # mapbox_public_token
    v = "pk." + b64u({"u": "acme-maps", "a": rs(LO + DIG, 25)}) + "." + rs(B64URL, 22)
    B(
        "mapbox_public_token",
        v,
        f"store locator map blank: the public token {v} has URL restriction to acme.com only, staging is blocked",
    )
    v = "pk." + b64u({"u": "acme-ops", "a": rs(LO + DIG, 25)}) + "." + rs(B64URL, 22)
    B(
        "mapbox_public_token",
        v,
        f"mapboxgl.accessToken = '{v}';",
    )

    # sentry_dsn
    v = f"https://{hx(32)}@o{rs(DIG, 6)}.ingest.sentry.io/{rs(DIG, 7)}"
    B(
        "sentry_dsn",
        v,
        f"frontend SENTRY_DSN={v} (DSN is public, it's in the JS bundle anyway)",
    )
    v = f"https://{hx(32)}@sentry.acme.io/14"
    B(
        "sentry_dsn",
        v,
        f"events from the ios app not showing up; DSN in the build is {v}, project 14 is right",
    )

    # ssh_public_key
    v = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + rs(B64, 43) + " mkovacs@oncall-laptop"
    B(
        "ssh_public_key",
        v,
        f"added to bastion authorized_keys for the weekend rotation:\n{v}",
    )
    v = "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABgQ" + rs(B64, 360) + "= deploy@ci"
    B(
        "ssh_public_key",
        v,
        f"deploy key (read-only) registered on acme/infra-live: {v}",
    )

    # ssh_host_fingerprint
    v = "SHA256:" + rs(B64, 43)
    B(
        "ssh_host_fingerprint",
        v,
        f"WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!\nThe fingerprint for the ED25519 key sent by the remote host is\n"
        f"{v}.\n-> expected, bastion was rebuilt in INC-4420",
    )
    v = "SHA256:" + rs(B64, 43)
    B(
        "ssh_host_fingerprint",
        v,
        f"$ ssh-keygen -lf ~/.ssh/id_ed25519.pub\n256 {v} mkovacs@oncall-laptop (ED25519)",
    )

    # x509_certificate
    v = (
        "-----BEGIN CERTIFICATE-----\n"
        + pem_body(4, "MIIFazCCA1OgAwIBAgIR")
        + "\n-----END CERTIFICATE-----"
    )
    B(
        "x509_certificate",
        v,
        f"intermediate that was missing from the chain (public cert, paste into the bundle):\n{v}",
    )
    v = (
        "-----BEGIN CERTIFICATE-----\n"
        + pem_body(4, "MIIDdzCCAl+gAwIBAgIE")
        + "\n-----END CERTIFICATE-----"
    )
    B(
        "x509_certificate",
        v,
        f"$ openssl s_client -connect api.acme.io:443 -showcerts </dev/null 2>/dev/null | sed -n '/BEGIN/,/END/p' | head -40\n{v}",
    )

    # pgp_public_key
    v = (
        "-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nmQINBG"
        + rs(B64, 58)
        + "\n"
        + "\n".join(rs(B64, 64) for _ in range(2))
        + "\n="
        + rs(B64, 4)
        + "\n-----END PGP PUBLIC KEY BLOCK-----"
    )
    B(
        "pgp_public_key",
        v,
        f"security@ public key for customers who want to send us encrypted repro data:\n{v}",
    )
    v = (
        "-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nmDMEZ"
        + rs(B64, 59)
        + "\n"
        + rs(B64, 40)
        + "\n-----END PGP PUBLIC KEY BLOCK-----"
    )
    B(
        "pgp_public_key",
        v,
        f"apt repo signing key (public) for the internal mirror:\n{v}",
    )

    # wireguard_public_key
    v = rs(B64, 42) + rs("AEIMQUYcgkosw048", 1) + "="
    B(
        "wireguard_public_key",
        v,
        f"$ wg show wg0\ninterface: wg0\n  public key: {v}\n  listening port: 51820",
    )
    v = rs(B64, 42) + rs("AEIMQUYcgkosw048", 1) + "="
    B(
        "wireguard_public_key",
        v,
        f"new peer added on the gateway:\n[Peer]\nPublicKey = {v}\nAllowedIPs = 10.99.0.14/32",
    )

    # age_public_key
    v = "age1" + rs(BECH32, 58)
    B(
        "age_public_key",
        v,
        f".sops.yaml creation_rules:\n  - path_regex: overlays/prod/.*\n    age: {v}",
    )
    v = "age1" + rs(BECH32, 58)
    B(
        "age_public_key",
        v,
        f"recipient for the DR bundle encryption is {v} (public half; private half is on the yubikey)",
    )

    # gpg_key_id
    v = rs("0123456789ABCDEF", 40)
    B(
        "gpg_key_id",
        v,
        f"release tags must be signed with key {v}; git verify-tag fails on 4.18.1 -- wrong subkey",
    )
    v = rs("0123456789ABCDEF", 16)
    B(
        "gpg_key_id",
        v,
        f"apt update: NO_PUBKEY {v} on the pg repo, re-import from apt.postgresql.org",
    )

    # cloudflare_zone_id
    v = hx(32)
    B(
        "cloudflare_zone_id",
        v,
        f"cloudflare zone id for acme.io: {v}, account id {hx(32)} (ids, not creds)",
    )
    v = hx(32)
    B(
        "cloudflare_zone_id",
        v,
        f'resource "cloudflare_record" "api" {{\n  zone_id = "{v}"\n  name    = "api"\n  type    = "CNAME"\n}}',
    )

    # jwt_io_sample
    v = (
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ"
        ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
    )
    B(
        "jwt_io_sample",
        v,
        f"the 'token' in the customer's bug report is just the jwt.io default sample (John Doe, sub 1234567890): {v}",
    )
    v = jwt(
        {"alg": "RS256", "kid": "test"},
        {"sub": "test-user", "iss": "https://example.com", "exp": 1600000000},
        0,
    )
    B(
        "jwt_io_sample",
        v,
        f"unit-test fixture jwt has an EMPTY signature part and exp in 2020, the verifier must reject it: {v}",
    )

    # stored_token_hash
    v = hx(64)
    B(
        "stored_token_hash",
        v,
        f"api_keys table only stores sha256(key): {v} for key prefix 'ak_live_7Q' -- can't recover it, customer must regenerate",
    )
    v = "$argon2id$v=19$m=65536,t=3,p=4$" + rs(B64, 22) + "$" + rs(B64, 43)
    B(
        "stored_token_hash",
        v,
        f"personal_access_tokens.token_digest for the leaked row (token already revoked): {v}",
    )

    # base64_config
    v = b64e(
        json.dumps(
            {"env": "prod", "region": "eu-west-1", "replicas": 3, "feature_x": False}
        ).encode()
    )
    B(
        "base64_config",
        v,
        f"configmap data is base64 because someone used a Secret by mistake; decoded it's just settings: {v}",
    )
    v = b64e(b"[client]\nhost=pg-replica-2\nport=5432\nconnect_timeout=5\n")
    B(
        "base64_config",
        v,
        f"$ kubectl get secret pgclient-conf -o jsonpath='{{.data.client\\.conf}}'\n{v}\n(decoded: host/port/timeout only)",
    )

    # analytics_cookie
    v = f"GA1.2.{rng.randint(100000000, 999999999)}.{rng.randint(1700000000, 1799999999)}"
    B(
        "analytics_cookie",
        v,
        f"from the customer's HAR, non-auth cookies only: _ga={v}; cookieconsent_status=dismiss",
    )
    v = rs(HEX, 32)
    B(
        "analytics_cookie",
        v,
        f"Set-Cookie: __cf_bm_experiment={v}; path=/; expires=Thu, 01 Jan 1970 00:00:00 GMT (cleared, A/B bucket id)",
    )

    # revoked_token_truncated
    v = "sk_live_..." + rs(ALNUM, 4)
    B(
        "revoked_token_truncated",
        v,
        f"Post-mortem INC-4412 timeline: 09:14 rolled key {v} (last 4 shown in dashboard); 09:15 old key returns 401",
    )
    v = "AKIA..." + rs(UP + "234567", 4)
    B(
        "revoked_token_truncated",
        v,
        f"IAM key {v} deleted (aws iam delete-access-key); CloudTrail since then shows no use",
    )

    # password_policy_talk
    B(
        "password_policy_talk",
        "",
        "Action item from the PIR: enforce 90-day password rotation for db service users and move them to "
        "IAM auth where possible. Owner: platform. Due 2027-01-15.",
    )
    B(
        "password_policy_talk",
        "",
        "SUP-5120: customer locked out after 5 wrong passwords. Reset flow sent a magic link; "
        "no password was shared in the ticket.",
    )
    B(
        "password_policy_talk",
        "password_min_length = 14",
        "aws iam update-account-password-policy: password_min_length = 14, require symbols, reuse prevention 24",
    )

    # key_word_other_sense
    B(
        "key_word_other_sense",
        "partition key",
        "hot partition on the orders table: partition key is tenant_id, and tenant 8812 does 60% of writes",
    )
    B(
        "key_word_other_sense",
        "idempotency_key_uniq",
        'duplicate key value violates unique constraint "idempotency_key_uniq" DETAIL: Key (key)=(ord-99812) already exists.',
    )
    B(
        "key_word_other_sense",
        "",
        "cache keys now include the locale: `product:{id}:{locale}`; the stale-price bug was a missing key segment",
    )
    B(
        "key_word_other_sense",
        "SORT_KEY",
        "DynamoDB throttling on GSI2 -- the SORT_KEY is a timestamp so every write lands on one key",
    )

    # token_word_other_sense
    B(
        "token_word_other_sense",
        "",
        "nginx limit_req: token bucket refills at 50r/s with burst 100; the 429s were legit",
    )
    B(
        "token_word_other_sense",
        "max_tokens",
        "LLM summarizer truncated post-mortems because max_tokens was 512; bumped to 4096",
    )
    B(
        "token_word_other_sense",
        "",
        "parser error: unexpected token '}' at line 41 of values-prod.yaml (helm template failed, not an auth issue)",
    )

    # rotation_narrative
    B(
        "rotation_narrative",
        "",
        "Handover: rotated the Datadog API key, updated the k8s secret via ESO and restarted the agents. Old key "
        "revoked in DD UI at 21:40. Nothing to do unless agents start 403ing.",
    )
    B(
        "rotation_narrative",
        "",
        "Support macro: 'Your API token appears in a public repository. We have revoked it. Please create a new "
        "one under Settings > API and keep it out of source control.'",
    )
    B(
        "rotation_narrative",
        "",
        "Vault root token was generated for the upgrade and revoked right after (vault token revoke -self). "
        "Recovery keys still held by the 3 custodians.",
    )

    # secret_env_names
    B(
        "secret_env_names",
        "REDIS_PASSWORD",
        "required env for the worker: DATABASE_URL, REDIS_PASSWORD, SENTRY_DSN, STRIPE_SECRET_KEY (all from ESO)",
    )
    B(
        "secret_env_names",
        "JWT_SECRET",
        "$ kubectl get secret auth-env -o json | jq -r '.data | keys[]'\nJWT_SECRET\nOAUTH_CLIENT_SECRET\nSESSION_KEY",
    )
    B(
        "secret_env_names",
        "aws_secret_access_key",
        "`aws configure list` shows aws_secret_access_key ****************3F2a shared-credentials-file -- wrong profile",
    )

    # feature_flag_key
    v = "6512" + hx(20)
    B(
        "feature_flag_key",
        v,
        f"LaunchDarkly client-side ID for the web app is {v} (public, it's in the JS bundle); "
        f"the server SDK key (sdk-...) was reissued on 2026-12-01 and only lives in vault",
    )
    B(
        "feature_flag_key",
        "checkout.new-tax-engine",
        "kill switch used during the SEV: flag key checkout.new-tax-engine -> off for all tenants",
    )

    # idempotency_key
    v = uuid()
    B(
        "idempotency_key",
        v,
        f"double charge repro: both POSTs sent Idempotency-Key: {v}, second one returned the cached 200",
    )
    v = "ikey_" + rs(ALNUM, 24)
    B(
        "idempotency_key",
        v,
        f"retry storm from the mobile client reused {v} as the idempotency key for 3 different carts",
    )

    # cloudfront_and_endpoint_ids
    v = "E" + rs(UP + DIG, 13)
    B(
        "cloudfront_and_endpoint_ids",
        v,
        f"aws cloudfront create-invalidation --distribution-id {v} --paths '/static/*'",
    )
    v = f"internal-k8s-prod-{hx(10)}-{rs(DIG, 10)}.eu-west-1.elb.amazonaws.com"
    B(
        "cloudfront_and_endpoint_ids",
        v,
        f"ALB for ingress: {v}, target group healthy 3/3",
    )
    v = "vpce-" + hx(17)
    B(
        "cloudfront_and_endpoint_ids",
        v,
        f"S3 traffic goes through {v}; the bucket policy denies everything else, that's why the laptop got 403",
    )

    # ci_run_ids
    v = str(rng.randint(10**10, 10**11))
    B(
        "ci_run_ids",
        v,
        f"failed workflow run: https://github.com/acme/infra/actions/runs/{v}/job/{rng.randint(10**10, 10**11)}",
    )
    v = f"{hx(8)}-{hx(4)}-{hx(4)}-{hx(4)}-{hx(12)}"
    B(
        "ci_run_ids",
        v,
        f"buildkite build {rng.randint(1000, 9999)} (uuid {v}) is the last green main",
    )

    # github_app_ids
    v = "Iv1." + hx(16)
    B(
        "github_app_ids",
        v,
        f"acme-deployer GitHub App: App ID {rng.randint(100000, 999999)}, client ID {v}, installation "
        f"{rng.randint(10000000, 99999999)} on the acme org (private key is in vault, not here)",
    )
    v = "Iv23li" + rs(ALNUM, 14)
    B(
        "github_app_ids",
        v,
        f"device-flow login for the CLI uses the public client id {v}; no client secret needed for device flow",
    )

    # docker_config_credhelper
    B(
        "docker_config_credhelper",
        '"credsStore": "ecr-login"',
        '~/.docker/config.json on the runners now has no auth blobs at all:\n{\n  "credsStore": "ecr-login"\n}',
    )
    B(
        "docker_config_credhelper",
        '"auth": ""',
        'docker login succeeded but config shows "auths": {"ghcr.io": {"auth": ""}} -- creds live in osxkeychain',
    )

    # kubeconfig_exec_auth
    B(
        "kubeconfig_exec_auth",
        "args: [eks, get-token, --cluster-name, prod-eu]",
        "users:\n- name: prod-eu\n  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/v1beta1\n"
        "      command: aws\n      args: [eks, get-token, --cluster-name, prod-eu]",
    )
    v = "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t" + rs(B64, 120)
    B(
        "kubeconfig_exec_auth",
        v,
        f"clusters:\n- cluster:\n    certificate-authority-data: {v}\n    server: https://10.0.0.1:6443\n"
        f"(CA cert is public; auth is via gke-gcloud-auth-plugin)",
    )

    # pgpass_format_doc
    B(
        "pgpass_format_doc",
        "hostname:port:database:username:password",
        "reminder: ~/.pgpass lines are hostname:port:database:username:password and the file must be chmod 0600",
    )
    B(
        "pgpass_format_doc",
        "*:5432:*:replicator:*",
        "pg_basebackup kept prompting; the .pgpass entry `*:5432:*:replicator:*` has a literal * as password, "
        "that's the bug (real one comes from vault now)",
    )

    # ssh_known_hosts_line
    v = (
        "ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBB"
        + rs(B64, 86)
        + "="
    )
    B(
        "ssh_known_hosts_line",
        v,
        f"pin github's host key in the runner image:\ngithub.com {v}",
    )
    v = "|1|" + rs(B64, 27) + "=|" + rs(B64, 27) + "="
    B(
        "ssh_known_hosts_line",
        v,
        f"known_hosts is hashed so grep won't find the bastion: {v} ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{rs(B64, 43)}",
    )

    # stripe_object_ids
    v = "pi_" + rs(ALNUM, 24)
    B(
        "stripe_object_ids",
        v,
        f"double capture on {v} (customer cus_{rs(ALNUM, 14)}); refund re_{rs(ALNUM, 24)} issued",
    )
    v = "evt_" + rs(ALNUM, 24)
    B(
        "stripe_object_ids",
        v,
        f"webhook redelivery: stripe events resend {v} --webhook-endpoint we_{rs(ALNUM, 24)}",
    )
    v = "acct_" + rs(ALNUM, 16)
    B(
        "stripe_object_ids",
        v,
        f"Connect platform account {v} flagged for review, payouts paused -- not an outage on our side",
    )

    # twilio_account_sid
    v = "AC" + hx(32)
    B(
        "twilio_account_sid",
        v,
        f"SMS pages failing with 20003; account SID {v} is right, the auth token in vault is the stale one",
    )
    v = "SK" + hx(32)
    B(
        "twilio_account_sid",
        v,
        f"API key SID {v} (the SID is just the name of the key; its secret was shown once and is in vault)",
    )

    # consul_accessor_id
    v = uuid()
    B(
        "consul_accessor_id",
        v,
        f"$ consul acl token list -format=json | jq -r '.[] | select(.Description==\"ci\") | .AccessorID'\n{v}",
    )
    v = uuid()
    B(
        "consul_accessor_id",
        v,
        f"revoked the leaked consul token by accessor: consul acl token delete -id {v}",
    )

    # vault_lease_id
    v = "database/creds/readonly/" + rs(ALNUM, 24)
    B(
        "vault_lease_id",
        v,
        f"dynamic pg creds expired mid-migration; lease_id {v}, ttl was 1h, bumped role max_ttl to 4h",
    )
    v = "aws/creds/deploy/" + rs(ALNUM, 24)
    B(
        "vault_lease_id",
        v,
        f"vault lease revoke {v}  # kills the IAM user vault created for the deploy",
    )

    # k8s_pod_names
    v = f"checkout-{hx(10)}-{rs(LO + DIG, 5)}"
    B(
        "k8s_pod_names",
        v,
        f"$ kubectl -n payments get pods | grep -v Running\n{v}   0/1   CrashLoopBackOff   17 (2m ago)   58m",
    )
    v = f"acme-prod-backups-{rs(LO + DIG, 12)}"
    B(
        "k8s_pod_names",
        v,
        f"terraform random_id suffix made the bucket name {v}; update the backup cronjob's target",
    )

    # ------------------------------------------------------------------ checks
    texts = set()
    for r in rows:
        assert r["value"] in r["text"], (r["kind"], r["value"])
        assert r["text"] not in texts, r["text"]
        texts.add(r["text"])
    return rows


def main() -> None:
    rows = corpus()
    out = "\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n"
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w", encoding="utf-8") as fh:
            fh.write(out)
    else:
        sys.stdout.write(out)


if __name__ == "__main__":
    main()

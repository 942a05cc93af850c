# ruff: noqa: E501
"""Blind secret-detection corpus 14: data, ML and mobile engineers' notes.

What it is: memories that data engineers, ML engineers and mobile/game developers
would ask a coding agent to keep -- Jupyter cells, SQL and warehouse connection
strings (Snowflake, BigQuery, Redshift, Databricks, ClickHouse), dbt profiles,
Airflow connections, MLflow / Weights & Biases / Hugging Face / Replicate /
OpenAI-style API keys, Android and iOS signing (keystores, provisioning, App Store
Connect, Firebase, Play Console), game and payment SDKs -- plus the look-alikes
these people write all day (dataset ids, run ids, model hashes, bundle ids,
public SDK keys, certificate fingerprints, vault references, placeholders).

Written blind on 2026-12-06: the author did not read the detector, its tests or any earlier corpus.
Every token-shaped value is generated from a fixed seed
inside corpus(); none is a real credential.

Run:
    python benchmarks/data/blind_secrets/blind_secrets_14.py out.jsonl
(writes JSONL rows {"label", "kind", "text", "value"}; stdout without argument)

Kinds, secret:
    snowflake_password, snowflake_private_key, dbt_profile_password,
    dbt_cloud_token, bigquery_sa_private_key, redshift_password,
    aws_secret_access_key, databricks_pat, databricks_oauth_secret,
    clickhouse_password, clickhouse_basic_auth, airflow_conn_password,
    airflow_fernet_key, airflow_webserver_secret, mlflow_tracking_password,
    wandb_api_key, hf_token, replicate_token, openai_api_key, openai_admin_key,
    anthropic_api_key, groq_api_key, perplexity_api_key, gemini_api_key,
    kaggle_key, pinecone_api_key, langsmith_api_key, neptune_api_token,
    comet_api_key, label_studio_token, modal_token_secret, ngc_api_key,
    pypi_token, github_token_in_requirements, jupyter_server_token,
    jupyter_kernel_hmac_key, s3_presigned_url, gcs_signed_url,
    azure_storage_account_key, azure_sas_token, confluent_api_secret,
    redis_broker_password, feature_store_db_password, minio_secret_key,
    slack_alert_webhook, model_serving_jwt, google_refresh_token,
    google_access_token, google_oauth_client_secret, android_store_password,
    android_key_password, android_keystore_base64, asc_api_private_key,
    apns_auth_key, apple_app_specific_password, fastlane_match_password,
    ios_p12_password, apple_iap_shared_secret, firebase_admin_private_key,
    fcm_legacy_server_key, play_publisher_private_key, expo_access_token,
    mapbox_secret_token, stripe_secret_key, stripe_restricted_key,
    stripe_webhook_secret, revenuecat_secret_key, braintree_private_key,
    braintree_access_token, paypal_client_secret, adyen_api_key,
    playfab_secret_key, steam_web_api_key, eos_client_secret, unity_ci_password,
    dataset_encryption_key, tableau_pat_secret, sentry_auth_token,
    supabase_service_role_key, onesignal_rest_api_key, store_console_login

Kinds, benign:
    dbt_env_var_template, airflow_masked_uri, gcp_private_key_id_only,
    bigquery_job_id, snowflake_query_id, databricks_resource_id,
    databricks_secret_reference, redacted_api_key, mlflow_run_id,
    mlflow_model_uri, wandb_run_path, wandb_artifact_digest,
    api_key_placeholder, hf_revision_sha, hf_dataset_id,
    replicate_version_id, replicate_prediction_id, openai_object_id,
    model_weights_sha256, git_lfs_pointer, dvc_md5, android_cert_fingerprint,
    facebook_key_hash, firebase_app_id, gradle_env_lookup,
    android_debug_keystore, apple_team_and_bundle_id,
    provisioning_profile_uuid, asc_key_id_and_issuer, apns_device_token,
    codesign_identity, stripe_publishable_key, stripe_object_id,
    revenuecat_public_sdk_key, adyen_client_key, braintree_tokenization_key,
    paypal_client_id, admob_id, unity_asset_guid, mapbox_public_token,
    google_oauth_client_id, sentry_dsn, mixpanel_project_token,
    amplitude_api_key, algolia_search_only_key, launchdarkly_client_side_id,
    aws_documentation_example_key, aws_access_key_id_alone,
    secret_manager_reference, password_manager_reference,
    ci_secret_template, sops_ciphertext, ssh_public_key,
    snowflake_rsa_public_key, play_licensing_public_key,
    container_image_digest, git_commit_sha, surrogate_key_hash,
    tokenizer_token_sense, sql_key_sense, credential_policy_talk,
    jwt_io_sample, payment_test_card, drive_file_id, xcode_object_id,
    dependency_lock_checksum, steam_ids, expo_project_id,
    clickhouse_dedup_token, api_page_token, idempotency_key,
    env_example_empty, airflow_run_and_xcom_key, s3_etag, supabase_anon_key,
    onesignal_app_id, notebook_output_hash, experiment_config_hash,
    jupyter_cell_metadata, k8s_secret_key_ref, wandb_sweep_id, tls_pin_hash,
    age_recipient, store_transaction_id, sso_authenticator_profile
"""

from __future__ import annotations

import base64
import json
import random
import string
import sys

SEED = 514014

ALNUM = string.ascii_letters + string.digits
LOWER_ALNUM = string.ascii_lowercase + string.digits
UPPER_ALNUM = string.ascii_uppercase + string.digits
B64 = ALNUM + "+/"
B64URL = ALNUM + "-_"
HEX = "0123456789abcdef"


def corpus() -> list[dict]:
    r = random.Random(SEED)

    def pick(alphabet: str, n: int) -> str:
        return "".join(r.choice(alphabet) for _ in range(n))

    def hx(n: int) -> str:
        return pick(HEX, n)

    def HX(n: int) -> str:
        return pick(HEX.upper(), n)

    def an(n: int) -> str:
        return pick(ALNUM, n)

    def la(n: int) -> str:
        return pick(LOWER_ALNUM, n)

    def ua(n: int) -> str:
        return pick(UPPER_ALNUM, n)

    def b64(n: int) -> str:
        return pick(B64, n)

    def rb64(n: int) -> str:
        return base64.b64encode(r.randbytes(n)).decode()

    def rb64u(n: int) -> str:
        return base64.urlsafe_b64encode(r.randbytes(n)).decode()

    def bu(n: int) -> str:
        return pick(B64URL, n)

    def dg(n: int) -> str:
        return str(r.randint(1, 9)) + pick(string.digits, n - 1)

    def uid() -> str:
        h = hx(32)
        h = h[:12] + "4" + h[13:16] + r.choice("89ab") + h[17:]
        return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"

    words = [
        "Glacier",
        "Tapir",
        "Marmot",
        "Quokka",
        "Basalt",
        "Fjord",
        "Nimbus",
        "Cobalt",
        "Walrus",
        "Juniper",
        "Pelican",
        "Saffron",
        "Tundra",
        "Otter",
    ]

    def pw() -> str:
        style = r.randint(0, 2)
        if style == 0:
            return (
                r.choice(words)
                + r.choice("!#%*-_.")
                + r.choice(words).lower()
                + str(r.randint(10, 9999))
            )
        if style == 1:
            return pick(ALNUM + "!#%^*_-+=", r.randint(16, 24))
        return an(r.randint(18, 28))

    def pwu() -> str:  # URL-safe password
        return pick(ALNUM + "-_.", r.randint(16, 26))

    def pem_rsa_json() -> str:
        body = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ" + b64(1570) + "="
        lines = [body[i : i + 64] for i in range(0, len(body), 64)]
        return (
            "-----BEGIN PRIVATE KEY-----\\n" + "\\n".join(lines) + "\\n-----END PRIVATE KEY-----\\n"
        )

    def pem_ec() -> str:
        body = "MIGTAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBHkwdwIBAQQg" + b64(152)
        lines = [body[i : i + 64] for i in range(0, len(body), 64)]
        return "-----BEGIN PRIVATE KEY-----\n" + "\n".join(lines) + "\n-----END PRIVATE KEY-----"

    def pub_rsa_b64() -> str:
        return "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA" + b64(342) + "IDAQAB"

    def b64url_json(obj: dict) -> str:
        raw = json.dumps(obj, separators=(",", ":")).encode()
        return base64.urlsafe_b64encode(raw).decode().rstrip("=")

    def jwt(payload: dict) -> str:
        head = b64url_json({"alg": "RS256", "typ": "JWT", "kid": hx(16)})
        return head + "." + b64url_json(payload) + "." + bu(342)

    def akia() -> str:
        return "AKIA" + pick("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16)

    def aws_secret() -> str:
        return b64(40)

    def colon_hex(n: int) -> str:
        return ":".join(HX(2) for _ in range(n))

    def fcm_key() -> str:
        return "AAAA" + bu(7) + ":APA91b" + bu(134)

    def basic(user: str, password: str) -> str:
        return base64.b64encode(f"{user}:{password}".encode()).decode()

    specs: list[tuple[str, str, object, list[str]]] = []

    def K(label: str, kind: str, gen, templates: list[str]) -> None:
        specs.append((label, kind, gen, templates))

    # ------------------------------------------------------------------ secret
    K(
        "secret",
        "snowflake_password",
        lambda: {"v": pwu()},
        [
            "snowflake conn for the churn notebook: snowflake://ETL_SVC:«v»@xy81734.eu-central-1/ANALYTICS/PUBLIC?warehouse=TRANSFORM_WH&role=LOADER",
            "cell 3 of cohort_analysis.ipynb hard-codes snowflake.connector.connect(user='DATA_BOT', password='«v»', account='ab12345.us-east-1') -- move it to env before sharing",
            "SnowSQL ~/.snowsql/config\n[connections.prod]\naccountname = acme-prod\nusername = SVC_REPORTING\npassword = «v»\nwarehousename = REPORTING_WH",
            "Notiz: Snowflake-Passwort für SVC_EXPORT ist «v» (gilt bis zur Umstellung auf Key-Pair)",
        ],
    )
    K(
        "secret",
        "snowflake_private_key",
        lambda: {"v": pem_rsa_json(), "p": pwu()},
        [
            'SNOWFLAKE_PRIVATE_KEY="«v»" for the key-pair user DBT_KEYPAIR (the public half is already set on the user)',
            'snowpipe streaming client profile.json: {"user": "INGEST_SVC", "account": "acme-prod", "private_key": "«v»", "role": "INGEST"}',
        ],
    )
    K(
        "secret",
        "dbt_profile_password",
        lambda: {"v": pw()},
        [
            "profiles.yml (prod target):\n  type: snowflake\n  account: qa81734.eu-west-1\n  user: DBT_PROD\n  password: «v»\n  role: TRANSFORMER\n  warehouse: TRANSFORM_WH",
            "dbt redshift target 'ci': host analytics.c9x2lqkz1abc.eu-west-1.redshift.amazonaws.com, user dbt_ci, pass: «v», port 5439, dbname dev",
            "for local dbt runs I export DBT_ENV_SECRET_PG_PASSWORD='«v»' -- the profile pulls it with env_var()",
        ],
    )
    K(
        "secret",
        "dbt_cloud_token",
        lambda: {"v": "dbtc_" + bu(54)},
        [
            "dbt Cloud job trigger: curl -X POST -H 'Authorization: Token «v»' https://cloud.getdbt.com/api/v2/accounts/48213/jobs/99012/run/",
            "DBT_CLOUD_API_TOKEN=«v»  # service token, job admin on account 48213",
            "semantic layer service token we gave Hex: «v» (metadata-only + semantic layer perms)",
        ],
    )
    K(
        "secret",
        "bigquery_sa_private_key",
        lambda: {"v": pem_rsa_json(), "k": hx(40)},
        [
            'keyfile.json for dbt-bigquery: {"type": "service_account", "project_id": "acme-dwh", "private_key_id": "«k»", "private_key": "«v»", "client_email": "dbt-runner@acme-dwh.iam.gserviceaccount.com"}',
            'bq-loader SA, private_key field copied out of the JSON so Airflow can take it as an extra: "«v»"',
            'creds = service_account.Credentials.from_service_account_info({"type": "service_account", "client_email": "nb-reader@acme-dwh.iam.gserviceaccount.com", "private_key": "«v»", "token_uri": "https://oauth2.googleapis.com/token"})',
        ],
    )
    K(
        "secret",
        "redshift_password",
        lambda: {"v": pwu()},
        [
            "redshift+psycopg2://etl_user:«v»@analytics-cluster.cxyzabc123.us-east-1.redshift.amazonaws.com:5439/prod",
            "Redshift Serverless admin creds for the 'ml-features' namespace: admin / «v»",
            "wr.redshift.connect(host='rs-prod.internal', user='awsuser', password='«v»', database='dev') in the notebook, works only on VPN",
        ],
    )
    K(
        "secret",
        "aws_secret_access_key",
        lambda: {"v": aws_secret(), "a": akia()},
        [
            "UNLOAD ('select * from events') TO 's3://acme-exports/events_' CREDENTIALS 'aws_access_key_id=«a»;aws_secret_access_key=«v»' PARQUET;",
            "~/.aws/credentials\n[sagemaker]\naws_access_key_id = «a»\naws_secret_access_key = «v»\nregion = eu-west-1",
            "s3fs in the feature notebook: fs = s3fs.S3FileSystem(key='«a»', secret='«v»')",
        ],
    )
    K(
        "secret",
        "databricks_pat",
        lambda: {"v": "dapi" + hx(32)},
        [
            "DATABRICKS_TOKEN=«v»\nDATABRICKS_HOST=https://adb-4829105738291045.5.azuredatabricks.net",
            "~/.databrickscfg\n[DEFAULT]\nhost = https://dbc-a1b2c3d4-e5f6.cloud.databricks.com\ntoken = «v»",
            "jdbc:databricks://adb-4829105738291045.5.azuredatabricks.net:443/default;transportMode=http;ssl=1;httpPath=/sql/1.0/warehouses/8a1b2c3d4e5f6a7b;AuthMech=3;UID=token;PWD=«v»",
            "jeton Databricks perso (expire dans 90 jours) : «v» -- à mettre dans le secret du pipeline",
        ],
    )
    K(
        "secret",
        "databricks_oauth_secret",
        lambda: {"v": "dose" + hx(32), "c": uid()},
        [
            "service principal sp-ml-deploy (M2M OAuth): client_id «c», client_secret «v»",
            "export DATABRICKS_CLIENT_ID=«c»\nexport DATABRICKS_CLIENT_SECRET=«v»",
        ],
    )
    K(
        "secret",
        "clickhouse_password",
        lambda: {"v": pwu()},
        [
            "clickhouse-client --host ch-prod-01.internal --user analytics_rw --password '«v»' --secure",
            "clickhouse://default:«v»@abc123xyz.eu-central-1.aws.clickhouse.cloud:9440/events?secure=true",
            "ClickHouse Cloud 'default' user password after today's reset: «v»",
            "contraseña del usuario etl_writer en ClickHouse: «v» (solo desde la VPN)",
        ],
    )
    K(
        "secret",
        "clickhouse_basic_auth",
        lambda: {"v": basic("grafana_ro", pwu())},
        [
            "curl 'https://ch.acme.io:8443/?query=SELECT%201' -H 'Authorization: Basic «v»'",
            "grafana datasource for clickhouse uses a custom header -> Authorization: Basic «v»",
        ],
    )
    K(
        "secret",
        "airflow_conn_password",
        lambda: {"v": pwu()},
        [
            "AIRFLOW_CONN_WAREHOUSE='postgresql://airflow_etl:«v»@dwh.internal:5432/analytics'",
            "airflow connections add 'mysql_crm' --conn-uri 'mysql://reader:«v»@crm-db.prod:3306/crm'",
            'Connection \'snowflake_default\' in the Airflow UI: login LOADER, password «v», extra {"account": "ab12345", "warehouse": "LOAD_WH"}',
            'AIRFLOW_CONN_CLICKHOUSE_EVENTS=\'{"conn_type": "clickhouse", "host": "ch-prod-01", "login": "airflow", "password": "«v»", "port": 9000}\'',
        ],
    )
    K(
        "secret",
        "airflow_fernet_key",
        lambda: {"v": rb64u(32)},
        [
            "AIRFLOW__CORE__FERNET_KEY=«v»",
            "fernet_key of the prod scheduler (every connection password in the metadata DB is encrypted with it): «v»",
        ],
    )
    K(
        "secret",
        "airflow_webserver_secret",
        lambda: {"v": hx(48)},
        [
            "airflow.cfg\n[webserver]\nsecret_key = «v»\nexpose_config = False",
            "AIRFLOW__WEBSERVER__SECRET_KEY=«v» must be identical on all webserver pods or task logs 403",
        ],
    )
    K(
        "secret",
        "mlflow_tracking_password",
        lambda: {"v": pw()},
        [
            "MLFLOW_TRACKING_URI=https://mlflow.acme.ai\nMLFLOW_TRACKING_USERNAME=ci-bot\nMLFLOW_TRACKING_PASSWORD=«v»",
            "mlflow basic-auth admin after I changed it from the default: admin / «v»",
            "os.environ['MLFLOW_TRACKING_PASSWORD'] = '«v»'  # TODO remove from notebook",
        ],
    )
    K(
        "secret",
        "wandb_api_key",
        lambda: {"v": hx(40)},
        [
            "export WANDB_API_KEY=«v»",
            "~/.netrc on gpu-07\nmachine api.wandb.ai\n  login user\n  password «v»",
            'wandb.login(key="«v»")  # first cell of sweep_lr.ipynb',
            "#!/bin/bash\n#SBATCH --gres=gpu:4\n#SBATCH --time=12:00:00\nexport WANDB_API_KEY=«v»\nsrun python train.py +exp=vit_b16",
        ],
    )
    K(
        "secret",
        "hf_token",
        lambda: {"v": "hf_" + pick(string.ascii_letters, 34)},
        [
            "HF_TOKEN=«v» (write scope, org acme-ml)",
            "huggingface-cli login --token «v» --add-to-git-credential",
            "contents of ~/.cache/huggingface/token on the training box: «v»",
            "git remote set-url origin https://lena:«v»@huggingface.co/acme-ml/whisper-ft-de",
            "[1]: from huggingface_hub import login\n     login(\"«v»\")\n[2]: model = AutoModelForCausalLM.from_pretrained('acme-ml/llama-ft-support')",
        ],
    )
    K(
        "secret",
        "replicate_token",
        lambda: {"v": "r8_" + an(37)},
        [
            "REPLICATE_API_TOKEN=«v»",
            'client = replicate.Client(api_token="«v»")',
            'curl -s -H "Authorization: Bearer «v»" https://api.replicate.com/v1/predictions',
        ],
    )
    K(
        "secret",
        "openai_api_key",
        lambda: {"v": "sk-proj-" + bu(74) + "T3BlbkFJ" + bu(74)},
        [
            "OPENAI_API_KEY=«v»",
            'client = OpenAI(api_key="«v»")  # eval harness, project: rag-evals',
            "the old personal key that still works for the embedding backfill: «v»",
            "%env OPENAI_API_KEY=«v»\n%load_ext autoreload\n%autoreload 2",
        ],
    )
    K(
        "secret",
        "openai_admin_key",
        lambda: {"v": "sk-admin-" + bu(74) + "T3BlbkFJ" + bu(74)},
        [
            "org admin key (usage export job only): «v»",
            'curl https://api.openai.com/v1/organization/usage/completions -H "Authorization: Bearer «v»"',
        ],
    )
    K(
        "secret",
        "anthropic_api_key",
        lambda: {"v": "sk-ant-api03-" + bu(93) + "AA"},
        [
            "ANTHROPIC_API_KEY=«v»",
            "labeling pipeline calls claude with key «v» (billed to the ML cost center)",
        ],
    )
    K(
        "secret",
        "groq_api_key",
        lambda: {"v": "gsk_" + an(52)},
        [
            "GROQ_API_KEY=«v»  # for the latency benchmark",
            "groq client in bench.py: Groq(api_key='«v»')",
        ],
    )
    K(
        "secret",
        "perplexity_api_key",
        lambda: {"v": "pplx-" + an(48)},
        [
            "PERPLEXITY_API_KEY=«v»",
            "research agent uses sonar via key «v»",
        ],
    )
    K(
        "secret",
        "gemini_api_key",
        lambda: {"v": "AIza" + bu(35)},
        [
            "GOOGLE_API_KEY=«v» -- AI Studio key for the gemini eval runs, not restricted",
            "genai.configure(api_key='«v»')",
        ],
    )
    K(
        "secret",
        "kaggle_key",
        lambda: {"v": hx(32)},
        [
            '~/.kaggle/kaggle.json = {"username":"mbeck","key":"«v»"}',
            "KAGGLE_USERNAME=mbeck KAGGLE_KEY=«v» kaggle competitions submit -c titanic -f sub.csv -m 'lgbm v3'",
            "colab setup cell:\nos.environ['KAGGLE_USERNAME'] = 'mbeck'\nos.environ['KAGGLE_KEY'] = '«v»'\n!kaggle datasets download -d acme/receipts",
        ],
    )
    K(
        "secret",
        "pinecone_api_key",
        lambda: {"v": "pcsk_" + an(6) + "_" + an(63)},
        [
            "PINECONE_API_KEY=«v»",
            "pc = Pinecone(api_key=\"«v»\"); index = pc.Index('support-docs')",
        ],
    )
    K(
        "secret",
        "langsmith_api_key",
        lambda: {"v": "lsv2_pt_" + hx(32) + "_" + hx(10)},
        [
            "LANGCHAIN_TRACING_V2=true\nLANGCHAIN_API_KEY=«v»\nLANGCHAIN_PROJECT=rag-prod",
            "langsmith personal token for tracing the eval runs: «v»",
        ],
    )
    K(
        "secret",
        "neptune_api_token",
        lambda: {
            "v": base64.b64encode(
                json.dumps(
                    {
                        "api_address": "https://app.neptune.ai",
                        "api_url": "https://app.neptune.ai",
                        "api_key": uid(),
                    }
                ).encode()
            ).decode()
        },
        [
            "NEPTUNE_API_TOKEN=«v»",
            "neptune.init_run(project='acme/ctr', api_token='«v»')",
        ],
    )
    K(
        "secret",
        "comet_api_key",
        lambda: {"v": an(25)},
        [
            "COMET_API_KEY=«v» COMET_WORKSPACE=acme-vision",
            'comet_ml.Experiment(api_key="«v»", project_name="detector-v5")',
        ],
    )
    K(
        "secret",
        "label_studio_token",
        lambda: {"v": hx(40)},
        [
            "Label Studio API access: curl -H 'Authorization: Token «v»' https://label.acme.ai/api/projects/",
            "LABEL_STUDIO_API_KEY=«v»  (annotator-admin account)",
        ],
    )
    K(
        "secret",
        "modal_token_secret",
        lambda: {"v": "as-" + an(22), "i": "ak-" + an(22)},
        [
            "modal token set --token-id «i» --token-secret «v»",
            "MODAL_TOKEN_ID=«i»\nMODAL_TOKEN_SECRET=«v»",
        ],
    )
    K(
        "secret",
        "ngc_api_key",
        lambda: {"v": "nvapi-" + bu(64)},
        [
            "docker login nvcr.io -u '$oauthtoken' -p «v»",
            "NGC_API_KEY=«v» for pulling the NIM containers",
        ],
    )
    K(
        "secret",
        "pypi_token",
        lambda: {"v": "pypi-AgEIcHlwaS5vcmc" + bu(140)},
        [
            "twine upload dist/* -u __token__ -p «v»",
            "~/.pypirc\n[pypi]\nusername = __token__\npassword = «v»",
        ],
    )
    K(
        "secret",
        "github_token_in_requirements",
        lambda: {"v": "ghp_" + an(36)},
        [
            "requirements.txt line for the private feature lib: git+https://«v»@github.com/acme/featurekit.git@v0.9.2",
            "pip install 'acme-metrics @ git+https://x-access-token:«v»@github.com/acme/metrics.git' in the Colab setup cell",
        ],
    )
    K(
        "secret",
        "jupyter_server_token",
        lambda: {"v": hx(48)},
        [
            "jupyter lab on gpu-03 is at http://127.0.0.1:8888/lab?token=«v»",
            "after `ssh -L 8890:localhost:8888 gpu-05` open http://localhost:8890/?token=«v»",
            "jupyter_server_config.py: c.ServerApp.token = '«v»'  # shared box, bound to 0.0.0.0",
        ],
    )
    K(
        "secret",
        "jupyter_kernel_hmac_key",
        lambda: {"v": uid()},
        [
            'kernel-48213.json: {"shell_port": 53794, "iopub_port": 53795, "stdin_port": 53796, "control_port": 53797, "hb_port": 53798, "ip": "0.0.0.0", "key": "«v»", "transport": "tcp", "signature_scheme": "hmac-sha256"}',
            "to attach a second console to the remote kernel you need its HMAC key: «v» (signature_scheme hmac-sha256)",
        ],
    )
    K(
        "secret",
        "s3_presigned_url",
        lambda: {
            "v": "https://acme-ml-datasets.s3.eu-west-1.amazonaws.com/exports/train_2026_12.parquet?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential="
            + akia()
            + "%2F20261206%2Feu-west-1%2Fs3%2Faws4_request&X-Amz-Date=20261206T214500Z&X-Amz-Expires=604800&X-Amz-SignedHeaders=host&X-Amz-Signature="
            + hx(64)
        },
        [
            "presigned link for the vendor to pull the training export (valid 7 days): «v»",
            "send this to the annotation contractor: «v»",
        ],
    )
    K(
        "secret",
        "gcs_signed_url",
        lambda: {
            "v": "https://storage.googleapis.com/acme-models/releases/ranker-v12.onnx?X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Credential=model-share%40acme-ml.iam.gserviceaccount.com%2F20261206%2Fauto%2Fstorage%2Fgoog4_request&X-Goog-Date=20261206T220000Z&X-Goog-Expires=604800&X-Goog-SignedHeaders=host&X-Goog-Signature="
            + hx(512)
        },
        [
            "signed URL for the partner to download ranker-v12: «v»",
        ],
    )
    K(
        "secret",
        "azure_storage_account_key",
        lambda: {"v": rb64(64)},
        [
            "DefaultEndpointsProtocol=https;AccountName=acmelake;AccountKey=«v»;EndpointSuffix=core.windows.net",
            "spark.conf.set('fs.azure.account.key.acmelake.dfs.core.windows.net', '«v»')",
            "ADLS gen2 key1 for acmelake (Synapse pipelines use it): «v»",
        ],
    )
    K(
        "secret",
        "azure_sas_token",
        lambda: {
            "v": "sv=2022-11-02&ss=b&srt=co&sp=rwdlacx&se=2027-06-30T00:00:00Z&st=2026-12-06T00:00:00Z&spr=https&sig="
            + b64(43).replace("+", "%2B").replace("/", "%2F")
            + "%3D"
        },
        [
            "SAS for the raw container (rw, until mid-2027): ?«v»",
            "azcopy copy ./shards 'https://acmelake.blob.core.windows.net/raw/shards?«v»' --recursive",
        ],
    )
    K(
        "secret",
        "confluent_api_secret",
        lambda: {"v": b64(64), "k": ua(16)},
        [
            "Confluent Cloud cluster lkc-8x2q1 API key «k» secret «v»",
            "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username='«k»' password='«v»';",
        ],
    )
    K(
        "secret",
        "redis_broker_password",
        lambda: {"v": pwu()},
        [
            "CELERY_BROKER_URL=redis://:«v»@redis-ml.internal:6379/0",
            "feature cache: redis-cli -h feat-cache.prod -a '«v»' --tls",
        ],
    )
    K(
        "secret",
        "feature_store_db_password",
        lambda: {"v": pwu()},
        [
            "feature_store.yaml\nonline_store:\n  type: postgres\n  host: feast-db.internal\n  user: feast\n  password: «v»",
            "registry: postgresql+psycopg://feast:«v»@feast-db.internal:5432/registry",
        ],
    )
    K(
        "secret",
        "minio_secret_key",
        lambda: {"v": an(40)},
        [
            "MINIO_ROOT_USER=mladmin\nMINIO_ROOT_PASSWORD=«v»",
            "mc alias set lab http://minio.lab:9000 dvc-writer «v»",
        ],
    )
    K(
        "secret",
        "slack_alert_webhook",
        lambda: {"v": "https://hooks.slack.com/services/T" + ua(10) + "/B" + ua(10) + "/" + an(24)},
        [
            "Airflow on_failure_callback posts to «v»",
            "SLACK_WEBHOOK_URL for #ml-alerts (drift monitor): «v»",
        ],
    )
    K(
        "secret",
        "model_serving_jwt",
        lambda: {
            "v": jwt(
                {
                    "sub": "svc-ranker-client",
                    "aud": "model-gateway",
                    "iat": 1796594400,
                    "exp": 1828130400,
                    "scope": "predict",
                }
            )
        },
        [
            "bearer token for the model gateway (expires 2027-12): «v»",
            'curl -X POST https://ml-gw.acme.ai/v1/models/ranker:predict -H "Authorization: Bearer «v»" -d @req.json',
        ],
    )
    K(
        "secret",
        "google_refresh_token",
        lambda: {"v": "1//0" + bu(99)},
        [
            "dbt-bigquery oauth-secrets profile:\n  method: oauth-secrets\n  refresh_token: «v»\n  client_id: 1094821-abc.apps.googleusercontent.com",
            "firebase login:ci printed this token for the deploy job: «v»",
            "FIREBASE_TOKEN=«v»",
        ],
    )
    K(
        "secret",
        "google_access_token",
        lambda: {"v": "ya29." + bu(160)},
        [
            "curl -H 'Authorization: Bearer «v»' https://androidpublisher.googleapis.com/androidpublisher/v3/applications/com.acme.wallet/edits",
            "gcloud auth print-access-token gave me «v» -- pasted into the BigQuery REST call",
        ],
    )
    K(
        "secret",
        "google_oauth_client_secret",
        lambda: {"v": "GOCSPX-" + bu(28)},
        [
            "OAuth client for the internal Streamlit app: client_secret «v»",
            '"installed": {"client_id": "583920175-8hj2k.apps.googleusercontent.com", "client_secret": "«v»", "redirect_uris": ["http://localhost"]}',
        ],
    )
    K(
        "secret",
        "android_store_password",
        lambda: {"v": pw()},
        [
            "keystore.properties\nstoreFile=../keys/release.jks\nstorePassword=«v»\nkeyAlias=upload",
            "keytool -list -v -keystore upload-keystore.jks -storepass «v»",
            "signingConfigs {\n    release {\n        storeFile file('release.jks')\n        storePassword '«v»'\n    }\n}",
        ],
    )
    K(
        "secret",
        "android_key_password",
        lambda: {"v": pw()},
        [
            "upload key alias 'acme-upload', key password «v» (differs from the store password!)",
            "./gradlew bundleRelease -Pandroid.injected.signing.key.alias=upload -Pandroid.injected.signing.key.password=«v»",
            "apksigner sign --ks release.jks --ks-key-alias prod --key-pass pass:«v» app-release.apk",
        ],
    )
    K(
        "secret",
        "android_keystore_base64",
        lambda: {"v": "/u3+7QAAAAIAAAAB" + b64(380) + "=="},
        [
            "ANDROID_KEYSTORE_BASE64 (CI secret, decoded to release.jks): «v»",
            "echo «v» | base64 -d > app/release.jks",
        ],
    )
    K(
        "secret",
        "asc_api_private_key",
        lambda: {"v": pem_ec()},
        [
            "App Store Connect API key AuthKey_7XK29QZ4LM.p8 (issuer 69a6de7e-xxxx in 1P):\n«v»",
            "fastlane api_key.json key content:\n«v»",
        ],
    )
    K(
        "secret",
        "apns_auth_key",
        lambda: {"v": pem_ec()},
        [
            "APNs token auth key for the push service (team AB12CD34EF, key id QW83HF72JD):\n«v»",
            "push-gateway/config/apns.p8\n«v»",
        ],
    )
    K(
        "secret",
        "apple_app_specific_password",
        lambda: {"v": "-".join(pick(string.ascii_lowercase, 4) for _ in range(4))},
        [
            "xcrun notarytool store-credentials AC_NOTARY --apple-id build@acme.io --team-id AB12CD34EF --password «v»",
            "FASTLANE_APPLE_APPLICATION_SPECIFIC_PASSWORD=«v»",
            "app-specific password for altool uploads from the Mac mini: «v»",
        ],
    )
    K(
        "secret",
        "fastlane_match_password",
        lambda: {"v": pw()},
        [
            "MATCH_PASSWORD=«v» (decrypts the certificates repo)",
            "passphrase for the fastlane match git repo is «v», ask before rotating",
        ],
    )
    K(
        "secret",
        "ios_p12_password",
        lambda: {"v": pw()},
        [
            "distribution.p12 export password: «v»",
            "security import dist.p12 -k build.keychain -P '«v»' -T /usr/bin/codesign",
        ],
    )
    K(
        "secret",
        "apple_iap_shared_secret",
        lambda: {"v": hx(32)},
        [
            "App-Specific Shared Secret for receipt validation (verifyReceipt 'password' field): «v»",
            'receipt check body: {"receipt-data": "<base64 receipt>", "password": "«v»", "exclude-old-transactions": true}',
        ],
    )
    K(
        "secret",
        "firebase_admin_private_key",
        lambda: {"v": pem_rsa_json(), "k": hx(40)},
        [
            'firebase-adminsdk-fbsvc@acme-app.iam.gserviceaccount.com json: {"type": "service_account", "project_id": "acme-app", "private_key_id": "«k»", "private_key": "«v»"}',
            'FIREBASE_PRIVATE_KEY="«v»" (paired with FIREBASE_CLIENT_EMAIL in the functions env)',
        ],
    )
    K(
        "secret",
        "fcm_legacy_server_key",
        lambda: {"v": fcm_key()},
        [
            "old FCM server key still used by the marketing sender: key=«v»",
            "curl https://fcm.googleapis.com/fcm/send -H 'Authorization: key=«v»' -H 'Content-Type: application/json'",
        ],
    )
    K(
        "secret",
        "play_publisher_private_key",
        lambda: {"v": pem_rsa_json()},
        [
            'supply json_key_data for the play-publisher SA: {"type": "service_account", "client_email": "play-upload@api-8273.iam.gserviceaccount.com", "private_key": "«v»"}',
            'PLAY_SERVICE_ACCOUNT private_key (release track uploader): "«v»"',
        ],
    )
    K(
        "secret",
        "expo_access_token",
        lambda: {"v": an(40)},
        [
            "EXPO_TOKEN=«v» (robot user for EAS builds)",
            "eas build in CI needs the access token «v»",
        ],
    )
    K(
        "secret",
        "mapbox_secret_token",
        lambda: {"v": "sk." + b64url_json({"u": "acme-mobile", "a": "cl" + la(23)}) + "." + bu(22)},
        [
            "gradle.properties\nMAPBOX_DOWNLOADS_TOKEN=«v»",
            "~/.netrc\nmachine api.mapbox.com\n  login mapbox\n  password «v»",
        ],
    )
    K(
        "secret",
        "stripe_secret_key",
        lambda: {"v": "sk_live_" + an(r.choice([24, 99]))},
        [
            "STRIPE_SECRET_KEY=«v»",
            "stripe.api_key = '«v»'  # payouts reconciliation notebook",
            "curl https://api.stripe.com/v1/charges -u «v»: -d limit=3",
            'In [4]: import stripe\n        stripe.api_key = "«v»"\n        pd.DataFrame(stripe.Payout.list(limit=100))',
        ],
    )
    K(
        "secret",
        "stripe_restricted_key",
        lambda: {"v": "rk_live_" + an(99)},
        [
            "restricted key for the revenue dashboard (read charges + refunds): «v»",
            "STRIPE_RK=«v»",
        ],
    )
    K(
        "secret",
        "stripe_webhook_secret",
        lambda: {"v": "whsec_" + an(32)},
        [
            "STRIPE_WEBHOOK_SECRET=«v»",
            "signing secret of the prod endpoint /hooks/stripe: «v»",
            "stripe.Webhook.construct_event(payload, sig_header, '«v»')",
        ],
    )
    K(
        "secret",
        "revenuecat_secret_key",
        lambda: {"v": "sk_" + an(32)},
        [
            "RevenueCat secret API key (server-side, REST v1): «v»",
            "curl https://api.revenuecat.com/v1/subscribers/app_user_42 -H 'Authorization: Bearer «v»'",
        ],
    )
    K(
        "secret",
        "braintree_private_key",
        lambda: {"v": hx(32), "m": la(16), "p": la(16)},
        [
            "braintree.Configuration(Environment.Production, merchant_id='«m»', public_key='«p»', private_key='«v»')",
            "BRAINTREE_MERCHANT_ID=«m»\nBRAINTREE_PUBLIC_KEY=«p»\nBRAINTREE_PRIVATE_KEY=«v»",
        ],
    )
    K(
        "secret",
        "braintree_access_token",
        lambda: {"v": "access_token$production$" + la(16) + "$" + hx(32)},
        [
            "PayPal-via-Braintree access token for the iOS checkout backend: «v»",
            "BT_ACCESS_TOKEN=«v»",
        ],
    )
    K(
        "secret",
        "paypal_client_secret",
        lambda: {"v": "E" + bu(79), "c": "A" + bu(79)},
        [
            "PayPal live REST app: client id «c» secret «v»",
            "PAYPAL_CLIENT_SECRET=«v»",
        ],
    )
    K(
        "secret",
        "adyen_api_key",
        lambda: {"v": "AQE" + bu(30) + "=-" + b64(43) + "=-" + bu(16)},
        [
            "ADYEN_API_KEY=«v» (ws_384920@Company.Acme, live)",
            "X-API-Key: «v»",
        ],
    )
    K(
        "secret",
        "playfab_secret_key",
        lambda: {"v": ua(52)},
        [
            "PlayFab title 4A2C7 developer secret key (X-SecretKey): «v»",
            'PlayFabSettings.staticSettings.DeveloperSecretKey = "«v»"; // server build only',
        ],
    )
    K(
        "secret",
        "steam_web_api_key",
        lambda: {"v": HX(32)},
        [
            "Steamworks publisher Web API key for the leaderboard sync: «v»",
            "https://partner.steam-api.com/ISteamUserStats/SetUserStatsForGame/v1/?key=«v»&appid=1948230",
        ],
    )
    K(
        "secret",
        "eos_client_secret",
        lambda: {"v": bu(43), "c": "xyza" + la(28)},
        [
            "EOS dedicated-server client: ClientId «c», ClientSecret «v»",
            "DefaultEngine.ini\n[/Script/OnlineSubsystemEOS.EOSSettings]\nClientId=«c»\nClientSecret=«v»",
        ],
    )
    K(
        "secret",
        "unity_ci_password",
        lambda: {"v": pw()},
        [
            "game-ci secrets: UNITY_EMAIL=build@acme.games UNITY_PASSWORD=«v»",
            "Unity ID for license activation on the build agent: build@acme.games / «v»",
        ],
    )
    K(
        "secret",
        "dataset_encryption_key",
        lambda: {"v": base64.b64encode(bytes(r.getrandbits(8) for _ in range(32))).decode()},
        [
            "parquet modular encryption footer key (kf1) for the PII tables: «v»",
            "AES-256 key for the encrypted export of user_events (decrypt with openssl ... -K): «v»",
        ],
    )
    K(
        "secret",
        "tableau_pat_secret",
        lambda: {"v": rb64(16) + ":" + an(32)},
        [
            "Tableau PAT 'refresh-bot' secret: «v»",
            "tableauserverclient.PersonalAccessTokenAuth('refresh-bot', '«v»', site_id='acme')",
        ],
    )
    K(
        "secret",
        "sentry_auth_token",
        lambda: {
            "v": "sntrys_"
            + b64url_json(
                {
                    "iat": 1796594400.1,
                    "url": "https://sentry.io",
                    "region_url": "https://de.sentry.io",
                    "org": "acme",
                }
            )
            + "_"
            + bu(43)
        },
        [
            "SENTRY_AUTH_TOKEN=«v» (uploads dSYMs and proguard mappings)",
            "sentry-cli --auth-token «v» debug-files upload --include-sources ./build",
        ],
    )

    # ------------------------------------------------------------------ benign
    K(
        "benign",
        "dbt_env_var_template",
        lambda: {"v": ""},
        [
            "profiles.yml prod:\n  type: snowflake\n  account: qa81734.eu-west-1\n  user: DBT_PROD\n  password: \"{{ env_var('DBT_SNOWFLAKE_PASSWORD') }}\"\n  role: TRANSFORMER",
            "dbt-bigquery keyfile is `keyfile: \"{{ env_var('DBT_GOOGLE_KEYFILE') }}\"` -- the json itself only exists in the CI secret store",
            "dbt redshift ci target: pass: \"{{ env_var('DBT_ENV_SECRET_REDSHIFT_PASS') }}\", the DBT_ENV_SECRET_ prefix keeps it out of logs",
        ],
    )
    K(
        "benign",
        "airflow_masked_uri",
        lambda: {"v": ""},
        [
            (
                "task log shows the conn as postgresql://airflow_etl:***@dwh.internal:5432/analytics, so masking works",
                "postgresql://airflow_etl:***@dwh.internal:5432/analytics",
            ),
            "`airflow connections get mysql_crm` prints password '***' for us too, the real one lives in the secrets backend",
            (
                "Rendered template: snowflake://LOADER:********@ab12345/RAW?warehouse=LOAD_WH (redacted by airflow)",
                "snowflake://LOADER:********@ab12345/RAW?warehouse=LOAD_WH",
            ),
        ],
    )
    K(
        "benign",
        "gcp_private_key_id_only",
        lambda: {"v": hx(40), "c": dg(21)},
        [
            "BigQuery SA dbt-runner@acme-dwh.iam.gserviceaccount.com: private_key_id «v», client_id «c». Key JSON is in Secret Manager, not here.",
            "to find which key to disable in IAM: key id «v» (created 2026-03-02), owner bq-loader",
            'audit log shows a call signed with keyId "«v»" from the Airflow workers, expected',
        ],
    )
    K(
        "benign",
        "bigquery_job_id",
        lambda: {"v": "bquxjob_" + hx(8) + "_" + hx(11)},
        [
            "slow query is acme-dwh:EU.«v» (14 min, 2.3 TB scanned)",
            "bq show -j --project_id=acme-dwh «v»",
            "job id «v» failed with 'Resources exceeded' -- partition on event_date",
        ],
    )
    K(
        "benign",
        "snowflake_query_id",
        lambda: {"v": f"01b{hx(5)}-{dg(4)}-{hx(4)}-0000-{hx(12)}"},
        [
            "Snowflake query id «v» spilled 40 GB to remote storage",
            "select * from table(information_schema.query_history()) where query_id = '«v»';",
            "support case references query «v»",
        ],
    )
    K(
        "benign",
        "databricks_resource_id",
        lambda: {"v": f"{dg(4)}-{dg(6)}-{la(8)}", "w": hx(16), "n": dg(16)},
        [
            "feature pipeline runs on cluster «v» (DBR 15.4 LTS ML, 8 workers)",
            "databricks clusters start --cluster-id «v»",
            "SQL warehouse http path /sql/1.0/warehouses/«w», workspace id «n»; the nightly job cluster is «v»",
        ],
    )
    K(
        "benign",
        "databricks_secret_reference",
        lambda: {"v": ""},
        [
            "wandb key is read in the notebook via dbutils.secrets.get(scope='ml-prod', key='wandb-api-key')",
            "cluster spark conf: spark.openai.key {{secrets/llm/openai-key}} -- value never leaves the scope",
            "databricks secrets put-secret ml-prod hf-token (prompts for the value, do not paste it in chat)",
        ],
    )
    K(
        "benign",
        "redacted_api_key",
        lambda: {"v": ""},
        [
            (
                "the leaked key in the notebook output was dapi****************************a91f; already revoked in the workspace UI",
                "dapi****************************a91f",
            ),
            (
                "OpenAI dashboard lists the eval key as sk-proj-...Q3xA, created by mbeck",
                "sk-proj-...Q3xA",
            ),
            ("hf token ending in ...yTqw was the write one, it's deleted now", "...yTqw"),
        ],
    )
    K(
        "benign",
        "mlflow_run_id",
        lambda: {"v": hx(32)},
        [
            "best run so far: «v» (val_auc 0.913, lr 3e-4)",
            "mlflow runs describe --run-id «v»",
            'mlflow.start_run(run_id="«v»") to resume logging after the spot preemption',
        ],
    )
    K(
        "benign",
        "mlflow_model_uri",
        lambda: {"v": "runs:/" + hx(32) + "/model"},
        [
            "registered churn-xgb v7 from «v»",
            "mlflow models serve -m «v» -p 5001 --env-manager local",
            "model = mlflow.pyfunc.load_model('«v»')",
        ],
    )
    K(
        "benign",
        "wandb_run_path",
        lambda: (lambda i: {"v": "acme-ml/vit-pretrain/" + i, "i": i})(la(8)),
        [
            "resume with wandb.init(id='«i»', resume='must') -- full path «v»",
            "api.run('«v»').history(keys=['loss'])",
            "the diverged run: «v», loss NaN at step 41k",
        ],
    )
    K(
        "benign",
        "wandb_artifact_digest",
        lambda: {"v": rb64(16)},
        [
            "artifact acme-ml/ctr/train-data:v12 digest «v»",
            "dataset artifact unchanged between v11 and v12: both have digest «v»",
        ],
    )
    K(
        "benign",
        "api_key_placeholder",
        lambda: {"v": ""},
        [
            (
                "README snippet: export WANDB_API_KEY=<your-40-char-key-from-wandb.ai/authorize>",
                "<your-40-char-key-from-wandb.ai/authorize>",
            ),
            (
                "example .env for the workshop: HF_TOKEN=hf_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx (replace with your own read token)",
                "hf_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
            ),
            (
                'docs example we copied: client = OpenAI(api_key="sk-...your key here...")',
                "sk-...your key here...",
            ),
            (
                "REPLICATE_API_TOKEN=r8_REPLACE_ME in the template; each dev fills it locally",
                "r8_REPLACE_ME",
            ),
            (
                "Beispiel aus dem Wiki: STRIPE_SECRET_KEY=sk_live_DEIN_SCHLUESSEL_HIER -- echte Werte nur im Vault",
                "sk_live_DEIN_SCHLUESSEL_HIER",
            ),
        ],
    )
    K(
        "benign",
        "hf_revision_sha",
        lambda: {"v": hx(40)},
        [
            "pin the base model: AutoModel.from_pretrained('meta-llama/Llama-3.1-8B', revision='«v»')",
            "dataset snapshot used for the paper: acme-ml/tickets-de at commit «v»",
            "hf download acme-ml/whisper-ft-de --revision «v»",
        ],
    )
    K(
        "benign",
        "hf_dataset_id",
        lambda: {"v": ""},
        [
            "eval sets: acme-ml/tickets-de-v3 (private), HuggingFaceFW/fineweb-edu sample-10BT, openai/gsm8k main",
            "load_dataset('acme-ml/receipts-ocr', name='v2-clean', split='train[:5%]')",
            "dataset id acme-ml/support-intents moved to acme-ml/support-intents-2026; old id redirects",
        ],
    )
    K(
        "benign",
        "replicate_version_id",
        lambda: {"v": hx(64)},
        [
            "replicate.run('stability-ai/sdxl:«v»', input={...})",
            "pinned model version «v» -- newer one changed the scheduler",
            "prediction used version «v»",
        ],
    )
    K(
        "benign",
        "replicate_prediction_id",
        lambda: {"v": pick("abcdefghijklmnopqrstuvwxyz234567", 26)},
        [
            "stuck prediction «v» (status starting for 9 min)",
            "GET https://api.replicate.com/v1/predictions/«v» returned 'canceled'",
        ],
    )
    K(
        "benign",
        "openai_object_id",
        lambda: {"v": "file-" + an(22)},
        [
            "fine-tune training file «v», job ftjob-«j», result model ft:gpt-4o-mini-2024-07-18:acme::«m»".replace(
                "«j»", an(24)
            ).replace("«m»", an(8)),
            "batch input uploaded as «v»; batch id batch_«b»".replace("«b»", hx(32)),
            "org id for the billing ticket: org-«o»; file «v»".replace("«o»", an(24)),
        ],
    )
    K(
        "benign",
        "model_weights_sha256",
        lambda: {"v": hx(64)},
        [
            "model.safetensors sha256 «v» -- matches the release notes",
            "sha256sum ranker-v12.onnx\n«v»  ranker-v12.onnx",
            "expected checksum for the tokenizer.json we vendor: «v»",
        ],
    )
    K(
        "benign",
        "git_lfs_pointer",
        lambda: {"v": "sha256:" + hx(64)},
        [
            "the .bin in git is just the LFS pointer:\nversion https://git-lfs.github.com/spec/v1\noid «v»\nsize 4976698672",
            "lfs object «v» is missing on the mirror, re-push from the laptop",
        ],
    )
    K(
        "benign",
        "dvc_md5",
        lambda: {"v": hx(32)},
        [
            "data/train.parquet.dvc\nouts:\n- md5: «v»\n  size: 1843921034\n  path: train.parquet",
            "dvc.lock stage featurize dep md5 «v» changed, that's why it re-ran",
            "dvc push: uploaded «v» to s3://acme-dvc/files/md5/ (1 of 3 files)",
        ],
    )
    K(
        "benign",
        "android_cert_fingerprint",
        lambda: {"v": colon_hex(32)},
        [
            "Play App Signing key certificate SHA-256: «v» (add to assetlinks.json)",
            "upload certificate SHA-1 for the Firebase console: «s»".replace("«s»", colon_hex(20))
            + " / SHA-256 «v»",
            'assetlinks.json: {"relation": ["delegate_permission/common.handle_all_urls"], "target": {"namespace": "android_app", "package_name": "com.acme.wallet", "sha256_cert_fingerprints": ["«v»"]}}',
        ],
    )
    K(
        "benign",
        "facebook_key_hash",
        lambda: {"v": rb64(20)},
        [
            "Facebook Login key hash for the release build: «v»",
            "keytool -exportcert -alias upload -keystore release.jks | openssl sha1 -binary | openssl base64  ->  «v»",
        ],
    )
    K(
        "benign",
        "firebase_app_id",
        lambda: {"v": f"1:{dg(12)}:android:{hx(16)}"},
        [
            "google-services.json mobilesdk_app_id «v», project_number in the same file",
            "firebase appdistribution:distribute app-release.apk --app «v» --groups qa",
            "Crashlytics mapping upload target: «v»",
            "google-services.json client[1] (package com.acme.wallet.staging): mobilesdk_app_id «v», oauth_client []",
        ],
    )
    K(
        "benign",
        "gradle_env_lookup",
        lambda: {"v": ""},
        [
            "signingConfigs.release:\n  storeFile file(System.getenv('KEYSTORE_PATH'))\n  storePassword System.getenv('KEYSTORE_PASSWORD')\n  keyAlias 'upload'\n  keyPassword System.getenv('KEY_PASSWORD')",
            'storePassword = providers.environmentVariable("ANDROID_STORE_PASSWORD").get() in build.gradle.kts',
            "keystore.properties is gitignored; CI writes it from ${{ secrets.KEYSTORE_PROPERTIES }}",
        ],
    )
    K(
        "benign",
        "android_debug_keystore",
        lambda: {"v": "android"},
        [
            "debug.keystore defaults: alias androiddebugkey, storepass «v», keypass «v» -- only for debug builds",
            "keytool -list -v -keystore ~/.android/debug.keystore -alias androiddebugkey -storepass «v» -keypass «v» (to get the debug SHA-1 for Maps)",
        ],
    )
    K(
        "benign",
        "apple_team_and_bundle_id",
        lambda: {"v": ua(10)},
        [
            "iOS app: bundle id com.acme.wallet, team id «v», App Store id 1649203847",
            "DEVELOPMENT_TEAM = «v»; PRODUCT_BUNDLE_IDENTIFIER = com.acme.wallet.widget;",
            "apple-app-site-association appID «v».com.acme.wallet",
        ],
    )
    K(
        "benign",
        "provisioning_profile_uuid",
        lambda: {"v": uid().upper()},
        [
            "match AppStore com.acme.wallet profile UUID «v»",
            "PROVISIONING_PROFILE_SPECIFIER = match AppStore com.acme.wallet; profile uuid «v»",
            "~/Library/MobileDevice/Provisioning Profiles/«v».mobileprovision is the expired one, delete it",
        ],
    )
    K(
        "benign",
        "asc_key_id_and_issuer",
        lambda: {"v": uid(), "k": ua(10)},
        [
            "App Store Connect API: key id «k», issuer id «v». The .p8 itself is only in 1Password (ASC / CI key).",
            "app_store_connect_api_key(key_id: '«k»', issuer_id: '«v»', key_filepath: ENV['ASC_KEY_PATH'])",
        ],
    )
    K(
        "benign",
        "apns_device_token",
        lambda: {"v": hx(64)},
        [
            "my test iPhone's APNs device token (sandbox): «v»",
            "push not arriving for device token «v» -- it was registered on the sandbox env",
        ],
    )
    K(
        "benign",
        "codesign_identity",
        lambda: {"v": HX(40)},
        [
            'security find-identity -v -p codesigning\n  1) «v» "Apple Distribution: Acme Wallet GmbH (AB12CD34EF)"',
            "CODE_SIGN_IDENTITY = Apple Distribution: Acme Wallet GmbH (AB12CD34EF), cert SHA-1 «v»",
        ],
    )
    K(
        "benign",
        "stripe_publishable_key",
        lambda: {"v": "pk_live_" + an(99)},
        [
            "STRIPE_PUBLISHABLE_KEY=«v» (ships in the iOS app bundle, fine)",
            'StripeAPI.defaultPublishableKey = "«v»"',
            "web checkout loadStripe('«v»')",
        ],
    )
    K(
        "benign",
        "stripe_object_id",
        lambda: {"v": "evt_" + an(24)},
        [
            "webhook retry for «v» (invoice.payment_failed) succeeded on 3rd attempt",
            "refund the duplicate: customer cus_«c», payment intent pi_«p», event «v»".replace(
                "«c»", an(14)
            ).replace("«p»", an(24)),
            "connected account acct_«a» shows event «v» twice".replace("«a»", an(16)),
        ],
    )
    K(
        "benign",
        "revenuecat_public_sdk_key",
        lambda: {"v": "appl_" + an(27)},
        [
            'Purchases.configure(withAPIKey: "«v»")  // public app-specific key, safe in the binary',
            "RevenueCat public SDK keys: iOS «v», Android goog_«g»".replace("«g»", an(27)),
        ],
    )
    K(
        "benign",
        "adyen_client_key",
        lambda: {"v": "live_" + ua(32)},
        [
            "Adyen Drop-in clientKey: «v» (allowed origin https://pay.acme.io)",
            "AdyenCheckout config { clientKey: '«v»', environment: 'live' }",
        ],
    )
    K(
        "benign",
        "braintree_tokenization_key",
        lambda: {"v": "production_" + la(8) + "_" + la(16)},
        [
            "Braintree drop-in uses tokenization key «v» (client-side, can only tokenize cards)",
            'BTAPIClient(authorization: "«v»")',
        ],
    )
    K(
        "benign",
        "paypal_client_id",
        lambda: {"v": "A" + bu(79)},
        [
            '<script src="https://www.paypal.com/sdk/js?client-id=«v»&currency=EUR"></script>',
            "PayPal JS SDK client-id (public, live app 'acme-checkout'): «v»",
        ],
    )
    K(
        "benign",
        "admob_id",
        lambda: {"v": f"ca-app-pub-{dg(16)}~{dg(10)}"},
        [
            '<meta-data android:name="com.google.android.gms.ads.APPLICATION_ID" android:value="«v»"/>',
            "GADApplicationIdentifier in Info.plist: «v»",
            "AdMob app id «v», rewarded unit ca-app-pub-«p»/«u»".replace("«p»", dg(16)).replace(
                "«u»", dg(10)
            ),
        ],
    )
    K(
        "benign",
        "unity_asset_guid",
        lambda: {"v": hx(32)},
        [
            "PlayerController.cs.meta\nfileFormatVersion: 2\nguid: «v»\nMonoImporter:\n  serializedVersion: 2",
            "the missing script reference in Level3.unity is guid «v»",
            "Unity Cloud project id «u», prefab guid «v»".replace("«u»", uid()),
        ],
    )
    K(
        "benign",
        "mapbox_public_token",
        lambda: {"v": "pk." + b64url_json({"u": "acme-mobile", "a": "cl" + la(23)}) + "." + bu(22)},
        [
            '<string name="mapbox_access_token" translatable="false">«v»</string>',
            "MBXAccessToken in Info.plist = «v» (public, URL-restricted)",
        ],
    )
    K(
        "benign",
        "google_oauth_client_id",
        lambda: {"v": f"{dg(12)}-{la(32)}.apps.googleusercontent.com"},
        [
            "GIDClientID «v»",
            "iOS URL scheme is the reversed client id: com.googleusercontent.apps.«n»-«c»".replace(
                "«n»", dg(12)
            ).replace("«c»", la(32))
            + " (web client «v»)",
            "Google Sign-In serverClientId for the Android app: «v»",
        ],
    )
    K(
        "benign",
        "sentry_dsn",
        lambda: {"v": f"https://{hx(32)}@o{dg(6)}.ingest.de.sentry.io/{dg(7)}"},
        [
            'SentrySDK.start { options in options.dsn = "«v»" }',
            "sentry DSN for the Android app (public client key): «v»",
            "SENTRY_DSN=«v» in the Flutter --dart-define list",
        ],
    )
    K(
        "benign",
        "mixpanel_project_token",
        lambda: {"v": hx(32)},
        [
            'Mixpanel.initialize(token: "«v»", trackAutomaticEvents: false)',
            "mixpanel project token (client side, public by design): «v»",
        ],
    )
    K(
        "benign",
        "amplitude_api_key",
        lambda: {"v": hx(32)},
        [
            "Amplitude browser/mobile API key «v» -- the secret key stays server-side and is not this",
            "amplitude.init('«v»', { defaultTracking: true })",
        ],
    )
    K(
        "benign",
        "algolia_search_only_key",
        lambda: {"v": hx(32)},
        [
            "Algolia app 8K2J4QXW1R search-only key «v» (used in the docs search widget)",
            "algoliasearch('8K2J4QXW1R', '«v»') // search-only, ACL: search",
        ],
    )
    K(
        "benign",
        "launchdarkly_client_side_id",
        lambda: {"v": hx(24)},
        [
            "LaunchDarkly client-side ID for the web build: «v»",
            "LDClient.initialize('«v»', context) on the marketing site",
        ],
    )
    K(
        "benign",
        "aws_documentation_example_key",
        lambda: {"v": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"},
        [
            "the localstack tutorial uses aws_access_key_id=AKIAIOSFODNN7EXAMPLE aws_secret_access_key=«v», AWS's own doc example",
            "moto fixture: os.environ['AWS_SECRET_ACCESS_KEY'] = '«v»'  # the EXAMPLEKEY from the AWS docs",
        ],
    )
    K(
        "benign",
        "aws_access_key_id_alone",
        lambda: {"v": akia()},
        [
            "CloudTrail shows the unload came from access key id «v» (user svc-redshift-unload); secret half only in Secrets Manager",
            "which IAM user owns «v»? -> aws iam get-access-key-last-used --access-key-id «v»",
        ],
    )
    K(
        "benign",
        "secret_manager_reference",
        lambda: {
            "v": f"arn:aws:secretsmanager:eu-west-1:{dg(12)}:secret:prod/redshift/etl-" + an(6)
        },
        [
            "Airflow secrets backend resolves conn redshift_etl from «v»",
            "rotate via aws secretsmanager rotate-secret --secret-id «v»",
            "the etl creds moved from «v» to vault; read them with vault kv get -field=password kv/data/ml/clickhouse",
        ],
    )
    K(
        "benign",
        "password_manager_reference",
        lambda: {"v": ""},
        [
            "export SNOWFLAKE_PASSWORD=$(op read 'op://Data Eng/Snowflake ETL_SVC/password')",
            "keystore + passwords are in 1Password vault 'Mobile Release', item 'Android upload key'",
            "OPENAI_API_KEY=$(security find-generic-password -s openai-eval -w) in my zshrc",
        ],
    )
    K(
        "benign",
        "ci_secret_template",
        lambda: {"v": ""},
        [
            "- name: match\n  env:\n    MATCH_PASSWORD: ${{ secrets.MATCH_PASSWORD }}\n    ASC_KEY: ${{ secrets.ASC_API_KEY_P8 }}\n  run: bundle exec fastlane beta",
            "bitrise step uses $BITRISEIO_ANDROID_KEYSTORE_PASSWORD, set as a protected secret env var",
            "gitlab: WANDB_API_KEY is a masked+protected CI variable, referenced as $WANDB_API_KEY in .gitlab-ci.yml",
        ],
    )
    K(
        "benign",
        "sops_ciphertext",
        lambda: {"v": f"ENC[AES256_GCM,data:{rb64(18)},iv:{rb64(32)},tag:{rb64(16)},type:str]"},
        [
            "secrets.enc.yaml (sops, age recipient of the infra team):\nclickhouse_password: «v»",
            "encrypted with sops so it can live in git: wandb_api_key: «v»",
        ],
    )
    K(
        "benign",
        "ssh_public_key",
        lambda: {
            "v": "ssh-ed25519 "
            + base64.b64encode(
                b"\x00\x00\x00\x0bssh-ed25519\x00\x00\x00\x20" + r.randbytes(32)
            ).decode()
        },
        [
            "add my key to the gpu boxes' authorized_keys: «v» mbeck@laptop",
            "deploy key (read-only, public half) on acme/featurekit: «v»",
        ],
    )
    K(
        "benign",
        "snowflake_rsa_public_key",
        lambda: {"v": pub_rsa_b64()},
        [
            "ALTER USER DBT_KEYPAIR SET RSA_PUBLIC_KEY='«v»';",
            "DESC USER INGEST_SVC -> RSA_PUBLIC_KEY_FP=SHA256:«f»; the public key we set was «v»".replace(
                "«f»", rb64(32)
            ),
        ],
    )
    K(
        "benign",
        "play_licensing_public_key",
        lambda: {"v": pub_rsa_b64()},
        [
            "Play Console > Monetization setup > Licensing: Base64-encoded RSA public key «v»",
            'BillingSecurity.BASE64_PUBLIC_KEY = "«v»" (used to verify purchase signatures on device)',
        ],
    )
    K(
        "benign",
        "container_image_digest",
        lambda: {"v": "sha256:" + hx(64)},
        [
            "serving image pinned to ghcr.io/acme/ranker-serve@«v»",
            "nvcr.io/nvidia/pytorch:24.10-py3 digest «v» -- pin it in the Dockerfile",
        ],
    )
    K(
        "benign",
        "git_commit_sha",
        lambda: {"v": hx(40)},
        [
            "training code at commit «v» produced the v7 checkpoint",
            "git bisect blames «v» for the NaN loss (fp16 autocast change)",
        ],
    )
    K(
        "benign",
        "surrogate_key_hash",
        lambda: {"v": hx(32)},
        [
            "dbt_utils.generate_surrogate_key(['order_id','line_no']) gives «v» for order 1042/1 -- duplicate in fct_orders",
            "surrogate key «v» appears twice in dim_customer after the backfill",
            "md5(concat(user_id, '|', session_start)) = «v» -- that's the session_key we join on",
        ],
    )
    K(
        "benign",
        "tokenizer_token_sense",
        lambda: {"v": ""},
        [
            "pad_token is None for this tokenizer; set tokenizer.pad_token = tokenizer.eos_token (id 128001)",
            "max_new_tokens=512 blew the latency budget; usage says prompt_tokens 3120, completion_tokens 498",
            "added special tokens <|ctx|> and <|/ctx|>, resized embeddings to 128258",
        ],
    )
    K(
        "benign",
        "sql_key_sense",
        lambda: {"v": ""},
        [
            "Redshift: DISTKEY(user_id) SORTKEY(event_ts) on fct_events; the old key was session_id and skewed",
            "Snowflake clustering key (to_date(event_ts), app_id) cut pruning time in half",
            "ClickHouse ORDER BY (tenant_id, ts) is the primary key; the partition key is toYYYYMM(ts)",
        ],
    )
    K(
        "benign",
        "credential_policy_talk",
        lambda: {"v": ""},
        [
            "decision: service account passwords for Snowflake go away, key-pair auth only from Q1",
            "rotated the W&B key after the notebook leak; new key is only in the secrets scope, never in notebooks",
            "reminder: the upload keystore password and the key password differ, both are in the release vault",
        ],
    )
    K(
        "benign",
        "jwt_io_sample",
        lambda: {
            "v": "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
        },
        [
            "unit test for the gateway auth middleware uses the jwt.io sample token «v» and expects 401",
            "the decoder demo in the onboarding doc pastes the jwt.io example: «v»",
        ],
    )
    K(
        "benign",
        "payment_test_card",
        lambda: {"v": "4242 4242 4242 4242"},
        [
            "QA checkout: card «v», any future expiry, any CVC (Stripe test mode)",
            "3DS flow test card is 4000 0027 6000 3184, plain success is «v»",
        ],
    )
    K(
        "benign",
        "drive_file_id",
        lambda: {"v": "1" + bu(32)},
        [
            "gdown --id «v» -O data/raw.zip in the Colab",
            "the labeled sample lives at https://drive.google.com/file/d/«v»/view (shared with the team)",
        ],
    )
    K(
        "benign",
        "xcode_object_id",
        lambda: {"v": HX(24)},
        [
            "project.pbxproj conflict around «v» /* WalletWidget.swift in Sources */",
            "PBXNativeTarget «v» /* WalletWidgetExtension */ lost its build phase after the merge",
        ],
    )
    K(
        "benign",
        "dependency_lock_checksum",
        lambda: {"v": hx(40)},
        [
            "Podfile.lock\nSPEC CHECKSUMS:\n  FirebaseCore: «v»\n  GoogleAppMeasurement: «w»".replace(
                "«w»", hx(40)
            ),
            "PODFILE CHECKSUM: «v» -- changed because I bumped Stripe",
            "Package.resolved pins stripe-ios at revision «v» (version 24.1.0)",
            'gradle/verification-metadata.xml: <sha256 value="«x»" origin="Generated by Gradle"/> for play-services-ads; pods checksum «v»'.replace(
                "«x»", hx(64)
            ),
        ],
    )
    K(
        "benign",
        "steam_ids",
        lambda: {"v": dg(19)},
        [
            "depot 1948231 manifest «v» is the build that went to the beta branch",
            "steamcmd +login builder +download_depot 1948230 1948231 «v»",
        ],
    )
    K(
        "benign",
        "expo_project_id",
        lambda: {"v": uid()},
        [
            'app.json "extra": { "eas": { "projectId": "«v»" } }',
            "EAS build «b» for project «v» failed at pod install".replace("«b»", uid()),
        ],
    )
    K(
        "benign",
        "clickhouse_dedup_token",
        lambda: {"v": "batch-" + hx(16)},
        [
            "INSERT INTO events SETTINGS insert_deduplication_token = '«v»' -- retries of the same batch become no-ops",
            "kafka consumer sets the dedup token to the offset range hash, e.g. «v»",
        ],
    )
    K(
        "benign",
        "api_page_token",
        lambda: {"v": bu(48)},
        [
            "reviews.list returned nextPageToken «v»; loop until it's empty",
            "BigQuery tabledata.list pageToken «v» -- we were only reading the first page",
        ],
    )
    K(
        "benign",
        "idempotency_key",
        lambda: {"v": uid()},
        [
            "stripe.PaymentIntent.create(..., idempotency_key='«v»') so the mobile retry doesn't double-charge",
            "Idempotency-Key: «v» reused by two requests -> Stripe returned the cached response",
        ],
    )
    K(
        "benign",
        "env_example_empty",
        lambda: {"v": ""},
        [
            ".env.example\nOPENAI_API_KEY=\nWANDB_API_KEY=\nHF_TOKEN=\nSNOWFLAKE_PASSWORD=",
            "local.properties template: MAPS_API_KEY= , STORE_PASSWORD= (left blank on purpose, fill from vault)",
        ],
    )
    K(
        "benign",
        "airflow_run_and_xcom_key",
        lambda: {"v": "scheduled__2026-12-06T00:00:00+00:00"},
        [
            "ti.xcom_pull(task_ids='extract', key='return_value') is None for run «v»",
            "airflow tasks clear daily_features -s 2026-12-06 -e 2026-12-06 (run id «v»)",
        ],
    )
    K(
        "benign",
        "s3_etag",
        lambda: {"v": hx(32) + "-" + str(r.randint(2, 40))},
        [
            'multipart upload finished, ETag "«v»" -- not an md5 of the file, don\'t compare it to dvc',
            "aws s3api head-object --bucket acme-ml-datasets --key exports/train.parquet -> ETag «v»",
        ],
    )

    K(
        "secret",
        "supabase_service_role_key",
        lambda: {
            "v": "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9."
            + b64url_json(
                {
                    "iss": "supabase",
                    "ref": la(20),
                    "role": "service_role",
                    "iat": 1764979200,
                    "exp": 2080555200,
                }
            )
            + "."
            + bu(43)
        },
        [
            "SUPABASE_SERVICE_ROLE_KEY=«v» (edge function only, bypasses RLS)",
            "createClient(SUPABASE_URL, '«v»') in the admin script -- the service_role one, not anon",
        ],
    )
    K(
        "secret",
        "onesignal_rest_api_key",
        lambda: {"v": "os_v2_app_" + pick("abcdefghijklmnopqrstuvwxyz234567", 113)},
        [
            "OneSignal REST API key for server pushes: «v»",
            "curl https://api.onesignal.com/notifications -H 'Authorization: Key «v»' -d @campaign.json",
        ],
    )
    K(
        "secret",
        "store_console_login",
        lambda: {"v": pw()},
        [
            "Play Console owner account releases@acme.io, password «v», 2FA on the release phone",
            "App Store Connect login for the shared release account: appstore@acme.io / «v»",
        ],
    )
    K(
        "benign",
        "supabase_anon_key",
        lambda: {
            "v": "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9."
            + b64url_json(
                {
                    "iss": "supabase",
                    "ref": la(20),
                    "role": "anon",
                    "iat": 1764979200,
                    "exp": 2080555200,
                }
            )
            + "."
            + bu(43)
        },
        [
            "Flutter app: Supabase.initialize(url: SUPABASE_URL, anonKey: '«v»') -- anon key is public, RLS does the work",
            "SUPABASE_ANON_KEY=«v» (role anon, safe to ship in the client bundle)",
        ],
    )
    K(
        "benign",
        "onesignal_app_id",
        lambda: {"v": uid()},
        [
            'OneSignal.initialize("«v»") in AppDelegate',
            "OneSignal app id «v» (public; the REST key is in the server vault)",
        ],
    )
    K(
        "benign",
        "notebook_output_hash",
        lambda: {"v": hx(64)},
        [
            "In [12]: hashlib.sha256(df.to_parquet()).hexdigest()\nOut[12]: '«v»'\n(same as yesterday, so the extract is deterministic)",
            "Out[7]: '«v»'  <- sha256 of the sorted train ids, logged as a param so runs are comparable",
        ],
    )
    K(
        "benign",
        "experiment_config_hash",
        lambda: {"v": hx(12)},
        [
            "hydra run dir outputs/2026-12-06/sweep_«v»/lr=3e-4 has the best checkpoint",
            "config hash «v» = (vit_b16, bs 1024, warmup 10k); any change to the yaml gives a new hash",
        ],
    )
    K(
        "benign",
        "jupyter_cell_metadata",
        lambda: {"v": hx(8)},
        [
            '{"cell_type": "code", "execution_count": 14, "id": "«v»", "metadata": {"tags": ["parameters"]}}',
            "papermill injects parameters after the cell tagged 'parameters' (cell id «v»)",
        ],
    )
    K(
        "benign",
        "k8s_secret_key_ref",
        lambda: {"v": ""},
        [
            "env:\n- name: WANDB_API_KEY\n  valueFrom:\n    secretKeyRef:\n      name: wandb-creds\n      key: api-key",
            'kubectl create secret generic hf-token --from-literal=token="$HF_TOKEN" -n training (value comes from my shell, not written here)',
        ],
    )
    K(
        "benign",
        "wandb_sweep_id",
        lambda: {"v": la(8)},
        [
            "wandb agent acme-ml/vit-pretrain/«v» --count 20 on each node",
            "sweep «v»: bayes over lr and wd, 64 runs, best val_acc 0.812",
        ],
    )
    K(
        "benign",
        "tls_pin_hash",
        lambda: {"v": "sha256/" + rb64(32)},
        [
            'CertificatePinner.Builder().add("api.acme.io", "«v»").build()',
            "TrustKit pin for api.acme.io (public key hash, backup pin in the plist too): «v»",
        ],
    )
    K(
        "benign",
        "age_recipient",
        lambda: {"v": "age1" + pick("qpzry9x8gf2tvdw0s3jn54khce6mua7l", 58)},
        [
            ".sops.yaml\ncreation_rules:\n  - path_regex: secrets/.*\\.yaml$\n    age: «v»",
            "add the new laptop as a sops recipient: age public key «v»",
        ],
    )
    K(
        "benign",
        "store_transaction_id",
        lambda: {"v": "GPA." + dg(4) + "-" + dg(4) + "-" + dg(4) + "-" + dg(5)},
        [
            "refund request for Play order «v» (double subscription)",
            "user sent Play order id «v» and Apple transaction id 2000000«t» -- both map to the same account".replace(
                "«t»", dg(9)
            ),
        ],
    )

    K(
        "benign",
        "sso_authenticator_profile",
        lambda: {"v": ""},
        [
            "profiles.yml dev target for analysts:\n  type: snowflake\n  account: qa81734.eu-west-1\n  user: M.BECK@ACME.IO\n  authenticator: externalbrowser\n  role: ANALYST",
            "databricks auth login --host https://adb-4829105738291045.5.azuredatabricks.net (U2M OAuth, browser pops up, nothing stored in .databrickscfg but host + auth_type)",
        ],
    )
    rows: list[dict] = []
    seen: set[str] = set()
    for label, kind, gen, templates in specs:
        for template in templates:
            fixed = None
            if isinstance(template, tuple):
                template, fixed = template
            values = gen()
            text = template
            for key, val in values.items():
                text = text.replace("«" + key + "»", val)
            assert "«" not in text and "»" not in text, (kind, text)
            value = values["v"] if fixed is None else fixed
            assert value in text, (kind, text)
            assert text not in seen, (kind, text)
            seen.add(text)
            rows.append({"label": label, "kind": kind, "text": text, "value": value})
    return rows


def main() -> None:
    rows = corpus()
    lines = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w", encoding="utf-8") as fh:
            fh.write(lines)
    else:
        sys.stdout.write(lines)


if __name__ == "__main__":
    main()

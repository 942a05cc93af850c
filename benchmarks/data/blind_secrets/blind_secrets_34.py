"""Blind corpus 34: ML and AI-application engineers in 2026.

Brief: LLM and inference provider keys (OpenAI, Anthropic, Mistral, Cohere, Groq, Together,
Fireworks, Replicate, DeepSeek, Perplexity, OpenRouter, Hugging Face, Azure OpenAI, Vertex),
vector databases (Pinecone, Weaviate, Qdrant, Milvus/Zilliz, Chroma cloud), observability
(LangSmith, Langfuse, Helicone, W&B, Arize), agent and MCP server configs whose env blocks carry
tokens, notebook cells, eval harness configs, GPU cloud (Lambda, RunPod, Modal, CoreWeave)
credentials, dataset hub tokens. Look-alikes: model ids and revision hashes, dataset and run ids,
trace ids, prompt hashes, embedding checksums, public Langfuse keys, org/project ids, example keys
from docs clearly marked, env var names with no value, truncated or masked keys.

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Run: python benchmarks/data/blind_secrets/blind_secrets_34.py [out.jsonl]
(writes JSONL rows {"label", "kind", "text", "value"}; stdout without an argument).

Kinds, secret (68): openai_project_key, openai_legacy_key, openai_svcacct_key, openai_admin_key,
anthropic_api_key, anthropic_admin_key, mistral_key, cohere_key, groq_key, together_key,
fireworks_key, replicate_token, deepseek_key, perplexity_key, openrouter_key, hf_token,
azure_openai_key, google_ai_key, xai_key, nvidia_nim_key, cerebras_key, voyage_key, jina_key,
tavily_key, elevenlabs_key, llamacloud_key, pinecone_key, weaviate_key, qdrant_key, zilliz_token,
chroma_cloud_key, langsmith_key, langfuse_secret_key, helicone_key, wandb_key, arize_api_key,
lambda_cloud_key, runpod_key, modal_token_secret, vastai_key, databricks_pat, kaggle_key,
github_pat_dataset, anyscale_key, deepgram_key, assemblyai_key, braintrust_key, portkey_key,
vertex_sa_private_key, milvus_uri_password, pgvector_dsn_password, redis_cache_url,
mongodb_atlas_uri, supabase_service_role_jwt, hf_git_remote_token, coreweave_kubeconfig_token,
aws_secret_key_sagemaker, azure_search_admin_key, slack_webhook_alerts, mcp_env_block_token,
langfuse_keypair, modal_token_pair, neptune_api_token, elastic_api_key, telegram_bot_token,
discord_bot_token, curl_bearer_header, docker_env_flag.

Kinds, benign (86): model_id, hf_revision_hash, dataset_id, wandb_run_path, otel_trace_id,
langsmith_run_uuid, prompt_sha256, embedding_checksum, langfuse_public_key, openai_org_id,
openai_project_id, env_var_names_only, truncated_key, masked_key, docs_example_key,
env_placeholder, vault_reference, mcp_env_reference, openai_object_ids, anthropic_message_id,
anthropic_batch_id, finetune_job_id, pinecone_index_host, qdrant_point_uuid, weaviate_cluster_url,
helicone_request_id, git_commit_sha, docker_image_digest, lambda_instance_id, runpod_pod_id,
modal_app_id, replicate_version_hash, tokenizer_token_ids, kv_cache_key, rotation_note,
ssh_public_key, jwks_public_modulus, age_public_key, safetensors_sha256, git_lfs_pointer,
gguf_digest, vertex_private_key_id, sa_email_only, azure_endpoint_deployment, arize_space_id,
hashed_key_fingerprint, pip_hash_pin, idempotency_key, special_tokens, fake_test_key,
base64_embedding, eval_harness_config, wandb_artifact_digest, kaggle_dataset_slug, seed_and_uuid,
langsmith_tenant_id, gpu_serial_uuid, revoked_masked_key, cache_key_hash, token_usage_log,
public_dataset_url, hf_token_var_unset, paper_arxiv_ids, openai_completion_id,
secret_manager_command, k8s_secret_key_ref, gha_secret_expression, header_with_env_var,
wandb_run_name, zilliz_cluster_id, chroma_tenant_id, vertex_endpoint_id, hf_endpoint_url,
wandb_sweep_id, prompt_commit_hash, langfuse_trace_url, langsmith_dataset_id, password_policy_talk,
cohere_request_id, dataset_file_checksum, pinecone_project_id, coreweave_namespace,
modal_workspace, modal_token_id_only, rate_limit_headers, key_length_note.
"""

import json
import random
import string
import sys
import uuid

SEED = 3434

ALNUM = string.ascii_letters + string.digits
LOWER_ALNUM = string.ascii_lowercase + string.digits
UPPER_ALNUM = string.ascii_uppercase + string.digits
HEX = "0123456789abcdef"
URLSAFE = ALNUM + "-_"
B64 = ALNUM + "+/"


def corpus() -> list[dict]:
    rng = random.Random(SEED)

    def r(alpha, n):
        return "".join(rng.choice(alpha) for _ in range(n))

    def hx(n):
        return r(HEX, n)

    def uid():
        return str(uuid.UUID(int=rng.getrandbits(128), version=4))

    rows: list[dict] = []

    def add(label, kind, text, value):
        assert value in text, (kind, value, text)
        rows.append({"label": label, "kind": kind, "text": text, "value": value})

    # ------------------------------------------------------------------ secret generators
    gens = {
        "openai_project_key": lambda: "sk-proj-" + r(URLSAFE, 74) + "T3BlbkFJ" + r(URLSAFE, 74),
        "openai_legacy_key": lambda: "sk-" + r(ALNUM, 20) + "T3BlbkFJ" + r(ALNUM, 20),
        "openai_svcacct_key": lambda: "sk-svcacct-" + r(URLSAFE, 74) + "T3BlbkFJ" + r(URLSAFE, 74),
        "openai_admin_key": lambda: "sk-admin-" + r(URLSAFE, 74) + "T3BlbkFJ" + r(URLSAFE, 74),
        "anthropic_api_key": lambda: "sk-ant-api03-" + r(URLSAFE, 93) + "AA",
        "anthropic_admin_key": lambda: "sk-ant-admin01-" + r(URLSAFE, 93) + "AA",
        "mistral_key": lambda: r(ALNUM, 32),
        "cohere_key": lambda: r(ALNUM, 40),
        "groq_key": lambda: "gsk_" + r(ALNUM, 52),
        "together_key": lambda: "tgp_v1_" + r(URLSAFE, 43),
        "fireworks_key": lambda: "fw_" + r(ALNUM, 24),
        "replicate_token": lambda: "r8_" + r(ALNUM, 37),
        "deepseek_key": lambda: "sk-" + hx(32),
        "perplexity_key": lambda: "pplx-" + r(ALNUM, 48),
        "openrouter_key": lambda: "sk-or-v1-" + hx(64),
        "hf_token": lambda: "hf_" + r(string.ascii_letters, 34),
        "azure_openai_key": lambda: hx(32),
        "google_ai_key": lambda: "AIza" + r(URLSAFE, 35),
        "xai_key": lambda: "xai-" + r(ALNUM, 80),
        "nvidia_nim_key": lambda: "nvapi-" + r(URLSAFE, 64),
        "cerebras_key": lambda: "csk-" + r(LOWER_ALNUM, 48),
        "voyage_key": lambda: "pa-" + r(URLSAFE, 43),
        "jina_key": lambda: "jina_" + hx(32) + r(ALNUM, 28),
        "tavily_key": lambda: "tvly-" + r(ALNUM, 32),
        "elevenlabs_key": lambda: "sk_" + hx(48),
        "llamacloud_key": lambda: "llx-" + r(ALNUM, 48),
        "pinecone_key": lambda: "pcsk_" + r(ALNUM, 5) + "_" + r(ALNUM, 64),
        "weaviate_key": lambda: r(ALNUM, 40),
        "qdrant_key": lambda: r(URLSAFE, 54),
        "zilliz_token": lambda: hx(104),
        "chroma_cloud_key": lambda: "ck-" + r(ALNUM, 44),
        "langsmith_key": lambda: "lsv2_pt_" + hx(32) + "_" + hx(10),
        "langfuse_secret_key": lambda: "sk-lf-" + uid(),
        "helicone_key": lambda: "sk-helicone-" + "-".join(r(LOWER_ALNUM, 7) for _ in range(4)),
        "wandb_key": lambda: hx(40),
        "arize_api_key": lambda: "ak-" + uid() + "-" + r(ALNUM, 32),
        "lambda_cloud_key": lambda: (
            "secret_" + r(LOWER_ALNUM, 8) + "_" + hx(32) + "." + r(ALNUM, 32)
        ),
        "runpod_key": lambda: "rpa_" + r(UPPER_ALNUM, 44),
        "modal_token_secret": lambda: "as-" + r(ALNUM, 22),
        "vastai_key": lambda: hx(64),
        "databricks_pat": lambda: "dapi" + hx(32),
        "kaggle_key": lambda: hx(32),
        "github_pat_dataset": lambda: "github_pat_" + r(ALNUM, 22) + "_" + r(ALNUM, 59),
        "anyscale_key": lambda: "esecret_" + r(LOWER_ALNUM, 30),
        "deepgram_key": lambda: hx(40),
        "assemblyai_key": lambda: hx(32),
        "braintrust_key": lambda: "sk-" + r(ALNUM, 48),
        "portkey_key": lambda: r(ALNUM, 30) + "=",
    }
    # kind -> (provider name, env var)
    meta = {
        "openai_project_key": ("OpenAI", "OPENAI_API_KEY"),
        "openai_legacy_key": ("OpenAI (old user key)", "OPENAI_API_KEY"),
        "openai_svcacct_key": ("OpenAI service account", "OPENAI_API_KEY"),
        "openai_admin_key": ("OpenAI admin", "OPENAI_ADMIN_KEY"),
        "anthropic_api_key": ("Anthropic", "ANTHROPIC_API_KEY"),
        "anthropic_admin_key": ("Anthropic admin", "ANTHROPIC_ADMIN_KEY"),
        "mistral_key": ("Mistral", "MISTRAL_API_KEY"),
        "cohere_key": ("Cohere", "CO_API_KEY"),
        "groq_key": ("Groq", "GROQ_API_KEY"),
        "together_key": ("Together", "TOGETHER_API_KEY"),
        "fireworks_key": ("Fireworks", "FIREWORKS_API_KEY"),
        "replicate_token": ("Replicate", "REPLICATE_API_TOKEN"),
        "deepseek_key": ("DeepSeek", "DEEPSEEK_API_KEY"),
        "perplexity_key": ("Perplexity", "PPLX_API_KEY"),
        "openrouter_key": ("OpenRouter", "OPENROUTER_API_KEY"),
        "hf_token": ("Hugging Face", "HF_TOKEN"),
        "azure_openai_key": ("Azure OpenAI", "AZURE_OPENAI_API_KEY"),
        "google_ai_key": ("Gemini", "GOOGLE_API_KEY"),
        "xai_key": ("xAI", "XAI_API_KEY"),
        "nvidia_nim_key": ("NVIDIA NIM", "NVIDIA_API_KEY"),
        "cerebras_key": ("Cerebras", "CEREBRAS_API_KEY"),
        "voyage_key": ("Voyage", "VOYAGE_API_KEY"),
        "jina_key": ("Jina", "JINA_API_KEY"),
        "tavily_key": ("Tavily", "TAVILY_API_KEY"),
        "elevenlabs_key": ("ElevenLabs", "ELEVENLABS_API_KEY"),
        "llamacloud_key": ("LlamaCloud", "LLAMA_CLOUD_API_KEY"),
        "pinecone_key": ("Pinecone", "PINECONE_API_KEY"),
        "weaviate_key": ("Weaviate Cloud", "WEAVIATE_API_KEY"),
        "qdrant_key": ("Qdrant Cloud", "QDRANT_API_KEY"),
        "zilliz_token": ("Zilliz", "ZILLIZ_TOKEN"),
        "chroma_cloud_key": ("Chroma Cloud", "CHROMA_API_KEY"),
        "langsmith_key": ("LangSmith", "LANGSMITH_API_KEY"),
        "langfuse_secret_key": ("Langfuse", "LANGFUSE_SECRET_KEY"),
        "helicone_key": ("Helicone", "HELICONE_API_KEY"),
        "wandb_key": ("W&B", "WANDB_API_KEY"),
        "arize_api_key": ("Arize", "ARIZE_API_KEY"),
        "lambda_cloud_key": ("Lambda Cloud", "LAMBDA_API_KEY"),
        "runpod_key": ("RunPod", "RUNPOD_API_KEY"),
        "modal_token_secret": ("Modal", "MODAL_TOKEN_SECRET"),
        "vastai_key": ("Vast.ai", "VAST_API_KEY"),
        "databricks_pat": ("Databricks", "DATABRICKS_TOKEN"),
        "kaggle_key": ("Kaggle", "KAGGLE_KEY"),
        "github_pat_dataset": ("GitHub (dataset repo)", "GH_TOKEN"),
        "anyscale_key": ("Anyscale", "ANYSCALE_API_KEY"),
        "deepgram_key": ("Deepgram", "DEEPGRAM_API_KEY"),
        "assemblyai_key": ("AssemblyAI", "ASSEMBLYAI_API_KEY"),
        "braintrust_key": ("Braintrust", "BRAINTRUST_API_KEY"),
        "portkey_key": ("Portkey", "PORTKEY_API_KEY"),
    }
    wrappers = [
        "{env}={v}",
        "export {env}='{v}'",
        '{env}="{v}"  # {p}, team account',
        "{p} key for the eval box: {v}",
        'os.environ["{env}"] = "{v}"',
        "notebook cell 3:\n%env {env}={v}\nthen restart kernel",
        "{p}: got a new key today -> {v} (old one deleted)",
        '"env": {{\n  "{env}": "{v}"\n}}',
        "  {env}: {v}\n  # from k8s secret, pasted for the staging run",
        "docker run --gpus all -e {env}={v} ghcr.io/acme/evals:latest",
        "remember: the {p} creds in prod are {v}",
        "Set {env} to {v} in GitHub Actions secrets before merging.",
        "[{p}]\napi_key = {v}",
        "!{env}={v} python run_eval.py --suite mmlu",
        "colab: from google.colab import userdata didn't work, hardcoded {env}={v}",
        "{p} key (rotate after the demo): {v}",
        'client = Client(api_key="{v}")  # {p}',
        "Pour le {p}, la clé est {v}",
        "{p} API 키: {v}",
        'setx {env} "{v}"',
    ]
    kinds = list(gens)
    for wi, k in enumerate(kinds):
        p, env = meta[k]
        picks = rng.sample(range(len(wrappers)), 3)
        for j in picks:
            v = gens[k]()
            text = wrappers[(j + wi) % len(wrappers)].format(env=env, v=v, p=p)
            add("secret", k, text, v)

    # ------------------------------------------------------------------ bespoke secrets
    def pem_body():
        lines = ["MIIEvQIBADANBgkqhkiG9w0BAQEFAASC" + r(B64, 32)] + [r(B64, 64) for _ in range(5)]
        return "\\n".join(lines)

    for i in range(3):
        pk = "-----BEGIN PRIVATE KEY-----\\n" + pem_body() + "\\n-----END PRIVATE KEY-----\\n"
        proj = rng.choice(["rag-prod-4411", "vertex-evals", "gemini-tuning-eu"])
        text = [
            f'vertex sa json (ml-runner@{proj}.iam.gserviceaccount.com):\n"private_key": "{pk}"',
            f'{{"type": "service_account", "project_id": "{proj}", "private_key": "{pk}"}}',
            f"GOOGLE_APPLICATION_CREDENTIALS contents, key part:\n{pk}",
        ][i]
        add("secret", "vertex_sa_private_key", text, pk)

    for i in range(3):
        pw = r(ALNUM + "!#%", 18)
        host = f"in03-{hx(15)}.serverless.gcp-us-west1.cloud.zilliz.com"
        text = [
            f"milvus uri: https://db_admin:{pw}@{host}",
            f"MilvusClient(uri='https://{host}', token='db_admin:{pw}')",
            f"zilliz cluster login root / {pw}  (cluster {host})",
        ][i]
        add("secret", "milvus_uri_password", text, pw)

    for i in range(3):
        pw = r(ALNUM, 24)
        text = [
            f"PGVECTOR_URL=postgresql://rag:{pw}@pg-embeddings.internal:5432/vectors",
            f"embeddings store: postgres://app_rw:{pw}@10.2.0.14/ragdb?sslmode=require",
            f"langchain PGVector connection string -> postgresql+psycopg://lc:{pw}@db:5432/lc",
        ][i]
        add("secret", "pgvector_dsn_password", text, pw)

    for i in range(3):
        pw = r(ALNUM, 32)
        text = [
            f"semantic cache: redis://default:{pw}@redis-14022.c1.us-east-1.cloud.redislabs.com:14022",
            f"REDIS_URL=rediss://:{pw}@cache.llm-gw.svc:6380/0",
            f"gptcache backend redis pw {pw}",
        ][i]
        add("secret", "redis_cache_url", text, pw)

    for i in range(3):
        pw = r(ALNUM, 16)
        text = [
            f"MONGODB_URI=mongodb+srv://vector_app:{pw}@cluster0.ab12c.mongodb.net/?retryWrites=true",
            f"atlas vector search uses mongodb+srv://rag:{pw}@prod-rag.x9yzq.mongodb.net/docs",
            f"mongo creds for the memory store: user agent_mem, password {pw}",
        ][i]
        add("secret", "mongodb_atlas_uri", text, pw)

    def jwt(payload_len=120):
        return (
            "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9."
            + "eyJ"
            + r(URLSAFE, payload_len)
            + "."
            + r(URLSAFE, 43)
        )

    for i in range(3):
        t = jwt()
        text = [
            f"SUPABASE_SERVICE_ROLE_KEY={t}",
            f"supabase vecs: service_role key (bypasses RLS!) {t}",
            f'create_client(url, "{t}")  # service role, for the ingestion worker',
        ][i]
        add("secret", "supabase_service_role_jwt", text, t)

    for i in range(3):
        t = "hf_" + r(string.ascii_letters, 34)
        user = rng.choice(["mlops-bot", "jdoe", "datasets-ci"])
        text = [
            f"git remote set-url origin https://{user}:{t}@huggingface.co/datasets/acme/support-chats",
            f"cloned with https://{user}:{t}@huggingface.co/acme/llama-ft-v3 (write token)",
            f"hub push url: https://user:{t}@huggingface.co/spaces/acme/demo",
        ][i]
        add("secret", "hf_git_remote_token", text, t)

    for i in range(3):
        t = jwt(180)
        text = [
            f"coreweave kubeconfig users:\n- name: cw-ml\n  user:\n    token: {t}",
            f"CW token for the tenant namespace: {t}",
            f"kubectl --token={t} -n tenant-acme-ml get pods",
        ][i]
        add("secret", "coreweave_kubeconfig_token", text, t)

    for i in range(3):
        ak = "AKIA" + r(UPPER_ALNUM, 16)
        sk = r(ALNUM + "/+", 40)
        text = [
            f"sagemaker role creds\naws_access_key_id = {ak}\naws_secret_access_key = {sk}",
            f"AWS_ACCESS_KEY_ID={ak} AWS_SECRET_ACCESS_KEY={sk} python deploy_endpoint.py",
            f"bedrock eval user: {ak} / {sk}",
        ][i]
        add("secret", "aws_secret_key_sagemaker", text, sk)

    for i in range(3):
        k = r(ALNUM, 52)
        text = [
            f"AZURE_SEARCH_ADMIN_KEY={k}",
            f"ai search (srch-rag-weu) admin key: {k}",
            f"api-key: {k}  <- header for the index push, admin not query key",
        ][i]
        add("secret", "azure_search_admin_key", text, k)

    for i in range(3):
        u = "https://hooks.slack.com/services/"
        u += f"T{r(UPPER_ALNUM, 8)}/B{r(UPPER_ALNUM, 10)}/{r(ALNUM, 24)}"
        text = [
            f"eval regression alerts post to {u}",
            f"SLACK_WEBHOOK_URL={u}",
            f"langfuse alert webhook -> {u}",
        ][i]
        add("secret", "slack_webhook_alerts", text, u)

    mcp_specs = [
        ("github", "GITHUB_PERSONAL_ACCESS_TOKEN", lambda: "ghp_" + r(ALNUM, 36)),
        ("brave-search", "BRAVE_API_KEY", lambda: "BSA" + r(ALNUM, 28)),
        ("linear", "LINEAR_API_KEY", lambda: "lin_api_" + r(ALNUM, 40)),
        ("notion", "NOTION_TOKEN", lambda: "ntn_" + r(ALNUM, 46)),
    ]
    for name, env, g in mcp_specs:
        v = g()
        text = (
            f'{{"mcpServers": {{"{name}": {{"command": "npx", '
            f'"args": ["-y", "@acme/mcp-{name}"], "env": {{"{env}": "{v}"}}}}}}}}'
        )
        add("secret", "mcp_env_block_token", text, v)

    for i in range(3):
        pk = "pk-lf-" + uid()
        sk = "sk-lf-" + uid()
        text = [
            f"LANGFUSE_PUBLIC_KEY={pk}\nLANGFUSE_SECRET_KEY={sk}\nLANGFUSE_HOST=https://cloud.langfuse.com",
            f"Langfuse(public_key='{pk}', secret_key='{sk}')",
            f"self-hosted langfuse project keys: public {pk}, secret {sk}",
        ][i]
        add("secret", "langfuse_keypair", text, sk)

    for i in range(3):
        tid = "ak-" + r(ALNUM, 22)
        ts = "as-" + r(ALNUM, 22)
        text = [
            f"modal token set --token-id {tid} --token-secret {ts}",
            f'~/.modal.toml\n[acme]\ntoken_id = "{tid}"\ntoken_secret = "{ts}"',
            f"MODAL_TOKEN_ID={tid}\nMODAL_TOKEN_SECRET={ts}",
        ][i]
        add("secret", "modal_token_pair", text, ts)

    for i in range(3):
        t = (
            "eyJhcGlfYWRkcmVzcyI6Imh0dHBzOi8vYXBwLm5lcHR1bmUuYWkiLCJhcGlfa2V5Ijoi"
            + r(B64, 60)
            + "In0="
        )
        text = [
            f"NEPTUNE_API_TOKEN={t}",
            f"neptune.init_run(project='acme/llm-ft', api_token='{t}')",
            f"neptune token for the sweep: {t}",
        ][i]
        add("secret", "neptune_api_token", text, t)

    for i in range(3):
        k = r(ALNUM + "=", 60)
        text = [
            f"elastic vector store: Authorization: ApiKey {k}",
            f"ES_API_KEY={k}",
            f"ElasticsearchStore(es_url=..., es_api_key='{k}')",
        ][i]
        add("secret", "elastic_api_key", text, k)

    for i in range(3):
        t = f"{rng.randint(6000000000, 7999999999)}:AA{r(URLSAFE, 33)}"
        text = [
            f"agent telegram bot token {t}",
            f"TELEGRAM_BOT_TOKEN={t}",
            f'bot = Bot(token="{t}")  # the RAG support bot',
        ][i]
        add("secret", "telegram_bot_token", text, t)

    for i in range(3):
        t = f"M{r(ALNUM, 25)}.{r(URLSAFE, 6)}.{r(URLSAFE, 38)}"
        text = [
            f"discord eval bot: {t}",
            f"DISCORD_TOKEN={t}",
            f"client.run('{t}')",
        ][i]
        add("secret", "discord_bot_token", text, t)

    bearer = [
        ("https://api.groq.com/openai/v1/chat/completions", lambda: "gsk_" + r(ALNUM, 52)),
        ("https://api.together.xyz/v1/completions", lambda: "tgp_v1_" + r(URLSAFE, 43)),
        ("https://openrouter.ai/api/v1/chat/completions", lambda: "sk-or-v1-" + hx(64)),
    ]
    for url, g in bearer:
        v = g()
        text = f'curl {url} \\\n  -H "Authorization: Bearer {v}" \\\n  -d @req.json'
        add("secret", "curl_bearer_header", text, v)

    for i in range(3):
        v = ["sk-ant-api03-" + r(URLSAFE, 93) + "AA", "r8_" + r(ALNUM, 37), "pplx-" + r(ALNUM, 48)][
            i
        ]
        env = ["ANTHROPIC_API_KEY", "REPLICATE_API_TOKEN", "PERPLEXITY_API_KEY"][i]
        text = f"docker compose run -e {env}={v} agent-worker"
        add("secret", "docker_env_flag", text, v)

    # ------------------------------------------------------------------ benign
    def b(kind, text, value=""):
        add("benign", kind, text, value)

    for t, v in [
        (
            "base model: meta-llama/Llama-3.1-8B-Instruct, tokenizer from the same repo",
            "meta-llama/Llama-3.1-8B-Instruct",
        ),
        (
            "switched judge to claude-sonnet-4-5-20250929, cheaper than opus for pairwise",
            "claude-sonnet-4-5-20250929",
        ),
        (
            "embedding model: text-embedding-3-large (3072 dims), fallback BAAI/bge-m3",
            "text-embedding-3-large",
        ),
    ]:
        b("model_id", t, v)

    for i in range(3):
        v = hx(40)
        b(
            "hf_revision_hash",
            [
                f"pin revision={v} for Qwen2.5-7B so the tokenizer doesn't drift",
                f"from_pretrained('mistralai/Mistral-7B-v0.3', revision='{v}')",
                f"HF commit of the dataset snapshot we evaluated on: {v}",
            ][i],
            v,
        )

    for t, v in [
        ("dataset: HuggingFaceH4/ultrachat_200k split train_sft", "HuggingFaceH4/ultrachat_200k"),
        (
            "load_dataset('acme-internal/support-tickets-2026q3', token=True)",
            "acme-internal/support-tickets-2026q3",
        ),
        ("eval set is cais/mmlu + openai/gsm8k, subset main", "openai/gsm8k"),
    ]:
        b("dataset_id", t, v)

    for i in range(3):
        rid = r(LOWER_ALNUM, 8)
        b(
            "wandb_run_path",
            [
                f"best run: acme-ml/llama-sft/{rid} (loss 0.412)",
                f"wandb.init(resume='must', id='{rid}')",
                f"W&B run {rid} crashed at step 1200, OOM on the 80GB card",
            ][i],
            rid,
        )

    for i in range(3):
        t = hx(32)
        b(
            "otel_trace_id",
            [
                f"slow request trace_id={t} span 4 is the reranker",
                f"traceparent: 00-{t}-{hx(16)}-01",
                f"look at trace {t} in Tempo, tool call loop",
            ][i],
            t,
        )

    for i in range(3):
        u = uid()
        b(
            "langsmith_run_uuid",
            [
                f"LangSmith run {u} shows the retriever returned 0 docs",
                f"share link: https://smith.langchain.com/public/{u}/r",
                f"parent_run_id={u}",
            ][i],
            u,
        )

    for i in range(3):
        h = hx(64)
        b(
            "prompt_sha256",
            [
                f"system prompt v7 sha256: {h}",
                f"prompt_hash={h} (cache key for the judge prompt)",
                f"we log sha256(prompt) only: {h}",
            ][i],
            h,
        )

    for i in range(3):
        h = hx(16) if i == 0 else hx(32)
        b(
            "embedding_checksum",
            [
                f"embeddings.npy xxh64 {h}, 1.2M x 1024 float16",
                f"md5 of vectors parquet after re-embed: {h}",
                f"checksum {h} matches between qdrant export and local index",
            ][i],
            h,
        )

    for i in range(3):
        pk = "pk-lf-" + uid()
        b(
            "langfuse_public_key",
            [
                f"LANGFUSE_PUBLIC_KEY={pk}  (secret key lives in Doppler)",
                f"frontend only needs the public key {pk}, never ship sk-lf to the browser",
                f"langfuse project 'agents-prod' public key: {pk}",
            ][i],
            pk,
        )

    for i in range(3):
        o = "org-" + r(ALNUM, 24)
        b(
            "openai_org_id",
            [
                f"OPENAI_ORG_ID={o}",
                f"bill to organization {o} not the personal one",
                f"OpenAI-Organization: {o}",
            ][i],
            o,
        )

    for i in range(3):
        p = "proj_" + r(ALNUM, 24)
        b(
            "openai_project_id",
            [
                f"OpenAI project id {p} = 'evals-nightly' with its own rate limits",
                f"OPENAI_PROJECT_ID={p}",
                f"usage dashboard filtered by project {p}",
            ][i],
            p,
        )

    b(
        "env_var_names_only",
        "needs OPENAI_API_KEY, ANTHROPIC_API_KEY and HF_TOKEN set; nothing else",
        "HF_TOKEN",
    )
    b(
        "env_var_names_only",
        "required env:\nPINECONE_API_KEY=\nLANGSMITH_API_KEY=\nWANDB_API_KEY=",
        "PINECONE_API_KEY=",
    )
    b(
        "env_var_names_only",
        "added GROQ_API_KEY and TOGETHER_API_KEY to .env.example (empty)",
        "GROQ_API_KEY",
    )

    for i in range(3):
        full = "sk-proj-" + r(URLSAFE, 6)
        tail = r(ALNUM, 4)
        v = [
            f"{full}...{tail}",
            f"sk-ant-api03-{r(URLSAFE, 4)}…{tail}AA",
            f"gsk_{r(ALNUM, 4)}...{tail}",
        ][i]
        b(
            "truncated_key",
            [
                f"the key that leaked in the log was {v}, already rotated",
                f"console shows key {v} last used 3 days ago",
                f"which key is on the eval box? prefix/suffix {v}",
            ][i],
            v,
        )

    for v, t in [
        (
            "sk-proj-****************************3f9Q",
            "OpenAI dashboard lists sk-proj-****************************3f9Q as 'ci-evals'",
        ),
        (
            "hf_********************************",
            "HF_TOKEN=hf_******************************** (masked by the CI runner)",
        ),
        (
            "pcsk_*****_**********",
            "pinecone key shown as pcsk_*****_********** in the settings page",
        ),
    ]:
        b("masked_key", t, v)

    for t, v in [
        ('docs example: export OPENAI_API_KEY="sk-..."  # replace with your key', "sk-..."),
        (
            "README snippet uses ANTHROPIC_API_KEY=sk-ant-xxxxxxxxxxxxxxxxxxxxxxxx as a placeholder",  # noqa: E501
            "sk-ant-xxxxxxxxxxxxxxxxxxxxxxxx",
        ),
        ('from the Pinecone quickstart: api_key="YOUR_API_KEY"', "YOUR_API_KEY"),
    ]:
        b("docs_example_key", t, v)

    for t, v in [
        ("api_key: ${OPENAI_API_KEY}  # resolved at runtime from env", "${OPENAI_API_KEY}"),
        ('token = os.environ["HF_TOKEN"]', 'os.environ["HF_TOKEN"]'),
        ("WANDB_API_KEY=<your-wandb-key>", "<your-wandb-key>"),
    ]:
        b("env_placeholder", t, v)

    for t, v in [
        (
            "ANTHROPIC_API_KEY=op://ml-team/anthropic-prod/credential",
            "op://ml-team/anthropic-prod/credential",
        ),
        (
            "qdrant key is in vault at secret/data/ml/qdrant-cloud (field api_key)",
            "secret/data/ml/qdrant-cloud",
        ),
        (
            "arn:aws:secretsmanager:us-east-1:123456789012:secret:openai/prod-AbCdEf holds the key",
            "arn:aws:secretsmanager:us-east-1:123456789012:secret:openai/prod-AbCdEf",
        ),
    ]:
        b("vault_reference", t, v)

    for t, v in [
        (
            '{"mcpServers": {"github": {"command": "docker", "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "${env:GH_PAT}"}}}}',  # noqa: E501
            "${env:GH_PAT}",
        ),
        (
            '"env": {"BRAVE_API_KEY": "${input:brave_key}"}  (vscode prompts for it)',
            "${input:brave_key}",
        ),
        (
            "mcp server slack: SLACK_BOT_TOKEN comes from keychain via `security find-generic-password`",  # noqa: E501
            "SLACK_BOT_TOKEN",
        ),
    ]:
        b("mcp_env_reference", t, v)

    for i in range(3):
        v = ["file-" + r(ALNUM, 22), "batch_" + hx(32), "asst_" + r(ALNUM, 24)][i]
        b(
            "openai_object_ids",
            [
                f"uploaded eval jsonl as {v}",
                f"nightly batch {v} finished, 2 failed requests",
                f"assistant {v} has the code interpreter tool",
            ][i],
            v,
        )

    for i in range(3):
        v = ["msg_01" + r(ALNUM, 22), "toolu_01" + r(ALNUM, 22), "req_011C" + r(ALNUM, 20)][i]
        b(
            "anthropic_message_id",
            [
                f"the truncated answer was message {v}",
                f"tool_use id {v} never got a tool_result",
                f"anthropic support asked for request-id {v}",
            ][i],
            v,
        )

    for i in range(2):
        v = "msgbatch_01" + r(ALNUM, 22)
        b(
            "anthropic_batch_id",
            [f"message batch {v} ended, results_url fetched", f"poll {v} every 60s"][i],
            v,
        )

    for i in range(3):
        v = [
            "ftjob-" + r(ALNUM, 24),
            f"ft:gpt-4o-mini-2024-07-18:acme::{r(ALNUM, 8)}",
            "ft-" + uid(),
        ][i]
        b(
            "finetune_job_id",
            [
                f"fine-tune {v} succeeded after 3 epochs",
                f"deployed model {v} to the router",
                f"together fine-tune job {v} queued",
            ][i],
            v,
        )

    for i in range(3):
        h = f"rag-docs-{r(LOWER_ALNUM, 7)}.svc.aped-4627-b74a.pinecone.io"
        b(
            "pinecone_index_host",
            [
                f"index host: https://{h}",
                f"PINECONE_HOST={h}",
                f"upserts go to {h} namespace 'kb-v2'",
            ][i],
            h,
        )

    for i in range(3):
        u = uid()
        b(
            "qdrant_point_uuid",
            [
                f"point {u} has a null payload in collection docs_v3",
                f"delete points ids=['{u}']",
                f"duplicate chunk, qdrant id {u}",
            ][i],
            u,
        )

    for i in range(2):
        c = f"https://{r(LOWER_ALNUM, 20)}.c0.europe-west3.gcp.weaviate.cloud"
        b(
            "weaviate_cluster_url",
            [f"weaviate cluster REST endpoint {c}", f"WEAVIATE_URL={c}"][i],
            c,
        )

    for i in range(3):
        u = uid()
        b(
            "helicone_request_id",
            [
                f"Helicone-Id: {u}",
                f"helicone request {u} cost $0.42, huge context",
                f"Helicone-Session-Id={u} for the agent run",
            ][i],
            u,
        )

    for i in range(3):
        s = hx(40)
        b(
            "git_commit_sha",
            [
                f"eval harness at commit {s}",
                f"lm-evaluation-harness @ {s} gives 64.2 on arc_challenge",
                f"bisected the regression to {s}",
            ][i],
            s,
        )

    for i in range(3):
        d = "sha256:" + hx(64)
        b(
            "docker_image_digest",
            [
                f"vllm/vllm-openai@{d}",
                f"pinned TGI image digest {d}",
                f"the runpod template uses image {d}",
            ][i],
            d,
        )

    for i in range(2):
        v = hx(32)
        b(
            "lambda_instance_id",
            [f"lambda instance {v} (8x H100) terminated", f"instance_ids: ['{v}']"][i],
            v,
        )

    for i in range(2):
        v = r(LOWER_ALNUM, 14)
        b(
            "runpod_pod_id",
            [f"runpod pod {v} ssh via proxy {v}-64411ef2@ssh.runpod.io", f"RUNPOD_POD_ID={v}"][i],
            v,
        )

    for i in range(3):
        v = ["ap-" + r(ALNUM, 22), "fc-" + r(UPPER_ALNUM, 26), "sb-" + r(ALNUM, 22)][i]
        b(
            "modal_app_id",
            [
                f"modal app {v} is the embedding job",
                f"function call {v} timed out after 3600s",
                f"sandbox {v} left running over the weekend",
            ][i],
            v,
        )

    for i in range(2):
        v = hx(64)
        b(
            "replicate_version_hash",
            [f"replicate model version {v}", f"stability-ai/sdxl:{v}"][i],
            v,
        )

    b(
        "tokenizer_token_ids",
        "llama3 special ids: bos=128000, eos=128009; pad token set to eos",
        "128009",
    )
    b(
        "tokenizer_token_ids",
        "prompt is 4,812 tokens; max_tokens=1024; token 31337 is weird",
        "31337",
    )
    b("tokenizer_token_ids", "tokenizer.encode('hello') -> [15339, 1917]", "[15339, 1917]")

    for i in range(2):
        v = hx(24)
        b(
            "kv_cache_key",
            [f"prefix cache key {v} hit rate 83%", f"vLLM block hash {v} evicted"][i],
            v,
        )

    b(
        "rotation_note",
        "rotated the OpenAI key after the notebook leak; new one only in 1Password",
        "",
    )
    b("rotation_note", "TODO: ask Priya for the Cohere key, don't paste it here", "")
    b(
        "rotation_note",
        "secret scanning blocked the push because of a hf_ token in a notebook output; cleared outputs",  # noqa: E501
        "hf_",
    )

    for i in range(2):
        k = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + r(B64, 43)
        b(
            "ssh_public_key",
            [f"add to lambda SSH keys: {k} me@laptop", f"runpod public key {k}"][i],
            k,
        )

    n = r(URLSAFE, 342)
    b("jwks_public_modulus", f'jwks for the agent gateway: {{"kty":"RSA","e":"AQAB","n":"{n}"}}', n)
    n2 = r(URLSAFE, 342)
    b("jwks_public_modulus", f"public key n={n2} e=AQAB (verifies eval-service JWTs)", n2)

    a = "age1" + r("qpzry9x8gf2tvdw0s3jn54khce6mua7l", 58)
    b("age_public_key", f"sops recipient for the ml secrets repo: {a}", a)
    a = "age1" + r("qpzry9x8gf2tvdw0s3jn54khce6mua7l", 58)
    b("age_public_key", f".sops.yaml age: {a}", a)

    for i in range(2):
        h = hx(64)
        b(
            "safetensors_sha256",
            [
                f"model-00001-of-00004.safetensors sha256 {h}",
                f"verify: sha256sum adapter_model.safetensors == {h}",
            ][i],
            h,
        )

    h = hx(64)
    b(
        "git_lfs_pointer",
        f"version https://git-lfs.github.com/spec/v1\noid sha256:{h}\nsize 4976698672",
        h,
    )

    h = hx(64)
    b("gguf_digest", f"ollama show: digest sha256:{h} qwen2.5:14b-instruct-q4_K_M", h)

    for i in range(2):
        v = hx(40)
        b(
            "vertex_private_key_id",
            [
                f"service account key id {v} (the JSON itself is in Secret Manager)",
                f'"private_key_id": "{v}", private_key redacted',
            ][i],
            v,
        )

    b(
        "sa_email_only",
        "vertex runs as ml-runner@rag-prod-4411.iam.gserviceaccount.com (workload identity, no key file)",  # noqa: E501
        "ml-runner@rag-prod-4411.iam.gserviceaccount.com",
    )
    b(
        "sa_email_only",
        "grant roles/aiplatform.user to evals@vertex-evals.iam.gserviceaccount.com",
        "evals@vertex-evals.iam.gserviceaccount.com",
    )

    b(
        "azure_endpoint_deployment",
        "AZURE_OPENAI_ENDPOINT=https://acme-oai-swe.openai.azure.com/ deployment gpt-4o-2024-11-20 api-version 2025-01-01-preview",  # noqa: E501
        "https://acme-oai-swe.openai.azure.com/",
    )
    b(
        "azure_endpoint_deployment",
        "azure deployment name 'gpt4o-evals-ptu', key via managed identity (no key)",
        "gpt4o-evals-ptu",
    )

    b("arize_space_id", "ARIZE_SPACE_ID=U3BhY2U6MTI0NTY6d0p4Tg==", "U3BhY2U6MTI0NTY6d0p4Tg==")
    b("arize_space_id", "arize space id U3BhY2U6OTkxOnFhUlA= is 'llm-prod'", "U3BhY2U6OTkxOnFhUlA=")

    for i in range(2):
        h = hx(64)
        b(
            "hashed_key_fingerprint",
            [
                f"gateway stores sha256(api_key) only: {h}",
                f"key fingerprint (sha256, not reversible) {h} belongs to team-search",
            ][i],
            h,
        )

    h = hx(64)
    b("pip_hash_pin", f"vllm==0.9.2 --hash=sha256:{h}", h)

    u = uid()
    b("idempotency_key", f"Idempotency-Key: {u} on the batch submit retry", u)

    b(
        "special_tokens",
        "chat template tokens <|begin_of_text|><|start_header_id|>system<|end_header_id|>",
        "<|start_header_id|>",
    )
    b("special_tokens", "add_special_tokens({'pad_token': '[PAD]'}), resize embeddings", "[PAD]")

    b(
        "fake_test_key",
        "unit test uses OPENAI_API_KEY=sk-test-not-a-real-key-0000 with respx mocking",
        "sk-test-not-a-real-key-0000",
    )
    b(
        "fake_test_key",
        "conftest sets ANTHROPIC_API_KEY='dummy' so the client constructor doesn't fail",
        "dummy",
    )

    e = r(B64, 88) + "=="
    b("base64_embedding", f"embedding (base64 float32, encoding_format=base64) first chunk: {e}", e)
    e = r(B64, 120) + "="
    b("base64_embedding", f"cached vector for doc 8812: {e}", e)

    b(
        "eval_harness_config",
        "tasks: [hellaswag, arc_easy]\nnum_fewshot: 5\nseed: 1234\nbatch_size: auto",
        "1234",
    )
    b(
        "eval_harness_config",
        "inspect eval --model openai/gpt-4.1 --temperature 0 --max-tokens 2048 --epochs 3",
        "--max-tokens 2048",
    )
    b(
        "eval_harness_config",
        "judge_model: anthropic/claude-opus-4-1\njudge_api_key_env: JUDGE_KEY\nthreshold: 0.7",
        "JUDGE_KEY",
    )

    for i in range(2):
        d = r(LOWER_ALNUM, 20)
        b(
            "wandb_artifact_digest",
            [
                f"artifact rag-index:v14 digest {d}",
                f"use_artifact('acme/rag/eval-set:v3') digest={d}",
            ][i],
            d,
        )

    b(
        "kaggle_dataset_slug",
        "kaggle datasets download -d Cornell-University/arxiv",
        "Cornell-University/arxiv",
    )
    b(
        "kaggle_dataset_slug",
        "competition slug: llm-detect-ai-generated-text, username acme-ml",
        "acme-ml",
    )

    u = uid()
    b("seed_and_uuid", f"sampling seed {rng.randint(10**8, 10**9)}, run uuid {u}", u)
    u = uid()
    b("seed_and_uuid", f"experiment_id={u} torch.manual_seed(42)", u)

    u = uid()
    b(
        "langsmith_tenant_id",
        f"LangSmith workspace (tenant) id {u}; key is per-workspace, in Doppler",
        u,
    )
    u = uid()
    b("langsmith_tenant_id", f"LANGSMITH_WORKSPACE_ID={u}", u)

    g = "GPU-" + uid()
    b(
        "gpu_serial_uuid",
        f"nvidia-smi -L: GPU 3: NVIDIA H100 80GB HBM3 (UUID: {g}) has ECC errors",
        g,
    )
    g = "GPU-" + uid()
    b("gpu_serial_uuid", f"CUDA_VISIBLE_DEVICES={g}", g)

    b(
        "revoked_masked_key",
        "revoked 2026-11-30: sk-ant-api03-Zq8…(redacted)…AA — no longer valid, replaced",
        "sk-ant-api03-Zq8…(redacted)…AA",
    )
    b(
        "revoked_masked_key",
        "deleted the Replicate token r8_J3k************ after the demo",
        "r8_J3k************",
    )

    h = hx(40)
    b("cache_key_hash", f"semantic cache entry key sha1:{h} ttl 24h", h)
    h = hx(32)
    b("cache_key_hash", f"diskcache key for completion(model, prompt) = {h}", h)

    b(
        "token_usage_log",
        "usage: prompt_tokens=18231 completion_tokens=944 total_tokens=19175",
        "total_tokens=19175",
    )
    b("token_usage_log", "tokens/sec 142.7 on H100 with tp=2; TTFT 310ms", "")

    b(
        "public_dataset_url",
        "https://huggingface.co/datasets/allenai/c4/resolve/main/en/c4-train.00000-of-01024.json.gz",
        "allenai/c4",
    )
    b(
        "public_dataset_url",
        "download from https://storage.googleapis.com/public-eval-sets/truthfulqa_v2.jsonl (public bucket)",  # noqa: E501
        "",
    )

    b(
        "hf_token_var_unset",
        "HF_TOKEN is unset on the runner, so gated llama downloads 401; ask infra to add it",
        "HF_TOKEN",
    )
    b(
        "hf_token_var_unset",
        "`huggingface-cli login` stores the token in ~/.cache/huggingface/token; don't commit that dir",  # noqa: E501
        "~/.cache/huggingface/token",
    )

    b("paper_arxiv_ids", "refs: arXiv:2305.18290 (DPO), arXiv:2402.03300 (GRPO)", "2402.03300")

    # more benign look-alikes
    for i in range(3):
        v = "chatcmpl-" + r(ALNUM, 29)
        b(
            "openai_completion_id",
            [
                f"completion {v} returned finish_reason=length",
                f"x-request-id for {v} attached to the ticket",
                f"dedupe on id ({v}) before writing to the eval table",
            ][i],
            v,
        )

    for t, v in [
        (
            "gcloud secrets versions access latest --secret=openai-api-key > /dev/null && echo ok",
            "--secret=openai-api-key",
        ),
        (
            "doppler secrets get ANTHROPIC_API_KEY --plain | wc -c  -> 109, so the key is the right length",  # noqa: E501
            "ANTHROPIC_API_KEY",
        ),
        (
            "aws secretsmanager get-secret-value --secret-id ml/pinecone --query SecretString",
            "ml/pinecone",
        ),
    ]:
        b("secret_manager_command", t, v)

    for t, v in [
        (
            "env:\n- name: OPENAI_API_KEY\n  valueFrom:\n    secretKeyRef: {name: llm-keys, key: openai}",  # noqa: E501
            "secretKeyRef",
        ),
        ("- name: HF_TOKEN\n  valueFrom: {secretKeyRef: {name: hub, key: token}}", "secretKeyRef"),
    ]:
        b("k8s_secret_key_ref", t.replace("\\n", "\n"), v)

    for t, v in [
        ("OPENAI_API_KEY: ${{ secrets.OPENAI_API_KEY }}", "${{ secrets.OPENAI_API_KEY }}"),
        (
            "with:\n  hf_token: ${{ secrets.HF_WRITE_TOKEN }}\n  repo: acme/evals",
            "${{ secrets.HF_WRITE_TOKEN }}",
        ),
        (
            "LANGSMITH_API_KEY: ${{ secrets.LANGSMITH_KEY }}  # set at org level",
            "${{ secrets.LANGSMITH_KEY }}",
        ),
    ]:
        b("gha_secret_expression", t, v)

    b(
        "header_with_env_var",
        'curl https://api.anthropic.com/v1/messages -H "x-api-key: $ANTHROPIC_API_KEY" -H "anthropic-version: 2023-06-01"',  # noqa: E501
        "$ANTHROPIC_API_KEY",
    )
    b(
        "header_with_env_var",
        'headers={"Authorization": f"Bearer {os.getenv(\'GROQ_API_KEY\')}"}',
        "os.getenv('GROQ_API_KEY')",
    )
    b("header_with_env_var", "-H 'api-key: '\"$AZURE_OPENAI_API_KEY\"", "$AZURE_OPENAI_API_KEY")

    b(
        "wandb_run_name",
        "run glowing-sunset-42 had the best eval loss; keep its checkpoint",
        "glowing-sunset-42",
    )
    b(
        "wandb_run_name",
        "wandb.init(name='brisk-river-1187', group='dpo-beta-sweep')",
        "brisk-river-1187",
    )
    b("wandb_run_name", "compare cosmic-owl-9 vs lucid-haze-12 on the W&B report", "cosmic-owl-9")

    for i in range(2):
        c = "in03-" + hx(15)
        b(
            "zilliz_cluster_id",
            [f"zilliz cluster {c} paused to save cost", f"cluster_id: {c} region gcp-us-west1"][i],
            c,
        )

    for i in range(2):
        t = uid()
        b(
            "chroma_tenant_id",
            [f"chroma cloud tenant {t}, database 'kb'", f"CHROMA_TENANT={t}"][i],
            t,
        )

    for i in range(2):
        v = str(rng.randint(10**18, 10**19 - 1))
        b(
            "vertex_endpoint_id",
            [
                f"projects/rag-prod-4411/locations/us-central1/endpoints/{v}",
                f"vertex endpoint {v} serves the tuned gemini",
            ][i],
            v,
        )

    for i in range(2):
        h = f"https://{r(LOWER_ALNUM, 16)}.us-east-1.aws.endpoints.huggingface.cloud"
        b(
            "hf_endpoint_url",
            [f"TGI inference endpoint at {h} (token auth)", f"base_url={h}/v1/"][i],
            h,
        )

    for i in range(2):
        v = r(LOWER_ALNUM, 8)
        b(
            "wandb_sweep_id",
            [f"wandb agent acme-ml/llama-sft/{v}", f"sweep {v}: lr in [1e-5, 5e-5]"][i],
            v,
        )

    for i in range(2):
        v = hx(8)
        b(
            "prompt_commit_hash",
            [
                f"hub.pull('acme/rag-answer:{v}')",
                f"prompt version {v} regressed faithfulness by 4pts",
            ][i],
            v,
        )

    for i in range(2):
        t = hx(32)
        b(
            "langfuse_trace_url",
            [
                f"https://cloud.langfuse.com/project/cm3{r(LOWER_ALNUM, 22)}/traces/{t}",
                f"langfuse trace {t} has 14 generations",
            ][i],
            t,
        )

    for i in range(2):
        u = uid()
        b(
            "langsmith_dataset_id",
            [
                f"LangSmith dataset {u} ('golden-qa-v5', 412 examples)",
                f"client.read_dataset(dataset_id='{u}')",
            ][i],
            u,
        )

    b(
        "password_policy_talk",
        "Zilliz wants the db password to be 8-64 chars with upper, lower, digit, symbol",
        "",
    )
    b("password_policy_talk", "reset the RunPod account password via email link; 2FA on", "")

    b(
        "cohere_request_id",
        f"cohere rerank response meta.billed_units search_units=1, id {uid()}",
        "",
    )
    rows[-1]["value"] = rows[-1]["text"].split("id ")[-1]

    for i in range(2):
        v = "sha256:" + hx(64)
        b(
            "dataset_file_checksum",
            [f"test.jsonl {v} (frozen eval split)", f"expected_checksum = '{v}'"][i],
            v,
        )

    b("pinecone_project_id", f"pinecone project id {uid()} in org acme; key not stored here", "")
    rows[-1]["value"] = rows[-1]["text"].split("id ")[1].split()[0]

    b(
        "coreweave_namespace",
        "coreweave namespace tenant-acme-ml, org id a1b2c3; kube context cw-ord1",
        "tenant-acme-ml",
    )

    b("modal_workspace", "modal profile activate acme-ml  (workspace acme-ml, env main)", "acme-ml")

    v = "ak-" + r(ALNUM, 22)
    b(
        "modal_token_id_only",
        f"modal token id {v} belongs to the CI user; the secret half is only in GH secrets",
        v,
    )

    b(
        "rate_limit_headers",
        "x-ratelimit-remaining-tokens: 149984, anthropic-ratelimit-tokens-reset: 2026-12-07T01:02:03Z",  # noqa: E501
        "149984",
    )

    b(
        "key_length_note",
        "OpenAI project keys start with sk-proj- and are ~164 chars; Anthropic's start sk-ant-api03-",  # noqa: E501
        "sk-ant-api03-",
    )

    for r_ in rows:
        assert r_["value"] in r_["text"], r_
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

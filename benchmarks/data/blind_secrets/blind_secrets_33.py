# ruff: noqa: E501
"""Blind corpus 33: a platform team running Kubernetes across many clouds.

Brief: a platform team running Kubernetes across Azure, GCP, Alibaba Cloud, Tencent
Cloud, Yandex Cloud, DigitalOcean, Hetzner, Linode/Akamai, OVH and Scaleway: cloud
access keys and service principals, kubeconfigs and service-account tokens, Helm
values with credentials, Terraform state excerpts and tfvars, Argo/Flux git
credentials, cert-manager/ACME account keys, service-mesh CA keys, container registry
logins, Consul/Nomad/Vault tokens, etcd encryption keys, external-dns provider tokens,
backup (Velero/restic) passwords. Look-alikes: resource ids, subscription/tenant/
project ids, cluster CA certificates (public), image digests, Helm chart digests, ACME
key thumbprints, public JWKS, secret names and references (secretKeyRef,
ExternalSecret), sealed/encrypted values, base64 of non-secret config, commit SHAs,
node pool ids.

Written blind on 2026-12-07: the author did not read the detector, its tests or any
earlier corpus.

Run: python blind_secrets_33.py [out.jsonl]   (JSONL to the path, or stdout)

Every value is generated from random.Random(SEED); no real credential is in here.

Kinds, secret: see SECRET_KINDS below (azure_client_secret, azure_sp_json,
azure_storage_key, azure_storage_conn, azure_sas_sig, gcp_sa_private_key,
gcp_api_key, gcp_refresh_token, alibaba_access_secret, tencent_secret_key,
yandex_iam_token, yandex_static_secret, yandex_oauth_token, do_pat, do_spaces_secret,
hetzner_token, linode_token, ovh_app_secret, ovh_consumer_key, scaleway_secret_key,
kubeconfig_client_key, kubeconfig_token, k8s_sa_jwt, k8s_bootstrap_token,
kubeadm_cert_key, helm_db_password, helm_redis_password, helm_set_password,
tfstate_private_key, tfstate_db_password, tfvars_client_secret, argocd_repo_pat,
argocd_repo_ssh_key, flux_gitlab_token, argocd_admin_password, acme_account_key,
acme_eab_hmac, istio_ca_key, linkerd_issuer_key, dockerconfig_auth,
acr_admin_password, gcr_json_key_login, docker_login_password, consul_acl_token,
consul_gossip_key, nomad_acl_token, vault_token, vault_unseal_key, etcd_aescbc_key,
externaldns_cloudflare_token, externaldns_hetzner_dns_token, externaldns_aws_secret,
velero_cloud_credentials, restic_password, kopia_repo_password,
grafana_admin_password, alertmanager_slack_webhook, sealed_secrets_controller_key,
wireguard_private_key, node_ssh_private_key, ingress_basic_auth_password,
github_app_private_key, argocd_webhook_secret, rancher_api_key, tailscale_auth_key,
mongodb_uri_password, postgres_dsn_password, oidc_client_secret,
minio_root_password, argocd_session_jwt).

Kinds, benign: see BENIGN_KINDS below (azure_subscription_id, azure_tenant_id,
azure_client_id, azure_resource_id, gcp_project_number, gcp_sa_email, gcp_key_id,
alibaba_resource_id, tencent_cluster_id, yandex_folder_id, do_cluster_uuid,
hetzner_ssh_fingerprint, linode_cluster_id, ovh_project_id, scaleway_project_id,
cluster_ca_data, image_digest, helm_chart_digest, acme_thumbprint, public_jwks,
secret_key_ref, external_secret_ref, sealed_secret_blob, sops_encrypted,
base64_config, commit_sha, node_pool_id, vault_path_ref, env_placeholder,
redacted_value, ssh_public_key, ssh_host_fingerprint, public_cert_pem,
age_public_key, pgp_fingerprint, k8s_uid, tfstate_lineage, tf_sensitive_hidden,
kubeadm_ca_cert_hash, argocd_sync_revision, consul_node_id, vault_lease_id,
nomad_alloc_id, etcd_member_id, registry_username_only, token_talk, key_other_sense,
kms_key_reference, azure_keyvault_uri, gcp_secret_manager_name,
terraform_lock_hash, cosign_public_key, webhook_ca_bundle, azure_request_id,
acme_account_url, spiffe_id, docs_example_bootstrap, revoked_token_noted,
bcrypt_admin_hash, restic_snapshot_id, helm_release_secret_name,
ansible_vault_blob, oidc_issuer_client_id, managed_identity_object_id,
git_lfs_oid, trace_id).
"""

import base64
import json
import random
import re
import string
import sys
import uuid

SEED = 3333

ALNUM = string.ascii_letters + string.digits
HEX = "0123456789abcdef"


def corpus() -> list[dict]:
    r = random.Random(SEED)

    def pick(seq):
        return seq[r.randrange(len(seq))]

    def s(n, alpha=ALNUM):
        return "".join(r.choice(alpha) for _ in range(n))

    def hx(n):
        return s(n, HEX)

    def uid():
        return str(uuid.UUID(int=r.getrandbits(128), version=4))

    def rb(n):
        return bytes(r.getrandbits(8) for _ in range(n))

    def b64(n):
        return base64.b64encode(rb(n)).decode()

    def b64u(n):
        return base64.urlsafe_b64encode(rb(n)).decode().rstrip("=")

    def pw():
        words = ["Harbor", "Kelp", "Otter", "Fjord", "Lantern", "Quartz", "Mango", "Tundra"]
        return pick(words) + s(3, string.digits) + pick("!#%&*@$") + s(5) + pick(words).lower()

    def pem(kind, nbytes, oneline=False):
        body = base64.b64encode(rb(nbytes)).decode()
        lines = [body[i : i + 64] for i in range(0, len(body), 64)]
        sep = "\\n" if oneline else "\n"
        return f"-----BEGIN {kind}-----{sep}" + sep.join(lines) + f"{sep}-----END {kind}-----"

    def ec_key():
        return pem("EC PRIVATE KEY", 121)

    def openssh_key():
        body = "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW" + b64(200)
        lines = [body[i : i + 70] for i in range(0, len(body), 70)]
        return (
            "-----BEGIN OPENSSH PRIVATE KEY-----\n"
            + "\n".join(lines)
            + "\n-----END OPENSSH PRIVATE KEY-----"
        )

    def jwt(payload, alg="RS256", siglen=256):
        h = (
            base64.urlsafe_b64encode(json.dumps({"alg": alg, "kid": b64u(30)}).encode())
            .decode()
            .rstrip("=")
        )
        p = base64.urlsafe_b64encode(json.dumps(payload).encode()).decode().rstrip("=")
        return f"{h}.{p}.{b64u(siglen)}"

    def sa_jwt():
        ns = pick(["kube-system", "argocd", "flux-system", "monitoring", "ci"])
        sa = pick(["deployer", "ci-bot", "argocd-manager", "velero", "external-dns"])
        return jwt(
            {
                "iss": "kubernetes/serviceaccount",
                "kubernetes.io/serviceaccount/namespace": ns,
                "kubernetes.io/serviceaccount/secret.name": f"{sa}-token-{s(5, 'bcdfghjklmnpqrstvwxz2456789')}",
                "sub": f"system:serviceaccount:{ns}:{sa}",
            }
        )

    def azure_secret():
        return s(3) + s(1, string.digits) + "Q~" + s(34, ALNUM + "_.~-")

    def cert_b64():
        c = pem("CERTIFICATE", 700)
        c = c.replace("-----\n", "-----\nMIIC", 1)
        return base64.b64encode((c + "\n").encode()).decode()

    def key_b64():
        return base64.b64encode((ec_key() + "\n").encode()).decode()

    def cert_pem_short():
        return pem("CERTIFICATE", 200).replace("-----\n", "-----\nMIIB", 1)

    def sha256():
        return hx(64)

    clusters = [
        "prod-weu",
        "stg-euw3",
        "edge-fra1",
        "prod-hel1",
        "lke-ams",
        "ycloud-ru-a",
        "ack-hz",
        "tke-gz",
        "ovh-gra7",
        "scw-par2",
    ]

    fills = {
        "uuid": uid,
        "uuid2": uid,
        "hex8": lambda: hx(8),
        "hex40": lambda: hx(40),
        "cluster": lambda: pick(clusters),
        "ns": lambda: pick(["payments", "platform", "observability", "ingress-nginx", "data"]),
        "who": lambda: pick(["Ines", "Tomasz", "Priya", "Kenji", "Olu", "Marta", "Dmitri"]),
        "num": lambda: str(r.randint(100000000000, 999999999999)),
        "date": lambda: f"2026-{r.randint(1, 11):02d}-{r.randint(1, 28):02d}",
        "user": lambda: pick(["svc-deploy", "platform-bot", "ci-runner", "admin", "ops"]),
    }

    rows = []

    def add(label, kind, gen, templates):
        for t in templates:
            v = gen()
            text = re.sub(
                r"\{(v|" + "|".join(fills) + r")\}",
                lambda m: v if m.group(1) == "v" else fills[m.group(1)](),  # noqa: B023
                t,
            )
            rows.append({"label": label, "kind": kind, "text": text, "value": v})

    S = lambda kind, gen, ts: add("secret", kind, gen, ts)  # noqa: E731
    B = lambda kind, gen, ts: add("benign", kind, gen, ts)  # noqa: E731

    # ------------------------------------------------------------------ secrets
    S(
        "azure_client_secret",
        azure_secret,
        [
            "AKS deployer SP (appId {uuid}) new client secret: {v}  -- expires in 12 months, set reminder",
            "az ad app credential reset output for sp-aks-{cluster}:\n  password: {v}\n  tenant: {uuid}",
            "ARM_CLIENT_SECRET={v}\nARM_CLIENT_ID={uuid}\nARM_TENANT_ID={uuid2}",
        ],
    )
    S(
        "azure_sp_json",
        azure_secret,
        [
            'create-for-rbac gave us: {"appId": "{uuid}", "displayName": "gh-actions-aks", "password": "{v}", "tenant": "{uuid2}"}',
            'AZURE_CREDENTIALS secret in the infra repo is this JSON:\n{\n  "clientId": "{uuid}",\n  "clientSecret": "{v}",\n  "subscriptionId": "{uuid2}"\n}',
            "external-dns azure.json for {cluster}: tenantId {uuid}, aadClientId {uuid2}, aadClientSecret {v}",
        ],
    )
    S(
        "azure_storage_key",
        lambda: b64(64),
        [
            "velero backup storage account stvelero{hex8}, key1 = {v}",
            "AZURE_STORAGE_KEY={v}  # for the tfstate container, rotate after the migration",
            "Storage account access key (key2) for the loki chunks bucket on {cluster}: {v}",
        ],
    )
    S(
        "azure_storage_conn",
        lambda: b64(64),
        [
            "DefaultEndpointsProtocol=https;AccountName=stthanos{hex8};AccountKey={v};EndpointSuffix=core.windows.net",
            "thanos objstore config:\n  type: AZURE\n  config:\n    storage_account: stthanosweu\n    storage_account_key: {v}",
            "connection string for the backup function: AccountName=stbackup;AccountKey={v}",
        ],
    )
    S(
        "azure_sas_sig",
        lambda: (
            base64.b64encode(rb(32))
            .decode()
            .replace("+", "%2B")
            .replace("/", "%2F")
            .replace("=", "%3D")
        ),
        [
            "SAS url for the etcd snapshot container (valid until 2027): https://stetcdsnap.blob.core.windows.net/snaps?sv=2022-11-02&ss=b&srt=co&sp=rwdlac&se=2027-06-30T00:00:00Z&sig={v}",
            "Gave {who} this SAS to upload the bundle, sig={v}, full write on the container",
            "loki azure SAS token: ?sp=racwdl&st=2026-11-01&se=2027-11-01&spr=https&sv=2022-11-02&sr=c&sig={v}",
        ],
    )
    S(
        "gcp_sa_private_key",
        lambda: pem("PRIVATE KEY", 180, oneline=True),
        [
            'gke-deployer key file excerpt: "type": "service_account", "private_key_id": "{hex40}", "private_key": "{v}"',
            'the key JSON for external-dns@proj.iam.gserviceaccount.com has private_key: "{v}"',
            'cnrm controller creds (GKE {cluster}) -> private_key="{v}" client_email=cnrm@infra-prod.iam.gserviceaccount.com',
        ],
    )
    S(
        "gcp_api_key",
        lambda: "AIza" + s(35, ALNUM + "-_"),
        [
            "Maps/geocoding key the status page uses, unrestricted for now: {v}",
            "GOOGLE_API_KEY={v} (used by the cost exporter to hit cloudbilling)",
            "api key from the gcp console for the translate sidecar: {v} -- restrict to our egress IPs!",
        ],
    )
    S(
        "gcp_refresh_token",
        lambda: "1//0" + s(2) + "-" + s(90, ALNUM + "-_"),
        [
            "my gcloud application_default_credentials refresh_token: {v}",
            "For the terraform runner I pasted my ADC:\n  client_id: 764086051850-xxx.apps.googleusercontent.com\n  refresh_token: {v}",
            "refresh token to get GKE access from the bastion: {v}",
        ],
    )
    S(
        "alibaba_access_secret",
        lambda: s(30),
        [
            "ACK terraform user: AccessKey ID LTAI5tQ8mNpW3rZy7kHd2vFcB, AccessKey Secret {v}",
            "ALICLOUD_ACCESS_KEY=LTAI5tGv8nRk2PqWx9LmZs4Y\nALICLOUD_SECRET_KEY={v}\nALICLOUD_REGION=cn-hangzhou",
            "aliyun configure for the oss velero bucket -> access_key_secret: {v}",
        ],
    )
    S(
        "tencent_secret_key",
        lambda: s(32),
        [
            "TKE ops account: SecretId AKID"
            + "Zq3Lw8Hn2Kp6Vt9Rb4Yc7Mx1Nd5Fg0Js"
            + ", SecretKey {v}",
            "TENCENTCLOUD_SECRET_KEY={v}  # paired with the AKID in 1password",
            'cert-manager tencent dns webhook values: secretKey: "{v}"',
        ],
    )
    S(
        "yandex_iam_token",
        lambda: "t1.9euelZ" + s(60, ALNUM + "-_") + "." + s(86, ALNUM + "-_"),
        [
            "yc iam create-token (valid 12h) for the migration job: {v}",
            "YC_TOKEN={v}",
            'curl -H "Authorization: Bearer {v}" https://mks.api.cloud.yandex.net/managed-kubernetes/v1/clusters',
        ],
    )
    S(
        "yandex_static_secret",
        lambda: "YCM" + s(37, ALNUM + "-_"),
        [
            "Object storage static key for velero (ru-central1): key_id YCAJE{hex8}x, secret {v}",
            "aws_access_key_id = YCAJEk7Pq2Lw9Zr4Ns1Vd8Mx3\naws_secret_access_key = {v}\n# yandex s3, loki bucket",
            "yandex sa static access key secret for thanos: {v}",
        ],
    )
    S(
        "yandex_oauth_token",
        lambda: "y0_AgAAAA" + s(49, ALNUM + "-_"),
        [
            "yc init used my OAuth token {v}, move that to a service account before leaving",
            "token: {v}\ncloud-id: b1gq8n4m7vk2pr9tcx3a\nfolder-id: b1g5zx8w2ee7ap0nqd1k",
            "Yandex passport oauth for the terraform provider: {v}",
        ],
    )
    S(
        "do_pat",
        lambda: "dop_v1_" + hx(64),
        [
            "DIGITALOCEAN_ACCESS_TOKEN={v}",
            "doctl auth init --access-token {v} --context edge-fra1",
            "DOKS cluster-autoscaler needs a token in the secret, used {v} (read+write)",
        ],
    )
    S(
        "do_spaces_secret",
        lambda: b64(32).rstrip("="),
        [
            "Spaces key for velero: access DO00{ak} secret {v}".replace("{ak}", "8XKQ2ZT7MPNLWJ4R"),
            "SPACES_SECRET_ACCESS_KEY={v}\nSPACES_ENDPOINT=fra1.digitaloceanspaces.com",
            "[default]\naws_access_key_id=DO00HY4LRNX7KQ2WZ8PT\naws_secret_access_key={v}",
        ],
    )
    S(
        "hetzner_token",
        lambda: s(64),
        [
            "hcloud context create prod-hel1, token {v}",
            "HCLOUD_TOKEN={v} used by hcloud-cloud-controller-manager + csi",
            "kubectl -n kube-system create secret generic hcloud --from-literal=token={v}",
        ],
    )
    S(
        "linode_token",
        lambda: hx(64),
        [
            "LINODE_TOKEN={v}  # LKE full access, for terraform only",
            "linode-cli configured with personal access token {v}",
            "ccm-linode secret for lke-ams: apiToken: {v}",
        ],
    )
    S(
        "ovh_app_secret",
        lambda: s(32),
        [
            "OVH API app for the gra7 cluster: application_key k7PqW2nZ8rLx4Vd1, application_secret {v}",
            "OVH_APPLICATION_SECRET={v}",
            "cert-manager ovh webhook: applicationSecret: {v}",
        ],
    )
    S(
        "ovh_consumer_key",
        lambda: s(32),
        [
            "OVH_CONSUMER_KEY={v} (validated for GET/POST/PUT/DELETE on /cloud/*)",
            "consumer key we validated in the browser for the dns01 solver: {v}",
            "ovh.conf [ovh-eu] consumer_key={v}",
        ],
    )
    S(
        "scaleway_secret_key",
        uid,
        [
            "SCW_ACCESS_KEY=SCWX8QK2M7PN4RZ1WTJ5\nSCW_SECRET_KEY={v}\nSCW_DEFAULT_PROJECT_ID={uuid}",
            "Kapsule terraform API key, secret part: {v}",
            "scw init done with secret key {v} (org {uuid})",
        ],
    )
    S(
        "kubeconfig_client_key",
        key_b64,
        [
            "users:\n- name: admin@{cluster}\n  user:\n    client-certificate-data: (cert, public)\n    client-key-data: {v}",
            "client-key-data for the break-glass admin kubeconfig: {v}",
            "copy of kube-admin key from the rke2 node (base64): {v}",
        ],
    )
    S(
        "kubeconfig_token",
        lambda: (
            "kubeconfig-u-"
            + s(5, "abcdefghijklmnopqrstuvwxyz0123456789")
            + ":"
            + s(54, "abcdefghijklmnopqrstuvwxyz0123456789")
        ),
        [
            "rancher kubeconfig for {cluster}:\n- name: {cluster}\n  user:\n    token: {v}",
            "bearer token in the shared kubeconfig is {v}",
            "kubectl --token={v} --server=https://rancher.internal/k8s/clusters/c-m-{hex8} get nodes",
        ],
    )
    S(
        "k8s_sa_jwt",
        sa_jwt,
        [
            "long-lived SA token for the CI deployer: {v}",
            "kubectl create token argocd-manager --duration=8760h printed {v}",
            "apiVersion: v1\nkind: Config\nusers:\n- name: ci\n  user:\n    token: {v}",
        ],
    )
    S(
        "k8s_bootstrap_token",
        lambda: (
            s(6, "abcdefghijklmnopqrstuvwxyz0123456789")
            + "."
            + s(16, "abcdefghijklmnopqrstuvwxyz0123456789")
        ),
        [
            "kubeadm join 10.20.0.10:6443 --token {v} --discovery-token-ca-cert-hash sha256:{hex40}",
            "new bootstrap token for the hel1 workers (24h ttl): {v}",
            "bootstrap token for adding metal nodes: {v}",
        ],
    )
    S(
        "kubeadm_cert_key",
        lambda: hx(64),
        [
            "kubeadm init phase upload-certs --upload-certs -> certificate key: {v}",
            "control plane join: --control-plane --certificate-key {v}",
            "certificateKey from the upload-certs step (2h): {v}",
        ],
    )
    S(
        "helm_db_password",
        pw,
        [
            'values-prod.yaml for keycloak:\n  postgresql:\n    auth:\n      password: "{v}"',
            "bitnami postgresql in {ns}: auth.postgresPassword={v}",
            "harbor database.internal.password: {v}",
        ],
    )
    S(
        "helm_redis_password",
        pw,
        [
            "redis:\n  auth:\n    enabled: true\n    password: {v}",
            "argocd-redis password in the ha values is {v}",
            "sentinel/redis for {ns}, REDIS_PASSWORD={v}",
        ],
    )
    S(
        "helm_set_password",
        pw,
        [
            "helm upgrade --install mysql bitnami/mysql -n {ns} --set auth.rootPassword={v}",
            "helm install rabbitmq bitnami/rabbitmq --set auth.username=app,auth.password={v}",
            "ran: helm upgrade gitea gitea-charts/gitea --set gitea.admin.password='{v}'",
        ],
    )
    S(
        "tfstate_private_key",
        lambda: pem("RSA PRIVATE KEY", 180, oneline=True),
        [
            '"type": "tls_private_key", "name": "argocd_deploy", "instances": [{"attributes": {"algorithm": "RSA", "private_key_pem": "{v}"',
            'state excerpt (module.flux.tls_private_key.main): private_key_pem = "{v}"',
            "tls_private_key.node_ssh -> private_key_openssh/pem in state: {v}",
        ],
    )
    S(
        "tfstate_db_password",
        pw,
        [
            '"type": "random_password", "name": "pg_admin", ... "result": "{v}"',
            'azurerm_postgresql_flexible_server.main administrator_password = "{v}" (from terraform.tfstate)',
            'terraform state show random_password.grafana -> result = "{v}"',
        ],
    )
    S(
        "tfvars_client_secret",
        azure_secret,
        [
            'prod.auto.tfvars:\nsubscription_id = "{uuid}"\nclient_id = "{uuid2}"\nclient_secret = "{v}"',
            'terraform.tfvars (not in git!) -> sp_secret = "{v}"',
            "TF_VAR_client_secret='{v}' terraform plan",
        ],
    )
    S(
        "argocd_repo_pat",
        lambda: "ghp_" + s(36),
        [
            "argocd repo add https://github.com/acme/platform-gitops --username git --password {v}",
            "repo-creds secret: url https://github.com/acme, password: {v}",
            "GitHub PAT for argocd (repo scope): {v}",
        ],
    )
    S(
        "argocd_repo_ssh_key",
        openssh_key,
        [
            "sshPrivateKey for the gitops repo deploy key:\n{v}",
            "deploy key (write) for flux, private half:\n{v}",
            "identity file for the argo image updater:\n{v}",
        ],
    )
    S(
        "flux_gitlab_token",
        lambda: "glpat-" + s(20, ALNUM + "-_"),
        [
            "flux bootstrap gitlab --owner=platform --repository=fleet, GITLAB_TOKEN={v}",
            "flux-system secret: username: git, password: {v}",
            "gitlab deploy token for the fleet repo: {v}",
        ],
    )
    S(
        "argocd_admin_password",
        lambda: s(16, ALNUM + "-"),
        [
            "argocd-initial-admin-secret on {cluster} decodes to {v}",
            "argocd login argocd.{cluster}.internal --username admin --password {v}",
            "initial admin password for argo (change it!): {v}",
        ],
    )
    S(
        "acme_account_key",
        ec_key,
        [
            "letsencrypt-prod ClusterIssuer account key (secret letsencrypt-prod-account):\n{v}",
            "backup of the ACME account private key so we keep the same account:\n{v}",
            "zerossl issuer privateKeySecretRef content:\n{v}",
        ],
    )
    S(
        "acme_eab_hmac",
        lambda: b64u(64),
        [
            "ZeroSSL EAB: keyID {hex8}{hex8}, HMAC key {v}",
            "externalAccountBinding keySecretRef -> secret zerossl-eab, key secret: {v}",
            "eab-hmac-key for the sectigo acme account: {v}",
        ],
    )
    S(
        "istio_ca_key",
        ec_key,
        [
            "cacerts secret for istio multi-cluster, ca-key.pem:\n{v}",
            "intermediate CA key for the mesh on {cluster}:\n{v}",
            "istio plug-in CA key (do not lose):\n{v}",
        ],
    )
    S(
        "linkerd_issuer_key",
        ec_key,
        [
            "linkerd identity issuer key (issuer.key):\n{v}",
            "--identity-issuer-key-file contents:\n{v}",
            "trust anchor key for linkerd, generated with step:\n{v}",
        ],
    )
    S(
        "dockerconfig_auth",
        lambda: base64.b64encode(
            f"{pick(['robot$ci', 'deploy', 'puller'])}:{s(24)}".encode()
        ).decode(),
        [
            '{"auths":{"registry.internal:5000":{"auth":"{v}"}}}',
            ".dockerconfigjson for harbor pull secret, auth field = {v}",
            "imagePullSecret regcred auth: {v}",
        ],
    )
    S(
        "acr_admin_password",
        lambda: s(42, ALNUM + "+/") + "+ACR" + s(6),
        [
            "ACR acrplatformweu admin password: {v}",
            "az acr credential show -> passwords[0].value = {v}",
            "docker login acrplatformweu.azurecr.io -u acrplatformweu -p {v}",
        ],
    )
    S(
        "gcr_json_key_login",
        lambda: pem("PRIVATE KEY", 160, oneline=True),
        [
            "cat key.json | docker login -u _json_key --password-stdin europe-docker.pkg.dev, key.json private_key: {v}",
            'artifact registry pull SA, private_key "{v}"',
            "ci reader key for gcr: private_key={v}",
        ],
    )
    S(
        "docker_login_password",
        pw,
        [
            "docker login registry.scw.cloud -u nologin -p {v}",
            "harbor robot password for the build pipeline: {v}",
            "ccr.ccs.tencentyun.com login: user 100012345678, password {v}",
        ],
    )
    S(
        "consul_acl_token",
        uid,
        [
            "CONSUL_HTTP_TOKEN={v}  # bootstrap management token",
            "consul acl bootstrap -> SecretID: {v}  AccessorID: {uuid}",
            "consul-k8s acl bootstrap token secret value: {v}",
        ],
    )
    S(
        "consul_gossip_key",
        lambda: b64(32),
        [
            "consul keygen output for the gossip encryption: {v}",
            "global.gossipEncryption key in consul helm values -> {v}",
            'encrypt = "{v}"  # consul server.hcl',
        ],
    )
    S(
        "nomad_acl_token",
        uid,
        [
            "nomad acl bootstrap: Secret ID = {v}",
            "NOMAD_TOKEN={v}",
            "nomad management token for the CI deploy job: {v}",
        ],
    )
    S(
        "vault_token",
        lambda: "hvs." + s(24),
        [
            "VAULT_TOKEN={v}",
            "root token after the re-init: {v}",
            "vault login {v}",
        ],
    )
    S(
        "vault_unseal_key",
        lambda: b64(33),
        [
            "Unseal Key 1: {v}",
            "vault recovery key share #2 (mine): {v}",
            "unseal key for the dr cluster: {v}",
        ],
    )
    S(
        "etcd_aescbc_key",
        lambda: b64(32),
        [
            "EncryptionConfiguration:\n  - aescbc:\n      keys:\n        - name: key1\n          secret: {v}",
            "etcd encryption key for {cluster} (aescbc, key1): {v}",
            "secretbox key for rotating etcd encryption: {v}",
        ],
    )
    S(
        "externaldns_cloudflare_token",
        lambda: s(40, ALNUM + "_-"),
        [
            "CF_API_TOKEN={v}  # zone:dns:edit for external-dns",
            "cloudflare-api-token secret, api-token: {v}",
            "cloudflare token for the cert-manager dns01 solver: {v}",
        ],
    )
    S(
        "externaldns_hetzner_dns_token",
        lambda: s(32),
        [
            "HETZNER_TOKEN for external-dns (dns console token): {v}",
            "hetzner dns api token used by the dns01 webhook: {v}",
            "external-dns --provider=hetzner, secret value: {v}",
        ],
    )
    S(
        "externaldns_aws_secret",
        lambda: s(40, ALNUM + "+/"),
        [
            "route53 user for external-dns: AKIA{ak} / {v}".replace("{ak}", "QX7N2PLKZ4W8RT5M"),
            "aws_secret_access_key = {v}  # external-dns-route53 profile",
            "AWS_SECRET_ACCESS_KEY={v} external-dns on the DOKS cluster",
        ],
    )
    S(
        "velero_cloud_credentials",
        lambda: s(40, ALNUM + "+/"),
        [
            "velero credentials-velero file:\n[default]\naws_access_key_id = minio\naws_secret_access_key = {v}",
            "velero install --secret-file ./creds, secret key inside is {v}",
            "velero BSL on OVH s3, secret: {v}",
        ],
    )
    S(
        "restic_password",
        pw,
        [
            "RESTIC_PASSWORD={v}",
            "restic repo password for the pv backups (k8up): {v}",
            "repository-password in the velero-repo-credentials secret: {v}",
        ],
    )
    S(
        "kopia_repo_password",
        pw,
        [
            "kopia repository password for velero uploader: {v}",
            "KOPIA_PASSWORD={v}",
            "the kopia repo on hetzner storage box uses password {v}",
        ],
    )
    S(
        "grafana_admin_password",
        pw,
        [
            "grafana:\n  adminUser: admin\n  adminPassword: {v}",
            "kube-prometheus-stack grafana admin pw = {v}",
            "Grafana admin login for {cluster}: admin / {v}",
        ],
    )
    S(
        "alertmanager_slack_webhook",
        lambda: (
            "https://hooks.slack.com/services/T0"
            + s(8, string.ascii_uppercase + string.digits)
            + "/B0"
            + s(8, string.ascii_uppercase + string.digits)
            + "/"
            + s(24)
        ),
        [
            "alertmanager slack_api_url: {v}",
            "#alerts-prod webhook: {v}",
            "receivers:\n- name: slack\n  slack_configs:\n  - api_url: {v}",
        ],
    )
    S(
        "sealed_secrets_controller_key",
        lambda: base64.b64encode((pem("RSA PRIVATE KEY", 140) + "\n").encode()).decode(),
        [
            "backup of sealed-secrets-key tls.key (base64) for DR: {v}",
            "sealed-secrets controller key, kubectl get secret -l sealedsecrets.bitnami.com/sealed-secrets-key -o yaml: tls.key: {v}",
            "sealing key private half (we need it to unseal after rebuild): {v}",
        ],
    )
    S(
        "wireguard_private_key",
        lambda: b64(32),
        [
            "kilo node wg0 PrivateKey = {v}",
            "[Interface]\nPrivateKey = {v}\nAddress = 10.4.0.1/24\nListenPort = 51820",
            "wireguard private key for the hel1<->fra1 tunnel: {v}",
        ],
    )
    S(
        "node_ssh_private_key",
        openssh_key,
        [
            "root ssh key for the hetzner nodes (hcloud_ssh_key platform):\n{v}",
            "ssh key to get onto the OVH bare metal:\n{v}",
            "id_ed25519 for the linode bastion:\n{v}",
        ],
    )
    S(
        "ingress_basic_auth_password",
        pw,
        [
            "prometheus ingress basic auth: ops / {v}",
            "htpasswd -bc auth monitoring {v}  (then created the basic-auth secret)",
            "login for the longhorn UI behind basic auth: user admin pass {v}",
        ],
    )
    S(
        "github_app_private_key",
        lambda: pem("RSA PRIVATE KEY", 150),
        [
            "github app (argocd-notifications) private key:\n{v}",
            "ARC runner controller github_app_private_key:\n{v}",
            "renovate app key:\n{v}",
        ],
    )
    S(
        "argocd_webhook_secret",
        lambda: s(32),
        [
            "argocd-secret webhook.github.secret: {v}",
            "GitHub webhook secret for flux receiver: {v}",
            "webhook signing secret (gitlab -> argocd): {v}",
        ],
    )
    S(
        "rancher_api_key",
        lambda: (
            "token-"
            + s(5, "abcdefghijklmnopqrstuvwxyz0123456789")
            + ":"
            + s(54, "abcdefghijklmnopqrstuvwxyz0123456789")
        ),
        [
            "rancher API key for terraform rancher2 provider: {v}",
            "RANCHER_TOKEN={v}",
            "rancher bearer token (no expiry) {v}",
        ],
    )
    S(
        "tailscale_auth_key",
        lambda: "tskey-auth-k" + s(10) + "CNTRL-" + s(33),
        [
            "tailscale operator auth key: {v}",
            "TS_AUTHKEY={v} (reusable, ephemeral nodes)",
            "subnet router in {cluster} joins with {v}",
        ],
    )
    S(
        "mongodb_uri_password",
        pw,
        [
            "MONGODB_URI=mongodb://app:{v}@mongo-0.mongo.{ns}.svc:27017/app?replicaSet=rs0",
            "percona mongodb cluster admin: clusterAdmin / {v}",
            "mongodb+srv://reporting:{v}@cluster0.internal.example/analytics",
        ],
    )
    S(
        "postgres_dsn_password",
        pw,
        [
            "DATABASE_URL=postgres://keycloak:{v}@pg-rw.{ns}.svc:5432/keycloak?sslmode=require",
            "cnpg app user secret: username app, password {v}",
            'psql "host=10.8.0.5 user=postgres password={v} dbname=postgres"',
        ],
    )
    S(
        "oidc_client_secret",
        lambda: s(32),
        [
            "keycloak client 'kubernetes' secret for kubelogin: {v}",
            "dex staticClients argocd secret: {v}",
            "oauth2-proxy --client-secret={v} --client-id=grafana",
        ],
    )
    S(
        "minio_root_password",
        pw,
        [
            "MINIO_ROOT_USER=admin\nMINIO_ROOT_PASSWORD={v}",
            "minio tenant root creds for velero on-prem: admin / {v}",
            "mc alias set backup https://minio.internal admin {v}",
        ],
    )
    S(
        "argocd_session_jwt",
        lambda: jwt(
            {"iss": "argocd", "sub": "admin:login", "exp": 1893456000, "jti": uid()},
            alg="HS256",
            siglen=32,
        ),
        [
            "argocd.token cookie from my browser session: {v}",
            "ARGOCD_AUTH_TOKEN={v}",
            "argocd account generate-token --account ci -> {v}",
        ],
    )

    # ------------------------------------------------------------------ benign
    B(
        "azure_subscription_id",
        uid,
        [
            "Prod subscription for the AKS fleet is {v}, billing owner is finance-eu",
            "az account set --subscription {v}",
            "ARM_SUBSCRIPTION_ID={v}  (id only, the SP secret comes from Key Vault)",
        ],
    )
    B(
        "azure_tenant_id",
        uid,
        [
            "tenant id for our Entra directory: {v}",
            "azure.workload.identity/tenant-id annotation: {v}",
            "ARM_TENANT_ID={v}",
        ],
    )
    B(
        "azure_client_id",
        uid,
        [
            "workload identity client id for external-dns: azure.workload.identity/client-id: {v}",
            "appId of sp-aks-prod is {v}; secret is in kv-platform, not here",
            "kubelet managed identity clientId {v}",
        ],
    )
    B(
        "azure_resource_id",
        lambda: (
            f"/subscriptions/{uid()}/resourceGroups/rg-aks-{pick(clusters)}/providers/Microsoft.ContainerService/managedClusters/aks-{hx(6)}"
        ),
        [
            "AKS resource id: {v}",
            "role assignment scope = {v}",
            "terraform import azurerm_kubernetes_cluster.main {v}",
        ],
    )
    B(
        "gcp_project_number",
        lambda: str(r.randint(100000000000, 999999999999)),
        [
            "GKE project number {v} (project id infra-prod-eu)",
            "workload identity pool: projects/{v}/locations/global/workloadIdentityPools/github",
            "the compute default SA is {v}-compute@developer.gserviceaccount.com",
        ],
    )
    B(
        "gcp_sa_email",
        lambda: (
            f"{pick(['external-dns', 'velero', 'cnrm', 'gke-deployer'])}@infra-prod-{hx(4)}.iam.gserviceaccount.com"
        ),
        [
            "iam.gke.io/gcp-service-account: {v}",
            "grant roles/dns.admin to {v}",
            "velero runs as {v} via workload identity, no key files",
        ],
    )
    B(
        "gcp_key_id",
        lambda: hx(40),
        [
            "disabled SA key id {v} after moving to workload identity",
            "gcloud iam service-accounts keys list shows KEY_ID {v} created {date}",
            "private_key_id of the old key (id only, key file shredded): {v}",
        ],
    )
    B(
        "alibaba_resource_id",
        lambda: "c" + hx(32),
        [
            "ACK cluster id {v} in cn-hangzhou",
            "aliyun cs GET /clusters/{v}/user_config",
            "node pool np{hex8}{hex8} belongs to ACK {v}",
        ],
    )
    B(
        "tencent_cluster_id",
        lambda: "cls-" + s(8, "abcdefghijklmnopqrstuvwxyz0123456789"),
        [
            "TKE cluster {v} (guangzhou), appid 1300012345",
            "tccli tke DescribeClusters --ClusterIds '[\"{v}\"]'",
            "kubeconfig context for {v} is tke-gz-admin",
        ],
    )
    B(
        "yandex_folder_id",
        lambda: "b1g" + s(17, "abcdefghijklmnopqrstuvwxyz0123456789"),
        [
            "yandex folder id {v} (folder platform-prod)",
            "yc managed-kubernetes cluster list --folder-id {v}",
            "YC_FOLDER_ID={v}",
        ],
    )
    B(
        "do_cluster_uuid",
        uid,
        [
            "DOKS cluster id {v} in fra1",
            "doctl kubernetes cluster kubeconfig save {v}",
            "droplet tag k8s:{v} is applied to all workers",
        ],
    )
    B(
        "hetzner_ssh_fingerprint",
        lambda: ":".join(hx(2) for _ in range(16)),
        [
            "hcloud ssh-key 'platform' fingerprint {v}",
            "server created with ssh key fingerprint {v}",
            "MD5 fingerprint of the deploy key: {v}",
        ],
    )
    B(
        "linode_cluster_id",
        lambda: str(r.randint(100000, 999999)),
        [
            "LKE cluster id {v}, pool ids in the tf output",
            "linode-cli lke kubeconfig-view {v}",
            "lke{v}-{hex8} is the node name prefix",
        ],
    )
    B(
        "ovh_project_id",
        lambda: hx(32),
        [
            "OVH public cloud project (service name) {v}",
            "OVH_CLOUD_PROJECT_SERVICE={v}",
            "GET /cloud/project/{v}/kube returns the gra7 cluster",
        ],
    )
    B(
        "scaleway_project_id",
        uid,
        [
            "SCW_DEFAULT_PROJECT_ID={v}",
            "scaleway organization id {v}",
            "Kapsule cluster fr-par/{v}",
        ],
    )
    B(
        "cluster_ca_data",
        cert_b64,
        [
            "clusters:\n- cluster:\n    certificate-authority-data: {v}\n    server: https://10.20.0.10:6443",
            "cluster_ca_certificate output from terraform (public CA cert): {v}",
            "CA bundle of the hel1 apiserver, base64 PEM: {v}",
        ],
    )
    B(
        "image_digest",
        lambda: "sha256:" + sha256(),
        [
            "pinned ingress-nginx controller image to registry.k8s.io/ingress-nginx/controller@{v}",
            "image: ghcr.io/acme/api@{v}",
            "cosign verified digest {v}",
        ],
    )
    B(
        "helm_chart_digest",
        lambda: "sha256:" + sha256(),
        [
            "cert-manager chart v1.16.2 OCI digest {v}",
            "Chart.lock digest: {v}",
            "helm pull oci://registry-1.docker.io/bitnamicharts/redis printed Digest: {v}",
        ],
    )
    B(
        "acme_thumbprint",
        lambda: b64u(32),
        [
            "ACME account key thumbprint (JWK, SHA-256): {v}",
            "http-01 key authorization suffix is the thumbprint {v}",
            "stateless mode: nginx returns $1.{v}",
        ],
    )
    B(
        "public_jwks",
        lambda: b64u(256),
        [
            '{"keys":[{"kty":"RSA","use":"sig","alg":"RS256","kid":"k1","e":"AQAB","n":"{v}"}]}',
            "apiserver /openid/v1/jwks public key n = {v}",
            "service account issuer discovery doc published with modulus {v}",
        ],
    )
    B(
        "secret_key_ref",
        lambda: pick(["db-credentials", "grafana-admin", "restic-repo", "cloudflare-api-token"]),
        [
            "env:\n- name: DB_PASSWORD\n  valueFrom:\n    secretKeyRef:\n      name: {v}\n      key: password",
            "apiTokenSecretRef: {name: {v}, key: api-token}",
            "existingSecret: {v}  # chart reads password from there",
        ],
    )
    B(
        "external_secret_ref",
        lambda: pick(
            ["prod/platform/velero", "kv-platform/aks-sp-secret", "secret/data/consul/gossip"]
        ),
        [
            "ExternalSecret pulls remoteRef key {v} property password from the ClusterSecretStore",
            "dataFrom:\n- extract:\n    key: {v}",
            "ESO maps {v} -> secret restic-creds/RESTIC_PASSWORD",
        ],
    )
    B(
        "sealed_secret_blob",
        lambda: "AgB" + b64(300),
        [
            "SealedSecret encryptedData.password: {v}",
            "kubeseal output for the restic password (safe to commit): {v}",
            "encryptedData:\n  token: {v}",
        ],
    )
    B(
        "sops_encrypted",
        lambda: f"ENC[AES256_GCM,data:{b64(24)},iv:{b64(32)},tag:{b64(16)},type:str]",
        [
            "client_secret: {v}",
            "sops-encrypted tfvars value: {v}",
            "stringData.password: {v}  # age recipient in .sops.yaml",
        ],
    )
    B(
        "base64_config",
        lambda: base64.b64encode(
            pick(
                [
                    b"log_level: info\nreplicas: 3\nregion: fra1\n",
                    b"[server]\nhttp_port = 3000\ndomain = grafana.internal\n",
                    b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: coredns-custom\n",
                ]
            )
        ).decode(),
        [
            "configmap binaryData app.yaml: {v}",
            "user-data (cloud-init, base64, no secrets in it): {v}",
            "kustomize generated this from the settings file: {v}",
        ],
    )
    B(
        "commit_sha",
        lambda: hx(40),
        [
            "argocd synced platform-gitops at {v}",
            "reverted flux kustomization to {v}",
            "git checkout {v} -- clusters/prod-weu",
        ],
    )
    B(
        "node_pool_id",
        lambda: pick(["np-", "pool-", "nodepool-"]) + hx(12),
        [
            "autoscaler scaled {v} to 7 nodes",
            "DOKS node pool {v} (s-4vcpu-8gb)",
            "cordoned everything in {v} before the upgrade",
        ],
    )
    B(
        "vault_path_ref",
        lambda: (
            f"vault:secret/data/{pick(['argocd', 'velero', 'grafana'])}#{pick(['password', 'token', 'client_secret'])}"
        ),
        [
            "argocd-vault-plugin placeholder: <path:{v}>",
            "value comes from {v}",
            "helm secrets reference: {v}",
        ],
    )
    B(
        "env_placeholder",
        lambda: pick(
            [
                "${DB_PASSWORD}",
                "${{ secrets.AZURE_CLIENT_SECRET }}",
                "$(cat /run/secrets/restic)",
                "{{ .Values.auth.password }}",
            ]
        ),
        [
            "password: {v}",
            "client_secret = {v}",
            "RESTIC_PASSWORD={v}",
        ],
    )
    B(
        "redacted_value",
        lambda: pick(["********", "<redacted>", "REDACTED", "xxxxxxxxxxxxxxxx"]),
        [
            "HCLOUD_TOKEN={v} (real one in 1password)",
            "aadClientSecret: {v}",
            "vault token: hvs.{v}",
        ],
    )
    B(
        "ssh_public_key",
        lambda: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + b64(32)[:43],
        [
            "authorized key for the hetzner nodes: {v} platform@acme",
            'hcloud ssh-key create --name platform --public-key "{v}"',
            "flux deploy key (public, added to the repo): {v}",
        ],
    )
    B(
        "ssh_host_fingerprint",
        lambda: "SHA256:" + b64(32).rstrip("="),
        [
            "bastion host key fingerprint {v}",
            "ED25519 key fingerprint is {v}. Verified against console.",
            "known_hosts entry for github confirmed: {v}",
        ],
    )
    B(
        "public_cert_pem",
        cert_pem_short,
        [
            "public intermediate certificate for the mesh (fine to share):\n{v}",
            "letsencrypt-issued cert for argocd.internal:\n{v}",
            "ca.crt from the webhook secret:\n{v}",
        ],
    )
    B(
        "age_public_key",
        lambda: "age1" + s(58, "qpzry9x8gf2tvdw0s3jn54khce6mua7l"),
        [
            "sops age recipient for prod: {v}",
            ".sops.yaml creation_rules age: {v}",
            "flux decryption uses the key whose public recipient is {v}",
        ],
    )
    B(
        "pgp_fingerprint",
        lambda: s(40, "0123456789ABCDEF"),
        [
            "helm chart signing key fingerprint {v}",
            "sops pgp: {v}",
            "gpg --recv-keys {v}",
        ],
    )
    B(
        "k8s_uid",
        uid,
        [
            "metadata.uid of the stuck namespace: {v}",
            "ownerReferences uid {v} (the old ReplicaSet)",
            "pv bound to claim uid {v}",
        ],
    )
    B(
        "tfstate_lineage",
        uid,
        [
            '"version": 4, "terraform_version": "1.9.5", "serial": 412, "lineage": "{v}"',
            "state lineage mismatch: expected {v}",
            "state backup lineage {v}, serial 88",
        ],
    )
    B(
        "tf_sensitive_hidden",
        lambda: "(sensitive value)",
        [
            "plan shows client_secret = {v}",
            "~ administrator_password = {v}",
            "output kube_config = {v}",
        ],
    )
    B(
        "kubeadm_ca_cert_hash",
        lambda: "sha256:" + sha256(),
        [
            "discovery-token-ca-cert-hash {v} (public CA pin, token rotated separately)",
            "caCertHashes:\n- {v}",
            "openssl pubkey hash of the cluster CA: {v}",
        ],
    )
    B(
        "argocd_sync_revision",
        lambda: hx(40),
        [
            "app platform-addons status.sync.revision {v}",
            "last good revision: {v}",
            "flux Kustomization lastAppliedRevision main@sha1:{v}",
        ],
    )
    B(
        "consul_node_id",
        uid,
        [
            "consul node-id {v} on server-2",
            "service instance id {v} deregistered",
            "consul AccessorID {v} is the CI policy token's accessor (secret in vault)",
        ],
    )
    B(
        "vault_lease_id",
        lambda: f"database/creds/readonly/{s(24)}",
        [
            "lease {v} expired at 12:00",
            "vault lease revoke {v}",
            "lease_id: {v}",
        ],
    )
    B(
        "nomad_alloc_id",
        uid,
        [
            "nomad alloc logs {v}",
            "allocation {v} failed health checks",
            "eval id {v}",
        ],
    )
    B(
        "etcd_member_id",
        lambda: hx(16),
        [
            "etcdctl member remove {v}",
            "etcd member {v} is learner",
            "cluster_id {v} raft index 998812",
        ],
    )
    B(
        "registry_username_only",
        lambda: pick(["robot$ci-puller", "acrplatformweu", "_json_key", "100012345678"]),
        [
            "registry login user is {v}, password via pull secret",
            "docker login -u {v} --password-stdin (token from vault)",
            "username: {v}",
        ],
    )
    B(
        "token_talk",
        lambda: "",
        [
            "rotate the hcloud token every 90 days; the CCM picks it up from the secret without restart",
            "Note: consul ACL tokens are split into AccessorID (safe to log) and SecretID (never log)",
            "Don't store the vault root token anywhere, generate-root when needed and revoke",
        ],
    )
    B(
        "key_other_sense",
        lambda: pick(["topology.kubernetes.io/zone", "app.kubernetes.io/name", "cache-key"]),
        [
            "nodeAffinity matchExpressions key: {v} operator In",
            "the helm map key {v} collides with the label in the chart",
            "partition key for the audit table is {v}",
        ],
    )
    B(
        "kms_key_reference",
        lambda: f"projects/infra-prod/locations/europe-west1/keyRings/gke/cryptoKeys/etcd-{hx(4)}",
        [
            "GKE application-layer secrets encryption key: {v}",
            'database_encryption { key_name = "{v}" }',
            "KMS key {v} rotation period 90d",
        ],
    )
    B(
        "azure_keyvault_uri",
        lambda: f"https://kv-platform-{hx(4)}.vault.azure.net/secrets/aks-sp-secret/{hx(32)}",
        [
            "secret lives at {v}",
            "CSI SecretProviderClass objectName points to {v}",
            "key vault reference: {v}",
        ],
    )
    B(
        "gcp_secret_manager_name",
        lambda: (
            f"projects/{r.randint(100000000000, 999999999999)}/secrets/external-dns-token/versions/{r.randint(1, 9)}"
        ),
        [
            "ESO GCP store remoteRef key: {v}",
            "gcloud secrets versions access reads {v}",
            "stored the new token as {v}",
        ],
    )
    B(
        "terraform_lock_hash",
        lambda: "h1:" + b64(32),
        [
            'provider hcloud 1.48.0 hashes = ["{v}"]',
            ".terraform.lock.hcl for azurerm: {v}",
            "checksum mismatch on linode provider, expected {v}",
        ],
    )
    B(
        "cosign_public_key",
        lambda: pem("PUBLIC KEY", 91),
        [
            "cosign.pub for our images:\n{v}",
            "kyverno verifyImages publicKeys:\n{v}",
            "public key to verify flux OCI artifacts:\n{v}",
        ],
    )
    B(
        "webhook_ca_bundle",
        cert_b64,
        [
            "caBundle: {v}",
            "ValidatingWebhookConfiguration clientConfig.caBundle {v}",
            "cert-manager cainjector populated caBundle {v}",
        ],
    )
    B(
        "azure_request_id",
        uid,
        [
            "AKS upgrade failed, x-ms-request-id: {v}",
            "Correlation ID {v} for the support case",
            "ARM error, tracking id {v}",
        ],
    )
    B(
        "acme_account_url",
        lambda: (
            f"https://acme-v02.api.letsencrypt.org/acme/acct/{r.randint(100000000, 2000000000)}"
        ),
        [
            "ClusterIssuer status.acme.uri: {v}",
            "registered ACME account {v}",
            "account url for rate limit override: {v}",
        ],
    )
    B(
        "spiffe_id",
        lambda: (
            f"spiffe://cluster.local/ns/{pick(['payments', 'istio-system'])}/sa/{pick(['api', 'default'])}"
        ),
        [
            "mTLS peer {v}",
            'AuthorizationPolicy principals: ["{v}"]',
            "istio workload certificate SAN {v}",
        ],
    )
    B(
        "docs_example_bootstrap",
        lambda: "abcdef.0123456789abcdef",
        [
            "the kubeadm docs example token {v} -- never use, generate with kubeadm token create",
            "placeholder in the runbook: --token {v}",
            "kubeadm config sample has token: {v} (example)",
        ],
    )
    B(
        "revoked_token_noted",
        lambda: "dop_v1_" + "0" * 64,
        [
            "old DO token format for reference (zeroed, revoked): {v}",
            "test fixture token {v} is all zeros and was never valid",
            "example DIGITALOCEAN_ACCESS_TOKEN={v}",
        ],
    )
    B(
        "bcrypt_admin_hash",
        lambda: "$2a$10$" + s(53, ALNUM + "./"),
        [
            "argocd-secret admin.password (bcrypt): {v}",
            "htpasswd line monitoring:{v}",
            "bcrypt hash stored for the gitea admin: {v}",
        ],
    )
    B(
        "restic_snapshot_id",
        lambda: hx(8),
        [
            "restic restore {v} --target /restore",
            "snapshot {v} of /var/lib/postgres taken {date}",
            "velero podvolumebackup snapshotID {v}",
        ],
    )
    B(
        "helm_release_secret_name",
        lambda: f"sh.helm.release.v1.{pick(['grafana', 'vault', 'argocd'])}.v{r.randint(2, 40)}",
        [
            "helm stores release state in secret {v}",
            "deleted stale secret {v}",
            "kubectl get secret {v} -o yaml is huge",
        ],
    )
    B(
        "ansible_vault_blob",
        lambda: "$ANSIBLE_VAULT;1.1;AES256\n" + hx(64) + "\n" + hx(64),
        [
            "vault-encrypted hcloud token in group_vars:\n{v}",
            "k3s_token: !vault |\n  {v}",
            "encrypted var:\n{v}",
        ],
    )
    B(
        "oidc_issuer_client_id",
        lambda: "kubernetes-" + hx(6),
        [
            "--oidc-issuer-url=https://sso.internal/realms/platform --oidc-client-id={v}",
            "public client {v} (PKCE, no secret)",
            "kubelogin client id {v}",
        ],
    )
    B(
        "managed_identity_object_id",
        uid,
        [
            "principalId of the kubelet identity {v}",
            "objectId {v} granted AcrPull",
            "az role assignment create --assignee-object-id {v}",
        ],
    )
    B(
        "git_lfs_oid",
        lambda: "sha256:" + sha256(),
        [
            "version https://git-lfs.github.com/spec/v1\noid {v}\nsize 48213",
            "lfs pointer oid {v} for the terraform plugin cache",
            "oid {v}",
        ],
    )
    B(
        "trace_id",
        lambda: hx(32),
        [
            "tempo trace {v} shows the 5s apiserver call",
            "traceparent 00-{v}-{hex8}{hex8}-01",
            "request trace id {v}",
        ],
    )

    seen = set()
    for row in rows:
        assert row["value"] in row["text"], row
        assert row["text"] not in seen, row["text"]
        seen.add(row["text"])
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

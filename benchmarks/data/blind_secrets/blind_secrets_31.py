"""Blind corpus 31: a developer's own laptop and dotfiles, as an agent sees them.

Brief: a developer's own machine and dotfiles as an agent sees them while helping
set up a laptop: shell history lines, ~/.netrc, ~/.npmrc and ~/.yarnrc.yml auth
tokens, ~/.pypirc, ~/.docker/config.json auths, ~/.git-credentials,
~/.m2/settings.xml, ~/.gradle/gradle.properties, ~/.aws/credentials profiles,
~/.kube/config user tokens and client keys, ~/.ssh keys, gpg exports,
password-manager CLI output (op, bw, pass, KeePassXC), browser password CSV
exports, macOS keychain dumps, Windows credential manager output, VPN profiles
(WireGuard private keys, OpenVPN auth files), rclone configs, Syncthing API keys,
tmux/IDE settings with tokens. Look-alikes: public SSH keys, known_hosts lines,
fingerprints, GPG key ids, WireGuard public keys, commented placeholders, paths
to credential files, keychain item names, hashed known_hosts, history lines that
only reference $VARS, download checksums, profile names.

Written blind on 2026-12-07: the author did not read the detector, its tests or
any earlier corpus.

Run: python benchmarks/data/blind_secrets/blind_secrets_31.py [out.jsonl]
(writes JSONL rows {label, kind, text, value}; stdout without an argument).

Every random value comes from random.Random(SEED) inside corpus().

Secret kinds (73):
  age_secret_key, aws_credentials_secret_key, aws_session_token, azure_storage_key,
  bitwarden_api_client_secret, bitwarden_get_password, bitwarden_session,
  browser_password_csv, browser_session_cookie, cargo_registry_token,
  crypto_seed_phrase, digitalocean_token, django_secret_key, docker_config_auth,
  docker_hub_pat, ec_private_key, git_credentials_password, github_fine_grained_pat,
  github_oauth_hosts_yml, github_pat_classic, gitlab_pat, google_access_token,
  google_oauth_client_secret, gpg_passphrase, gpg_private_key_export,
  gradle_properties_password, gradle_publish_key, huggingface_token, keepassxc_cli_show,
  kubeconfig_client_key, kubeconfig_user_token, macos_keychain_password,
  maven_settings_password, maven_settings_token, mycnf_password, netrc_heroku_key,
  netrc_password, npmrc_auth_token, npmrc_legacy_auth, nuget_api_key,
  onepassword_op_read_output, onepassword_service_account, openai_api_key,
  openvpn_auth_user_pass, openvpn_static_key, pass_show_output, pgpass_line,
  putty_ppk_private_lines, pypirc_password, pypirc_token, rclone_oauth_token,
  rclone_obscured_pass, rubygems_api_key, shell_history_curl_bearer,
  shell_history_mysql_password, slack_bot_token, slack_user_token,
  ssh_private_key_openssh, ssh_private_key_rsa, stripe_secret_key,
  supabase_service_role, syncthing_api_key, syncthing_gui_password, tailscale_auth_key,
  terraform_cloud_token, tmux_env_token, totp_seed, vault_token, vscode_settings_token,
  wifi_psk, windows_credential_password, wireguard_private_key, yarnrc_npm_auth_token

Benign kinds (71):
  age_public_key, aws_caller_identity, aws_config_profiles, aws_configure_list_masked,
  aws_docs_example_key, aws_role_arn, bitwarden_status, browser_csv_header_masked,
  configmap_base64_plain, cosign_public_key, credential_file_paths, docker_container_id,
  docker_creds_store, docker_image_digest, docker_login_output, download_checksum,
  gh_auth_status_masked, git_commit_sha, git_config_credential_helper, git_lfs_oid,
  google_oauth_client_id, gpg_fingerprint, gpg_key_id, gpg_public_key_block,
  gradle_properties_nonsecret, history_op_run, history_var_only,
  ide_token_color_settings, k8s_secret_key_ref, keepassxc_protected,
  keychain_item_names, known_hosts_hashed, known_hosts_plain, kubeconfig_ca_data,
  kubeconfig_exec_plugin, kubectl_config_view_redacted, llm_token_talk,
  macos_defaults_key, maven_settings_env_ref, minisign_public_key,
  netrc_commented_placeholder, npm_integrity_hash, npmrc_env_reference,
  onepassword_item_list, onepassword_secret_reference, openvpn_ca_cert,
  openvpn_profile_no_secret, pass_ls_tree, password_policy_talk,
  placeholder_token_example, pypirc_keyring, rclone_config_no_secret, request_uuid,
  revoked_token_stated, ssh_config_identityfile, ssh_fingerprint_md5,
  ssh_fingerprint_sha256, ssh_public_key_ed25519, ssh_public_key_rsa,
  stripe_publishable_key, syncthing_apikey_placeholder, syncthing_device_id,
  tailscale_node_key, tmux_keybindings, token_redacted_last4, wg_show_hidden_private,
  wifi_ssid_only, windows_cmdkey_list, wireguard_privatekey_from_file,
  wireguard_public_key, yarnrc_env_reference
"""

# ruff: noqa: E501

from __future__ import annotations

import base64
import json
import random
import string
import sys

SEED = 3131

UP = string.ascii_uppercase
LO = string.ascii_lowercase
DG = string.digits
AN = UP + LO + DG
HX = "0123456789abcdef"
B64 = AN + "+/"
B64U = AN + "-_"
B32 = UP + "234567"

USERS = ["mira", "tkowalski", "jdoe", "sasha.p", "r.okafor", "lena", "dev", "ana-v"]
HOSTS = ["nas.home.arpa", "build01.corp.example", "git.internal.lan", "pi4.local"]
PROJECTS = ["atlas", "kestrel-api", "ledger", "harbor-web", "pantry", "tally-cli"]
WORDS = [
    "amber",
    "canyon",
    "falcon",
    "velvet",
    "orbit",
    "maple",
    "tundra",
    "cobalt",
    "willow",
    "ember",
    "quartz",
    "lagoon",
    "saffron",
    "nimbus",
    "juniper",
    "pebble",
]
BIP39 = [
    "abandon",
    "ability",
    "absorb",
    "acoustic",
    "actress",
    "adapt",
    "airport",
    "alley",
    "anchor",
    "ankle",
    "arena",
    "artwork",
    "badge",
    "bamboo",
    "banner",
    "basket",
    "blossom",
    "bracket",
    "cabin",
    "canvas",
    "chalk",
    "cherry",
    "cliff",
    "copper",
    "cradle",
    "dolphin",
    "eagle",
    "elbow",
    "fabric",
    "garlic",
    "harbor",
    "jungle",
    "kettle",
    "lemon",
    "mango",
    "noodle",
    "orchard",
    "pepper",
    "rabbit",
]


def _s(r: random.Random, n: int, alpha: str = AN) -> str:
    return "".join(r.choice(alpha) for _ in range(n))


def _pw(r: random.Random) -> str:
    w = r.choice(WORDS).capitalize() + r.choice(["-", "_", ".", "!"]) + r.choice(WORDS)
    return w + str(r.randint(10, 9999)) + r.choice(["!", "#", "%", "&", "*", "$"])


def _b64bytes(r: random.Random, n: int) -> str:
    return base64.b64encode(bytes(r.randrange(256) for _ in range(n))).decode()


def _uuid(r: random.Random) -> str:
    h = _s(r, 32, HX)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"


def _jwt(r: random.Random, payload: dict) -> str:
    def enc(d: dict) -> str:
        return base64.urlsafe_b64encode(json.dumps(d).encode()).decode().rstrip("=")

    head = enc({"alg": "RS256", "kid": _s(r, 12, HX), "typ": "JWT"})
    return f"{head}.{enc(payload)}.{_s(r, 86, B64U)}"


def _pem_body(r: random.Random, lines: int, width: int = 64) -> str:
    return "\n".join(_s(r, width, B64) for _ in range(lines))


def _ssh_priv(r: random.Random) -> str:
    body = "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
    body += _pem_body(r, 4, 70)
    return f"-----BEGIN OPENSSH PRIVATE KEY-----\n{body}\n-----END OPENSSH PRIVATE KEY-----"


def _rsa_priv(r: random.Random) -> str:
    body = "MIIEowIBAAKCAQEA" + _s(r, 48, B64) + "\n" + _pem_body(r, 5)
    return f"-----BEGIN RSA PRIVATE KEY-----\n{body}\n-----END RSA PRIVATE KEY-----"


def _ec_priv(r: random.Random) -> str:
    body = "MHcCAQEEI" + _s(r, 55, B64) + "\n" + _pem_body(r, 2) + "\n" + _s(r, 8, B64) + "=="
    return f"-----BEGIN EC PRIVATE KEY-----\n{body}\n-----END EC PRIVATE KEY-----"


def _pgp_priv(r: random.Random) -> str:
    body = "\nlQdGBGV" + _s(r, 57, B64) + "\n" + _pem_body(r, 4) + "\n=" + _s(r, 4, B64)
    return f"-----BEGIN PGP PRIVATE KEY BLOCK-----\n{body}\n-----END PGP PRIVATE KEY BLOCK-----"


def _kube_client_key(r: random.Random) -> str:
    # base64 of "-----BEGIN RSA PRIVATE KEY-----\n..." starts with LS0tLS1CRUdJTiBSU0Eg
    return "LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpNSUlFb3dJQkFBS0NBUUVB" + _s(r, 120, B64)


def _age_secret(r: random.Random) -> str:
    return "AGE-SECRET-KEY-1" + _s(r, 58, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L")


def _seed12(r: random.Random) -> str:
    return " ".join(r.choice(BIP39) for _ in range(12))


# --- secret generators -----------------------------------------------------
V = {
    "aws_akid": lambda r: "AKIA" + _s(r, 16, UP + "234567"),
    "aws_sak": lambda r: _s(r, 40, B64),
    "aws_sts": lambda r: "IQoJb3JpZ2luX2VjE" + _s(r, 180, B64),
    "ghp": lambda r: "ghp_" + _s(r, 36),
    "gho": lambda r: "gho_" + _s(r, 36),
    "ghpat": lambda r: "github_pat_11" + _s(r, 20, UP + DG) + "_" + _s(r, 59),
    "glpat": lambda r: "glpat-" + _s(r, 20, B64U),
    "npm": lambda r: "npm_" + _s(r, 36),
    "pypi": lambda r: "pypi-AgEIcHlwaS5vcmcCJD" + _s(r, 120, B64U),
    "dckr": lambda r: "dckr_pat_" + _s(r, 27, B64U),
    "pw": _pw,
    "hex32": lambda r: _s(r, 32, HX),
    "hex40": lambda r: _s(r, 40, HX),
    "uuid": _uuid,
    "slack_b": lambda r: "xoxb-" + _s(r, 12, DG) + "-" + _s(r, 13, DG) + "-" + _s(r, 24),
    "slack_p": lambda r: (
        "xoxp-" + _s(r, 12, DG) + "-" + _s(r, 12, DG) + "-" + _s(r, 13, DG) + "-" + _s(r, 32, HX)
    ),
    "ops": lambda r: "ops_eyJzaWduSW5BZGRyZXNzIjoibXkuMXBhc3N3b3JkLmNvbSIs" + _s(r, 160, B64U),
    "bwsession": lambda r: _s(r, 86, B64) + "==",
    "bwclient": lambda r: _s(r, 30),
    "wgpriv": lambda r: _b64bytes(r, 32),
    "hvs": lambda r: "hvs." + _s(r, 24),
    "do": lambda r: "dop_v1_" + _s(r, 64, HX),
    "tskey": lambda r: "tskey-auth-k" + _s(r, 10) + "CNTRL-" + _s(r, 32),
    "anthropic": lambda r: "sk-ant-api03-" + _s(r, 93, B64U) + "AA",
    "openai": lambda r: "sk-proj-" + _s(r, 48, B64U) + "T3BlbkFJ" + _s(r, 48, B64U),
    "stripe": lambda r: "sk_live_51" + _s(r, 97),
    "hf": lambda r: "hf_" + _s(r, 34, UP + LO),
    "sendgrid": lambda r: "SG." + _s(r, 22, B64U) + "." + _s(r, 43, B64U),
    "telegram": lambda r: str(r.randint(1000000000, 7999999999)) + ":AA" + _s(r, 33, B64U),
    "tfc": lambda r: _s(r, 14) + ".atlasv1." + _s(r, 67),
    "nuget": lambda r: "oy2" + _s(r, 43, LO + DG),
    "cargo": lambda r: "cio" + _s(r, 32),
    "rubygems": lambda r: "rubygems_" + _s(r, 48, HX),
    "shpat": lambda r: "shpat_" + _s(r, 32, HX),
    "postman": lambda r: "PMAK-" + _s(r, 24, HX) + "-" + _s(r, 34, HX),
    "atlassian": lambda r: "ATATT3xFfGF0" + _s(r, 180, B64U) + "=" + _s(r, 8, UP + DG),
    "linear": lambda r: "lin_api_" + _s(r, 40),
    "jfrog": lambda r: "AKCp8" + _s(r, 68),
    "okta": lambda r: "00" + _s(r, 40, B64U),
    "sentry": lambda r: "sntryu_" + _s(r, 64, HX),
    "cf": lambda r: _s(r, 40, B64U),
    "vercel": lambda r: _s(r, 24),
    "syncthing": lambda r: _s(r, 32, LO + DG + UP),
    "django": lambda r: "django-insecure-" + _s(r, 50, LO + DG + "!@#%^&*(-_=+)"),
    "rclone_obs": lambda r: _s(r, 48, B64U),
    "gtoken": lambda r: "ya29.a0" + _s(r, 150, B64U),
    "grefresh": lambda r: "1//0" + _s(r, 99, B64U),
    "gcs_secret": lambda r: "GOCSPX-" + _s(r, 28, B64U),
    "azure_key": lambda r: _s(r, 86, B64) + "==",
    "kube_jwt": lambda r: _jwt(
        r, {"iss": "kubernetes/serviceaccount", "sub": "system:serviceaccount:ci:deployer"}
    ),
    "kube_key": _kube_client_key,
    "sshpriv": _ssh_priv,
    "rsapriv": _rsa_priv,
    "ecpriv": _ec_priv,
    "pgppriv": _pgp_priv,
    "age": _age_secret,
    "seed": _seed12,
    "totp": lambda r: _s(r, 32, B32),
    "sessionid": lambda r: _s(r, 32, LO + DG),
    "wifi_psk": lambda r: _s(r, 64, HX),
    "ovpn_static": lambda r: "\n".join(_s(r, 32, HX) for _ in range(8)),
    "docker_auth": None,  # filled in corpus(): base64(user:pw)
    "ppk": lambda r: _s(r, 64, B64) + "\n" + _s(r, 64, B64) + "\n" + _s(r, 20, B64) + "=",
    "supabase": lambda r: _jwt(
        r, {"iss": "supabase", "ref": _s(r, 20, LO), "role": "service_role"}
    ),
    "discord": lambda r: "MT" + _s(r, 24) + "." + _s(r, 6, B64U) + "." + _s(r, 38, B64U),
    "mailgun": lambda r: "key-" + _s(r, 32, HX),
    "twilio": lambda r: _s(r, 32, HX),
    "jenkins": lambda r: "11" + _s(r, 32, HX),
    "netlify": lambda r: "nfp_" + _s(r, 36),
    "doppler": lambda r: "dp.st.prd." + _s(r, 43),
    "rails": lambda r: _s(r, 32, HX),
}

# (kind, generator, templates). @V@ value, @U@ user, @H@ host, @P@ project, @E@ email.
SECRET_TABLE = [
    (
        "aws_credentials_secret_key",
        "aws_sak",
        [
            "~/.aws/credentials on the new MacBook:\n[default]\naws_access_key_id = AKIA@A@\naws_secret_access_key = @V@\nregion = eu-west-1",
            "copied the [@P@-prod] profile over from the old laptop: aws_secret_access_key=@V@ (key id AKIA@A@)",
            "AWS creds for @U@ sandbox -> secret access key @V@ , region us-east-2, don't rotate until friday",
        ],
    ),
    (
        "aws_session_token",
        "aws_sts",
        [
            "[sso-temp]\naws_access_key_id = ASIA@A@\naws_secret_access_key = @X40@\naws_session_token = @V@",
            "history: export AWS_SESSION_TOKEN=@V@",
            'pasted from the SSO portal (valid 12h): AWS_SESSION_TOKEN="@V@"',
        ],
    ),
    (
        "github_pat_classic",
        "ghp",
        [
            "~/.git-credentials\nhttps://@U@:@V@@github.com",
            "zsh_history: : 1733541021:0;export GITHUB_TOKEN=@V@",
            "gh CLI wasn't picking up keyring, so put the PAT in ~/.config/gh/hosts.yml -> oauth_token: @V@",
        ],
    ),
    (
        "github_oauth_hosts_yml",
        "gho",
        [
            "~/.config/gh/hosts.yml\ngithub.com:\n    user: @U@\n    oauth_token: @V@\n    git_protocol: ssh",
            "gh auth token printed @V@ , used it for the brew tap",
            'composer auth.json: {"github-oauth": {"github.com": "@V@"}}',
        ],
    ),
    (
        "github_fine_grained_pat",
        "ghpat",
        [
            "fine-grained PAT for @P@ (contents:rw) = @V@",
            ".envrc in ~/src/@P@: export GH_TOKEN='@V@'",
            "git remote set-url origin https://x-access-token:@V@@github.com/@U@/@P@.git",
        ],
    ),
    (
        "gitlab_pat",
        "glpat",
        [
            "~/.git-credentials line for work gitlab:\nhttps://oauth2:@V@@gitlab.corp.example",
            "glab config: token: @V@ (host gitlab.com, api_protocol https)",
            '~/.bash_history\ncurl --header "PRIVATE-TOKEN: @V@" https://gitlab.com/api/v4/user',
        ],
    ),
    (
        "npmrc_auth_token",
        "npm",
        [
            "~/.npmrc\n//registry.npmjs.org/:_authToken=@V@\nsave-exact=true",
            "npm publish token for @P@ (automation type): @V@",
            "set it via `npm config set //registry.npmjs.org/:_authToken @V@` on the laptop",
        ],
    ),
    (
        "yarnrc_npm_auth_token",
        "npm",
        [
            '~/.yarnrc.yml\nnpmRegistryServer: "https://registry.npmjs.org"\nnpmAuthToken: "@V@"',
            "yarn berry scope config:\nnpmScopes:\n  @P@:\n    npmAlwaysAuth: true\n    npmAuthToken: @V@",
            "yarn config set npmAuthToken @V@ -H   # from history",
        ],
    ),
    (
        "npmrc_legacy_auth",
        "docker_auth",
        [
            "~/.npmrc for the nexus mirror\nregistry=https://nexus.corp.example/repository/npm/\n_auth=@V@\nalways-auth=true",
            '//npm.pkg.corp.example/:_auth = "@V@"',
            "old-style npm basic auth in .npmrc: _auth=@V@ (base64 of user:pass)",
        ],
    ),
    (
        "pypirc_token",
        "pypi",
        [
            "~/.pypirc\n[pypi]\nusername = __token__\npassword = @V@",
            "twine upload -u __token__ -p @V@ dist/*",
            "PyPI project token for @P@, scoped to that project only: @V@",
        ],
    ),
    (
        "pypirc_password",
        "pw",
        [
            "[testpypi-internal]\nrepository = https://pypi.corp.example/simple/\nusername = @U@\npassword = @V@",
            "devpi login @U@ --password '@V@'",
            "uv index creds: UV_INDEX_CORP_PASSWORD=@V@ (user @U@)",
        ],
    ),
    (
        "docker_config_auth",
        "docker_auth",
        [
            '~/.docker/config.json\n{\n  "auths": {\n    "ghcr.io": {"auth": "@V@"}\n  }\n}',
            'docker config.json has "https://index.docker.io/v1/": { "auth": "@V@" } since credsStore was removed',
            "registry.corp.example auth blob (base64 user:pass) = @V@",
        ],
    ),
    (
        "docker_hub_pat",
        "dckr",
        [
            "docker login -u @U@ -p @V@   (shell history, oops)",
            "Docker Hub access token for CI pulls: @V@",
            "echo @V@ | docker login --username @U@ --password-stdin",
        ],
    ),
    (
        "netrc_password",
        "pw",
        [
            "~/.netrc\nmachine @H@\n  login @U@\n  password @V@",
            "machine api.@H@ login @U@ password @V@",
            "netrc entry for the NAS webdav: machine @H@ login admin password @V@",
        ],
    ),
    (
        "netrc_heroku_key",
        "uuid",
        [
            "~/.netrc (heroku)\nmachine api.heroku.com\n  login @E@\n  password @V@",
            "machine git.heroku.com login @E@ password @V@",
            "heroku auth:token -> @V@",
        ],
    ),
    (
        "git_credentials_password",
        "pw",
        [
            "~/.git-credentials\nhttps://@U@:@V@@@H@",
            "bitbucket app password for @U@: @V@ (repo read/write)",
            "git clone https://@U@:@V@@git.internal.lan/tools/dotfiles.git",
        ],
    ),
    (
        "maven_settings_password",
        "pw",
        [
            "~/.m2/settings.xml\n<server>\n  <id>corp-releases</id>\n  <username>@U@</username>\n  <password>@V@</password>\n</server>",
            "<server><id>ossrh</id><username>@U@</username><password>@V@</password></server>",
            "maven deploy user @U@ / @V@ for nexus.corp.example",
        ],
    ),
    (
        "maven_settings_token",
        "jfrog",
        [
            "settings.xml artifactory server entry: <password>@V@</password> (API key, not my password)",
            "<server>\n  <id>artifactory</id>\n  <username>@E@</username>\n  <password>@V@</password>\n</server>",
            "JFrog API key for @U@: @V@",
        ],
    ),
    (
        "gradle_properties_password",
        "pw",
        [
            "~/.gradle/gradle.properties\nossrhUsername=@U@\nossrhPassword=@V@",
            "signing.keyId=@K8@\nsigning.password=@V@\nsigning.secretKeyRingFile=/Users/@U@/.gnupg/secring.gpg",
            "gradle.properties: artifactoryPassword=@V@",
        ],
    ),
    (
        "gradle_publish_key",
        "hex32",
        [
            "gradle.publish.key=@K8@\ngradle.publish.secret=@V@",
            "plugin portal secret (gradle.publish.secret) is @V@",
            "ORG_GRADLE_PROJECT_mavenCentralPassword=@V@",
        ],
    ),
    (
        "kubeconfig_user_token",
        "kube_jwt",
        [
            "~/.kube/config\nusers:\n- name: ci-deployer\n  user:\n    token: @V@",
            "kubectl --token=@V@ get pods -n @P@",
            "service account token for the staging cluster: @V@",
        ],
    ),
    (
        "kubeconfig_client_key",
        "kube_key",
        [
            "users:\n- name: admin@@P@\n  user:\n    client-certificate-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t\n    client-key-data: @V@",
            "kind cluster admin key (client-key-data): @V@",
            "k3s.yaml on the pi: client-key-data: @V@",
        ],
    ),
    (
        "ssh_private_key_openssh",
        "sshpriv",
        [
            "~/.ssh/id_ed25519 (new laptop):\n@V@",
            "deploy key for @P@, private half:\n@V@",
            "cat ~/.ssh/id_work\n@V@",
        ],
    ),
    (
        "ssh_private_key_rsa",
        "rsapriv",
        [
            "old ~/.ssh/id_rsa from the 2019 machine:\n@V@",
            "bastion key (PEM):\n@V@",
            "@V@\n(that's the key the jenkins agent uses)",
        ],
    ),
    (
        "ec_private_key",
        "ecpriv",
        [
            "APNs/push signing key copied into ~/keys/push.pem:\n@V@",
            "mkcert local CA key?\n@V@",
            "openssl ecparam output saved for @P@:\n@V@",
        ],
    ),
    (
        "putty_ppk_private_lines",
        "ppk",
        [
            "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: @U@@win\nPrivate-Lines: 3\n@V@",
            "winscp.ppk private part (unencrypted):\nPrivate-Lines: 3\n@V@",
            "ppk file contents from the windows box, Private-Lines: 3\n@V@",
        ],
    ),
    (
        "gpg_private_key_export",
        "pgppriv",
        [
            "gpg --export-secret-keys --armor @E@\n@V@",
            "backup of my signing subkey:\n@V@",
            "@V@\npassphrase is in 1password",
        ],
    ),
    (
        "gpg_passphrase",
        "pw",
        [
            "gpg key passphrase (for @E@) is @V@",
            "echo '@V@' | gpg --batch --pinentry-mode loopback --passphrase-fd 0 --sign",
            "GPG_PASSPHRASE=@V@ in ~/.zshenv so the release script can sign",
        ],
    ),
    (
        "onepassword_service_account",
        "ops",
        [
            "export OP_SERVICE_ACCOUNT_TOKEN=@V@",
            "1Password service account for CI (vault: @P@-ci): @V@",
            "op whoami with OP_SERVICE_ACCOUNT_TOKEN='@V@' works",
        ],
    ),
    (
        "onepassword_op_read_output",
        "pw",
        [
            "$ op read op://Private/@H@/password\n@V@",
            '$ op item get "@H@" --fields password --reveal\n@V@',
            'op item get nas --format json | jq .fields[] ->\n  {"id": "password", "type": "CONCEALED", "value": "@V@"}',
        ],
    ),
    (
        "bitwarden_session",
        "bwsession",
        [
            'export BW_SESSION="@V@"',
            "bw unlock --raw printed @V@",
            "bw session key for today: @V@",
        ],
    ),
    (
        "bitwarden_get_password",
        "pw",
        [
            "$ bw get password @H@\n@V@",
            'bw get item github | jq .login -> {"username": "@U@", "password": "@V@", "totp": null}',
            "bitwarden says the router admin pw is @V@",
        ],
    ),
    (
        "bitwarden_api_client_secret",
        "bwclient",
        [
            "BW_CLIENTID=user.@UUID@\nBW_CLIENTSECRET=@V@",
            "bitwarden personal API key: client_secret @V@",
            "bw login --apikey  (client secret @V@)",
        ],
    ),
    (
        "pass_show_output",
        "pw",
        [
            "$ pass show email/fastmail\n@V@\nuser: @E@",
            "pass show work/vpn -> @V@",
            "$ pass -c infra/@H@ copied; first line was @V@",
        ],
    ),
    (
        "keepassxc_cli_show",
        "pw",
        [
            "$ keepassxc-cli show -s ~/Vault.kdbx Infra/@H@\nTitle: @H@\nUserName: root\nPassword: @V@\nURL: ssh://@H@",
            "keepassxc-cli show --show-protected db.kdbx wifi -> Password: @V@",
            "KeePassXC entry 'postgres prod': user app_rw, password @V@",
        ],
    ),
    (
        "browser_password_csv",
        "pw",
        [
            "Chrome Passwords.csv\nname,url,username,password,note\n@H@,https://@H@/login,@U@,@V@,",
            'firefox logins export row: "https://accounts.example.org","@E@","@V@",""',
            "url,username,password\nhttps://id.atlassian.com,@E@,@V@",
        ],
    ),
    (
        "macos_keychain_password",
        "pw",
        [
            '$ security find-generic-password -s "@H@" -w\n@V@',
            "security find-internet-password -a @U@ -s github.com -w -> @V@",
            'keychain dump (-d) excerpt:\nclass: "genp"\n    "svce"<blob>="@H@"\ndata:\n"@V@"',
        ],
    ),
    (
        "windows_credential_password",
        "pw",
        [
            "PS> (Get-StoredCredential -Target 'git:https://@H@').GetNetworkCredential().Password\n@V@",
            "cmdkey /add:@H@ /user:CORP\\@U@ /pass:@V@",
            "Credential Manager (via CredentialManager module): Target=TERMSRV/@H@ UserName=CORP\\@U@ Password=@V@",
        ],
    ),
    (
        "wireguard_private_key",
        "wgpriv",
        [
            "/etc/wireguard/wg0.conf\n[Interface]\nPrivateKey = @V@\nAddress = 10.8.0.3/32\nDNS = 10.8.0.1",
            "wg genkey output for the laptop peer: @V@",
            "mullvad config for @U@: PrivateKey=@V@",
        ],
    ),
    (
        "openvpn_auth_user_pass",
        "pw",
        [
            "~/vpn/auth.txt (auth-user-pass)\n@U@\n@V@",
            "openvpn creds file: line1 @U@, line2 @V@",
            "corp VPN login @U@ / @V@ (tunnelblick keeps asking)",
        ],
    ),
    (
        "openvpn_static_key",
        "ovpn_static",
        [
            "<tls-crypt>\n-----BEGIN OpenVPN Static key V1-----\n@V@\n-----END OpenVPN Static key V1-----\n</tls-crypt>",
            "ta.key contents:\n-----BEGIN OpenVPN Static key V1-----\n@V@\n-----END OpenVPN Static key V1-----",
            "tls-auth key for home.ovpn\n@V@",
        ],
    ),
    (
        "rclone_obscured_pass",
        "rclone_obs",
        [
            "~/.config/rclone/rclone.conf\n[nas]\ntype = sftp\nhost = @H@\nuser = @U@\npass = @V@",
            "[crypt-backup]\ntype = crypt\nremote = b2:backups\npassword = @V@",
            "rclone obscure output for the webdav remote: @V@ (rclone reveal gives the real pw back)",
        ],
    ),
    (
        "rclone_oauth_token",
        "grefresh",
        [
            '[gdrive]\ntype = drive\nscope = drive\ntoken = {"access_token":"ya29.a0Ad","token_type":"Bearer","refresh_token":"@V@","expiry":"2026-12-07T03:11:00Z"}',
            "rclone gdrive refresh_token = @V@",
            'refresh token from rclone authorize "drive": @V@',
        ],
    ),
    (
        "google_access_token",
        "gtoken",
        [
            "gcloud auth print-access-token -> @V@",
            'curl -H "Authorization: Bearer @V@" https://www.googleapis.com/drive/v3/files',
            "access_token: @V@ (expires in 3599s)",
        ],
    ),
    (
        "google_oauth_client_secret",
        "gcs_secret",
        [
            "rclone drive client: client_id = 1049@NUM@-abc.apps.googleusercontent.com\nclient_secret = @V@",
            "oauth desktop app secret for @P@: @V@",
            '"installed": {"client_secret": "@V@", "redirect_uris": ["http://localhost"]}',
        ],
    ),
    (
        "syncthing_api_key",
        "syncthing",
        [
            '~/.config/syncthing/config.xml\n<gui enabled="true" tls="false">\n    <address>127.0.0.1:8384</address>\n    <apikey>@V@</apikey>\n</gui>',
            'curl -H "X-API-Key: @V@" http://127.0.0.1:8384/rest/system/status',
            "syncthing REST key (laptop): @V@",
        ],
    ),
    (
        "syncthing_gui_password",
        "pw",
        [
            "<gui><user>@U@</user><password>@V@</password></gui>   (plaintext before syncthing hashed it)",
            "syncthing web ui login @U@ / @V@",
            "syncthing --gui-password='@V@'",
        ],
    ),
    (
        "vscode_settings_token",
        "hex40",
        [
            'settings.json\n"sonarlint.connectedMode.connections.sonarqube": [{"serverUrl": "https://sonar.corp.example", "token": "@V@"}]',
            '"rest-client.environmentVariables": {"prod": {"token": "@V@"}}',
            'JetBrains HTTP client http-client.private.env.json: {"dev": {"apiToken": "@V@"}}',
        ],
    ),
    (
        "tmux_env_token",
        "anthropic",
        [
            "~/.tmux.conf\nset-environment -g ANTHROPIC_API_KEY @V@",
            "tmux setenv ANTHROPIC_API_KEY @V@",
            "agent pane startup: ANTHROPIC_API_KEY=@V@ claude",
        ],
    ),
    (
        "openai_api_key",
        "openai",
        [
            '~/.zshrc\nexport OPENAI_API_KEY="@V@"',
            'Continue config.json: {"provider": "openai", "apiKey": "@V@"}',
            "openai key for the @P@ experiments: @V@",
        ],
    ),
    (
        "shell_history_mysql_password",
        "pw",
        [
            ": 1733540011:0;mysql -h db.@H@ -u @U@ -p'@V@' app",
            "history | grep mysql -> 512  mysql -uroot --password=@V@",
            "PGPASSWORD=@V@ psql -h @H@ -U @U@ analytics",
        ],
    ),
    (
        "shell_history_curl_bearer",
        "hex40",
        [
            "curl -s -H 'Authorization: token @V@' https://api.@H@/v1/me",
            'http GET https://api.@H@/items "Authorization:Bearer @V@"',
            'wget --header="X-Auth-Token: @V@" https://@H@/export.csv',
        ],
    ),
    (
        "pgpass_line",
        "pw",
        [
            "~/.pgpass\n@H@:5432:*:@U@:@V@",
            "localhost:5432:@P@_dev:postgres:@V@",
            "pgpass for replica: db-ro.@H@:6432:reporting:readonly:@V@",
        ],
    ),
    (
        "mycnf_password",
        "pw",
        [
            '~/.my.cnf\n[client]\nuser=@U@\npassword="@V@"',
            "[mysqldump]\nuser=backup\npassword=@V@",
            "my.cnf client password for local mariadb: @V@",
        ],
    ),
    (
        "vault_token",
        "hvs",
        [
            "~/.vault-token\n@V@",
            "export VAULT_TOKEN=@V@ VAULT_ADDR=https://vault.corp.example",
            "vault login output: token @V@ token_duration 768h",
        ],
    ),
    (
        "digitalocean_token",
        "do",
        [
            "~/.config/doctl/config.yaml\naccess-token: @V@",
            "doctl auth init --access-token @V@",
            "DO token for the droplet scripts: @V@",
        ],
    ),
    (
        "tailscale_auth_key",
        "tskey",
        [
            "tailscale up --authkey=@V@ --ssh",
            "reusable tailnet auth key for the pis: @V@",
            "TS_AUTHKEY=@V@ in the home-lab compose file",
        ],
    ),
    (
        "stripe_secret_key",
        "stripe",
        [
            "stripe CLI config ~/.config/stripe/config.toml\nlive_mode_api_key = '@V@'",
            "STRIPE_SECRET_KEY=@V@",
            "stripe login fallback: stripe --api-key @V@ balance retrieve",
        ],
    ),
    (
        "huggingface_token",
        "hf",
        [
            "~/.cache/huggingface/token\n@V@",
            "huggingface-cli login --token @V@",
            "HF_TOKEN=@V@ (write scope)",
        ],
    ),
    (
        "slack_bot_token",
        "slack_b",
        [
            "SLACK_BOT_TOKEN=@V@ for the deploy notifier",
            'slack-term config: {"slack_token": "@V@"}',
            "bot token from the app page: @V@",
        ],
    ),
    (
        "slack_user_token",
        "slack_p",
        [
            "wee-slack: /set plugins.var.python.slack.slack_api_token @V@",
            "slackdump -t @V@ -export",
            "user token (xoxp) for the status script: @V@",
        ],
    ),
    (
        "terraform_cloud_token",
        "tfc",
        [
            '~/.terraform.d/credentials.tfrc.json\n{"credentials": {"app.terraform.io": {"token": "@V@"}}}',
            "TF_TOKEN_app_terraform_io=@V@",
            '~/.terraformrc\ncredentials "app.terraform.io" {\n  token = "@V@"\n}',
        ],
    ),
    (
        "nuget_api_key",
        "nuget",
        [
            "dotnet nuget push *.nupkg --api-key @V@ --source https://api.nuget.org/v3/index.json",
            "NuGet.org key for @P@ packages: @V@",
            "nuget setapikey @V@",
        ],
    ),
    (
        "cargo_registry_token",
        "cargo",
        [
            '~/.cargo/credentials.toml\n[registry]\ntoken = "@V@"',
            "cargo login @V@",
            "CARGO_REGISTRY_TOKEN=@V@",
        ],
    ),
    (
        "rubygems_api_key",
        "rubygems",
        [
            "~/.gem/credentials\n---\n:rubygems_api_key: @V@",
            "GEM_HOST_API_KEY=@V@ gem push @P@-1.2.0.gem",
            "rubygems key: @V@",
        ],
    ),
    (
        "age_secret_key",
        "age",
        [
            "~/.config/sops/age/keys.txt\n# created: 2026-12-06T22:14:09Z\n# public key: age1@AGEPUB@\n@V@",
            "SOPS_AGE_KEY=@V@",
            "age identity for the dotfiles repo: @V@",
        ],
    ),
    (
        "crypto_seed_phrase",
        "seed",
        [
            "hardware wallet recovery words: @V@",
            "metamask seed (test wallet but it has funds): @V@",
            "12 words: @V@",
        ],
    ),
    (
        "totp_seed",
        "totp",
        [
            "otpauth://totp/AWS:@U@?secret=@V@&issuer=AWS",
            "2FA secret for the github account (from setup screen): @V@",
            "oathtool --totp -b @V@",
        ],
    ),
    (
        "browser_session_cookie",
        "sessionid",
        [
            "Cookie: csrftoken=@X8@; sessionid=@V@",
            "copied sessionid=@V@ from devtools to script the admin export",
            "jira session cookie JSESSIONID=@V@",
        ],
    ),
    (
        "wifi_psk",
        "pw",
        [
            'nmcli dev wifi connect "@P@-5G" password "@V@"',
            '/etc/wpa_supplicant.conf\nnetwork={\n  ssid="home"\n  psk="@V@"\n}',
            "office wifi: SSID corp-guest, WPA2 key @V@",
        ],
    ),
    (
        "azure_storage_key",
        "azure_key",
        [
            "AZURE_STORAGE_CONNECTION_STRING=DefaultEndpointsProtocol=https;AccountName=@P@sa;AccountKey=@V@;EndpointSuffix=core.windows.net",
            "az storage account keys list -> key1: @V@",
            "storage explorer key for @P@sa: @V@",
        ],
    ),
    (
        "django_secret_key",
        "django",
        [
            "local .env for @P@: SECRET_KEY='@V@'",
            "DJANGO_SECRET_KEY=@V@",
            'settings_local.py: SECRET_KEY = "@V@"',
        ],
    ),
    (
        "supabase_service_role",
        "supabase",
        [
            "SUPABASE_SERVICE_ROLE_KEY=@V@",
            "supabase service role JWT (bypasses RLS!): @V@",
            "service_role key for @P@: @V@",
        ],
    ),
]

# --- benign ----------------------------------------------------------------
BV = {
    "sshpub": lambda r: "AAAAC3NzaC1lZDI1NTE5AAAAI" + _s(r, 43, B64),
    "sshpub_rsa": lambda r: "AAAAB3NzaC1yc2EAAAADAQABAAABgQ" + _s(r, 120, B64),
    "sha256fp": lambda r: "SHA256:" + _s(r, 43, B64),
    "md5fp": lambda r: ":".join(_s(r, 2, HX) for _ in range(16)),
    "hashedkh": lambda r: "|1|" + _s(r, 27, B64) + "=|" + _s(r, 27, B64) + "=",
    "gpgfp": lambda r: _s(r, 40, "0123456789ABCDEF"),
    "gpgid": lambda r: _s(r, 16, "0123456789ABCDEF"),
    "wgpub": lambda r: _b64bytes(r, 32),
    "sha256": lambda r: _s(r, 64, HX),
    "sha512i": lambda r: "sha512-" + _s(r, 86, B64) + "==",
    "sha1": lambda r: _s(r, 40, HX),
    "uuid": _uuid,
    "opid": lambda r: _s(r, 26, LO + DG),
    "akid_example": lambda r: "AKIAIOSFODNN7EXAMPLE",
    "masked": lambda r: "*" * 16 + _s(r, 4, UP + DG),
    "ghmask": lambda r: "gho_" + "*" * 36,
    "pk_live": lambda r: "pk_live_51" + _s(r, 97),
    "age_pub": lambda r: "age1" + _s(r, 58, "qpzry9x8gf2tvdw0s3jn54khce6mua7l"),
    "minisign": lambda r: "RWQ" + _s(r, 53, B64),
    "stdevid": lambda r: "-".join(_s(r, 7, B32) for _ in range(8)),
    "gclientid": lambda r: (
        str(r.randint(10**11, 10**12)) + "-" + _s(r, 32, LO + DG) + ".apps.googleusercontent.com"
    ),
    "arn": lambda r: (
        f"arn:aws:iam::{r.randint(10**11, 10**12 - 1)}:role/{r.choice(PROJECTS)}-deploy"
    ),
    "digest": lambda r: "sha256:" + _s(r, 64, HX),
    "cid": lambda r: _s(r, 64, HX),
    "cacert": lambda r: "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUM" + _s(r, 110, B64),
    "crt": lambda r: "MIIDdzCCAl+gAwIBAgIU" + _s(r, 44, B64) + "\n" + _pem_body(r, 3),
    "placeholder": lambda r: r.choice(
        ["<YOUR_TOKEN_HERE>", "REPLACE_ME", "changeme", "xxxxxxxx", "<password>"]
    ),
    "envref": lambda r: r.choice(
        ["${NPM_TOKEN}", "$GITHUB_TOKEN", "${env.MAVEN_PASSWORD}", "$CR_PAT"]
    ),
    "opref": lambda r: (
        f"op://{r.choice(['Private', 'Infra', 'Shared'])}/{r.choice(HOSTS)}/password"
    ),
    "path": lambda r: r.choice(
        [
            "~/.ssh/id_ed25519",
            "~/.aws/credentials",
            "~/.kube/config",
            "~/.netrc",
            "~/.docker/config.json",
            "/etc/wireguard/privatekey",
        ]
    ),
    "keyid8": lambda r: _s(r, 8, "0123456789ABCDEF"),
    "aida": lambda r: "AIDA" + _s(r, 17, UP + "234567"),
    "lfsoid": lambda r: "sha256:" + _s(r, 64, HX),
    "b64plain": lambda r: base64.b64encode(
        r.choice(
            [b"log_level=debug\nfeature_x=true", b"region: eu-west-1", b"hello from the configmap"]
        )
    ).decode(),
    "nodekey": lambda r: "nodekey:" + _s(r, 64, HX),
    "sha": lambda r: _s(r, 40, HX),
    "profile": lambda r: r.choice(["default", "dev-admin", "sso-readonly", "prod-break-glass"]),
    "revoked": lambda r: "ghp_" + _s(r, 36),
    "pgppub": lambda r: "mQINBGV" + _s(r, 57, B64) + "\n" + _pem_body(r, 3),
    "bcryptish": lambda r: _s(r, 22, B64U),
    "ecpub": lambda r: "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE" + _s(r, 64, B64) + "Zw==",
    "ppk_pub": lambda r: "AAAAC3NzaC1lZDI1NTE5AAAAI" + _s(r, 43, B64),
}

BENIGN_TABLE = [
    (
        "ssh_public_key_ed25519",
        "sshpub",
        [
            "~/.ssh/id_ed25519.pub\nssh-ed25519 @V@ @E@",
            "added to github: ssh-ed25519 @V@ @U@@laptop-2026",
            "authorized_keys on @H@ now has\nssh-ed25519 @V@ deploy@@P@",
        ],
    ),
    (
        "ssh_public_key_rsa",
        "sshpub_rsa",
        [
            "id_rsa.pub (public, fine to share): ssh-rsa @V@ @U@@old-mbp",
            "gitlab deploy key (public part): ssh-rsa @V@",
            "cat ~/.ssh/id_rsa.pub -> ssh-rsa @V@ jenkins",
        ],
    ),
    (
        "known_hosts_plain",
        "sshpub",
        [
            "~/.ssh/known_hosts\n@H@,10.0.4.12 ssh-ed25519 @V@",
            "github.com ssh-ed25519 @V@   # pinned in known_hosts for CI",
            "added host key for the pi: pi4.local ssh-ed25519 @V@",
        ],
    ),
    (
        "known_hosts_hashed",
        "hashedkh",
        [
            "known_hosts is hashed (HashKnownHosts yes):\n@V@ ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl",
            "line 14 of known_hosts: @V@ ecdsa-sha2-nistp256 ... (stale, removed with ssh-keygen -R)",
            "ssh-keygen -F @H@ found: @V@",
        ],
    ),
    (
        "ssh_fingerprint_sha256",
        "sha256fp",
        [
            "ED25519 key fingerprint is @V@.\nAre you sure you want to continue connecting (yes/no)?",
            "ssh-add -l\n256 @V@ @E@ (ED25519)",
            "github's published RSA host key fingerprint: @V@",
        ],
    ),
    (
        "ssh_fingerprint_md5",
        "md5fp",
        [
            "ssh-keygen -l -E md5 -f id_rsa.pub -> 3072 MD5:@V@ @U@ (RSA)",
            "AWS console shows the key pair fingerprint @V@",
            "deploy key fingerprint on bitbucket: @V@",
        ],
    ),
    (
        "gpg_fingerprint",
        "gpgfp",
        [
            "gpg --list-secret-keys\nsec   ed25519 2025-03-01 [SC]\n      @V@\nuid           [ultimate] @U@ <@E@>",
            "verify the release with key fingerprint @V@",
            "trusted signer fingerprint for the apt repo: @V@",
        ],
    ),
    (
        "gpg_key_id",
        "gpgid",
        [
            "git config --global user.signingkey @V@",
            "gpg --recv-keys @V@",
            "sec   rsa4096/@V@ 2023-06-11 [SC] [expires: 2027-06-11]",
        ],
    ),
    (
        "gpg_public_key_block",
        "pgppub",
        [
            "gpg --export --armor @E@ (public, uploaded to keys.openpgp.org)\n-----BEGIN PGP PUBLIC KEY BLOCK-----\n\n@V@\n-----END PGP PUBLIC KEY BLOCK-----",
            "-----BEGIN PGP PUBLIC KEY BLOCK-----\n@V@\n-----END PGP PUBLIC KEY BLOCK-----\n^ paste into github > settings > gpg keys",
            "repo signing pubkey for /etc/apt/keyrings/@P@.asc:\n-----BEGIN PGP PUBLIC KEY BLOCK-----\n@V@\n-----END PGP PUBLIC KEY BLOCK-----",
        ],
    ),
    (
        "wireguard_public_key",
        "wgpub",
        [
            "[Peer]\nPublicKey = @V@\nEndpoint = vpn.@H@:51820\nAllowedIPs = 10.8.0.0/24",
            "wg pubkey < privatekey -> @V@ (send this one to the server admin)",
            "server public key for the home tunnel: @V@",
        ],
    ),
    (
        "wg_show_hidden_private",
        "wgpub",
        [
            "$ sudo wg show\ninterface: wg0\n  public key: @V@\n  private key: (hidden)\n  listening port: 51820",
            "wg show wg0 public-key -> @V@",
            "peer: @V@\n  endpoint: 203.0.113.7:51820\n  latest handshake: 42 seconds ago",
        ],
    ),
    (
        "wireguard_privatekey_from_file",
        "path",
        [
            "[Interface]\nPostUp = wg set %i private-key @V@\nAddress = 10.8.0.3/32",
            "wg genkey | tee @V@ | wg pubkey > publickey  (permissions 600)",
            "the private key lives in @V@, root-only; never paste it",
        ],
    ),
    (
        "netrc_commented_placeholder",
        "placeholder",
        [
            "~/.netrc template from the wiki:\n# machine api.example.com\n#   login you@example.com\n#   password @V@",
            "# machine nexus.corp.example login <user> password @V@  -- fill in locally",
            "netrc skeleton (do not commit real values):\nmachine @H@ login @U@ password @V@",
        ],
    ),
    (
        "npmrc_env_reference",
        "envref",
        [
            "~/.npmrc\n//registry.npmjs.org/:_authToken=${NPM_TOKEN}\n# token itself comes from direnv",
            "//npm.pkg.github.com/:_authToken=${GITHUB_PACKAGES_TOKEN}\n@@P@:registry=https://npm.pkg.github.com",
            "npmrc uses _authToken=${NPM_TOKEN}; CI injects NPM_TOKEN from secrets",
        ],
    ),
    (
        "yarnrc_env_reference",
        "envref",
        [
            '~/.yarnrc.yml\nnpmAuthToken: "${NPM_AUTH_TOKEN:-}"\nnpmAlwaysAuth: true',
            "yarnrc npmScopes.@P@.npmAuthToken: ${NPM_TOKEN} (value in 1password)",
            "yarn berry reads npmAuthToken from ${YARN_NPM_AUTH_TOKEN}, nothing in the file",
        ],
    ),
    (
        "pypirc_keyring",
        "placeholder",
        [
            "~/.pypirc\n[pypi]\nusername = __token__\n# password comes from `keyring set https://upload.pypi.org/legacy/ __token__`",
            "[testpypi]\nrepository = https://test.pypi.org/legacy/\nusername = __token__\npassword = @V@",
            "pypirc has only index-servers = pypi testpypi; twine uses keyring for the token",
        ],
    ),
    (
        "docker_creds_store",
        "placeholder",
        [
            '~/.docker/config.json\n{\n  "auths": {"ghcr.io": {}, "https://index.docker.io/v1/": {}},\n  "credsStore": "osxkeychain"\n}',
            '{"credHelpers": {"123456789012.dkr.ecr.eu-west-1.amazonaws.com": "ecr-login", "gcr.io": "gcloud"}}',
            "docker config fixed: credsStore desktop, auths entries are empty objects now",
        ],
    ),
    (
        "docker_login_output",
        "path",
        [
            "WARNING! Your password will be stored unencrypted in /home/@U@/.docker/config.json.\nConfigure a credential helper to remove this warning.\nLogin Succeeded",
            "docker login ghcr.io -u @U@ --password-stdin < /dev/null # failed: no input; use gh auth token | ...",
            "Authenticating with existing credentials... Login Succeeded (creds from @V@ via osxkeychain)",
        ],
    ),
    (
        "history_var_only",
        "envref",
        [
            ': 1733541190:0;echo "$CR_PAT" | docker login ghcr.io -u @U@ --password-stdin',
            'history: curl -H "Authorization: Bearer $GITHUB_TOKEN" https://api.github.com/user',
            '523  mysql -u @U@ -p"$DB_PASSWORD" -h db.@H@',
        ],
    ),
    (
        "history_op_run",
        "opref",
        [
            "op run --env-file=.env.tpl -- npm publish   # .env.tpl has NPM_TOKEN=@V@",
            'export DB_PASSWORD=$(op read "@V@")',
            "history: op inject -i config.tpl.yml -o config.yml (refs like @V@)",
        ],
    ),
    (
        "onepassword_item_list",
        "opid",
        [
            "$ op item list --vault Private\nID                            TITLE          VAULT\n@V@    @H@    Private",
            "op item get @V@ --fields label=username -> @U@",
            "1password item id for the NAS login: @V@ (vault Infra)",
        ],
    ),
    (
        "onepassword_secret_reference",
        "opref",
        [
            '.env.tpl\nDATABASE_PASSWORD="@V@"',
            'k8s OnePasswordItem: itemPath: "vaults/Infra/items/@H@" ; app reads @V@',
            "secret reference, not the secret: @V@",
        ],
    ),
    (
        "bitwarden_status",
        "uuid",
        [
            '$ bw status\n{"serverUrl":null,"lastSync":"2026-12-06T21:40:11.000Z","userEmail":"@E@","userId":"@V@","status":"locked"}',
            "bw list items --search github | jq '.[].id' -> \"@V@\"",
            "bitwarden folder id for 'homelab': @V@",
        ],
    ),
    (
        "pass_ls_tree",
        "placeholder",
        [
            "$ pass ls\nPassword Store\n├── email\n│   └── fastmail\n├── infra\n│   ├── @H@\n│   └── vpn\n└── work",
            "pass insert infra/@H@ (typed interactively, nothing on the command line)",
            "pass git log: 'Add generated password for work/jira.' (value not in the message)",
        ],
    ),
    (
        "keepassxc_protected",
        "placeholder",
        [
            "$ keepassxc-cli show ~/Vault.kdbx Infra/@H@\nTitle: @H@\nUserName: root\nPassword: PROTECTED\nURL: ssh://@H@",
            "keepassxc-cli ls Vault.kdbx -> Infra/ Email/ Wifi/ Recycle Bin/",
            "KeePassXC entry 'postgres prod' exists; password field shows PROTECTED without -s",
        ],
    ),
    (
        "browser_csv_header_masked",
        "placeholder",
        [
            "Passwords.csv columns: name,url,username,password,note (deleted the file after import)",
            "imported 214 logins from chrome csv into bitwarden; file shredded with `rm -P`",
            'firefox export sample row: "https://example.com","user@example.com","********",""',
        ],
    ),
    (
        "keychain_item_names",
        "placeholder",
        [
            '$ security find-generic-password -s "@H@"\nkeychain: "/Users/@U@/Library/Keychains/login.keychain-db"\nclass: "genp"\nattributes:\n    "acct"<blob>="@U@"\n    "svce"<blob>="@H@"',
            "keychain items to migrate: 'GitHub - https://api.github.com', 'Docker Credentials', 'gh:github.com'",
            "security dump-keychain (no -d) just lists svce/acct attributes, no data",
        ],
    ),
    (
        "windows_cmdkey_list",
        "placeholder",
        [
            "C:\\> cmdkey /list\n    Target: LegacyGeneric:target=git:https://github.com\n    Type: Generic\n    User: @U@\n    Local machine persistence",
            "Credential Manager has Target=TERMSRV/@H@ User=CORP\\@U@ (password not shown)",
            'vaultcmd /listcreds:"Windows Credentials" /all  -> 3 items, resources only',
        ],
    ),
    (
        "openvpn_profile_no_secret",
        "path",
        [
            "client\ndev tun\nremote vpn.@H@ 1194 udp\nauth-user-pass @V@\ncipher AES-256-GCM",
            "home.ovpn references auth-user-pass ~/vpn/auth.txt (chmod 600), the file itself isn't in the repo",
            "tunnelblick config: auth-user-pass with no file → prompts each time; keychain stores it",
        ],
    ),
    (
        "openvpn_ca_cert",
        "crt",
        [
            "<ca>\n-----BEGIN CERTIFICATE-----\n@V@\n-----END CERTIFICATE-----\n</ca>",
            "server CA for the office VPN (public):\n-----BEGIN CERTIFICATE-----\n@V@\n-----END CERTIFICATE-----",
            "client.crt (certificate only; key is separate):\n-----BEGIN CERTIFICATE-----\n@V@\n-----END CERTIFICATE-----",
        ],
    ),
    (
        "rclone_config_no_secret",
        "placeholder",
        [
            "~/.config/rclone/rclone.conf\n[gdrive]\ntype = drive\nscope = drive.readonly\nroot_folder_id = 0AFxYz\nteam_drive =",
            "[nas]\ntype = sftp\nhost = @H@\nuser = @U@\nkey_file = ~/.ssh/id_ed25519\nshell_type = unix",
            "rclone config is encrypted now (RCLONE_CONFIG_PASS read from `pass rclone`)",
        ],
    ),
    (
        "syncthing_device_id",
        "stdevid",
        [
            "syncthing device ID of the laptop: @V@",
            '<device id="@V@" name="@H@" compression="metadata" introducer="false">',
            "add remote device @V@ on the NAS and share ~/Sync",
        ],
    ),
    (
        "syncthing_apikey_placeholder",
        "placeholder",
        [
            "syncthing REST: curl -H \"X-API-Key: $(xmllint --xpath 'string(//apikey)' ~/.config/syncthing/config.xml)\" ...",
            "<apikey>@V@</apikey>  <- in the ansible template, real key generated on first start",
            "the syncthing api key is in Actions > Settings > General; don't log it",
        ],
    ),
    (
        "aws_config_profiles",
        "profile",
        [
            "~/.aws/config\n[profile dev-admin]\nsso_session = corp\nsso_account_id = 123456789012\nsso_role_name = AdministratorAccess\nregion = eu-west-1",
            "aws profiles on this laptop: default, dev-admin, sso-readonly, prod-break-glass",
            "export AWS_PROFILE=@V@ before terraform plan",
        ],
    ),
    (
        "aws_configure_list_masked",
        "masked",
        [
            "$ aws configure list\n      Name                    Value             Type    Location\n   profile                  default           manual    --profile\naccess_key     @V@ shared-credentials-file\nsecret_key     @V@ shared-credentials-file",
            "aws configure get shows access key as @V@ (masked)",
            "credential_process = aws-vault export --format=json dev  # key shows as @V@",
        ],
    ),
    (
        "aws_docs_example_key",
        "akid_example",
        [
            "the docs example is aws_access_key_id = @V@ with wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "placeholder in README: AWS_ACCESS_KEY_ID=@V@",
            "moto tests use @V@ as the fake key id",
        ],
    ),
    (
        "aws_caller_identity",
        "aida",
        [
            '$ aws sts get-caller-identity\n{"UserId": "@V@", "Account": "123456789012", "Arn": "arn:aws:iam::123456789012:user/@U@"}',
            "my IAM unique id is @V@ (not a key, just the principal id)",
            "CloudTrail shows userIdentity.principalId @V@ for the laptop calls",
        ],
    ),
    (
        "aws_role_arn",
        "arn",
        [
            "[profile deploy]\nrole_arn = @V@\nsource_profile = default",
            "assume @V@ with MFA",
            "github OIDC trust goes to @V@",
        ],
    ),
    (
        "kubeconfig_exec_plugin",
        "placeholder",
        [
            "users:\n- name: eks-dev\n  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/v1beta1\n      command: aws\n      args: [eks, get-token, --cluster-name, dev]",
            "kubeconfig user uses `exec: kubelogin get-token --login azurecli`; no static token",
            "gke auth via gke-gcloud-auth-plugin, installed with gcloud components install",
        ],
    ),
    (
        "kubeconfig_ca_data",
        "cacert",
        [
            "clusters:\n- cluster:\n    certificate-authority-data: @V@\n    server: https://10.0.0.1:6443\n  name: kind-@P@",
            "cluster CA (public cert) for the home k3s: certificate-authority-data: @V@",
            "client-certificate-data: @V@   (cert only; the key line is REDACTED)",
        ],
    ),
    (
        "kubectl_config_view_redacted",
        "placeholder",
        [
            "$ kubectl config view\nusers:\n- name: admin\n  user:\n    client-certificate-data: DATA+OMITTED\n    client-key-data: DATA+OMITTED",
            "kubectl config view shows token: REDACTED for ci-deployer",
            "contexts: kind-@P@, eks-dev, gke_@P@_europe-west1_main (current: kind-@P@)",
        ],
    ),
    (
        "gh_auth_status_masked",
        "ghmask",
        [
            "$ gh auth status\ngithub.com\n  ✓ Logged in to github.com account @U@ (keyring)\n  - Token: @V@\n  - Token scopes: 'gist', 'read:org', 'repo'",
            "gh shows the token as @V@, stored in the macOS keyring",
            "gh auth status -> Token: @V@ (git_protocol ssh)",
        ],
    ),
    (
        "token_redacted_last4",
        "masked",
        [
            "rotated the npm token; new one ends in ...@V@ (last 4 only)",
            "GITHUB_TOKEN=ghp_@V@ [REDACTED]",
            "Authorization: Bearer @V@ (masked in the logs)",
        ],
    ),
    (
        "revoked_token_stated",
        "revoked",
        [
            "leaked @V@ in a gist on 2026-11-30; GitHub auto-revoked it and the token is deleted from settings. No longer valid.",
            "postmortem: token @V@ was revoked within 4 minutes (GitHub secret scanning), audit log clean, value is dead",
            "@V@ — REVOKED 2026-12-01, kept here only to match against old logs",
        ],
    ),
    (
        "placeholder_token_example",
        "placeholder",
        [
            '~/.zshrc template:\nexport OPENAI_API_KEY="@V@"  # set per machine',
            "gradle.properties.example: ossrhPassword=@V@",
            "[default]\naws_access_key_id = @V@\naws_secret_access_key = @V@",
        ],
    ),
    (
        "credential_file_paths",
        "path",
        [
            "files to copy to the new laptop via airdrop, NOT via git: @V@, ~/.gnupg/, ~/.config/gh/",
            "chmod 600 @V@ (ssh complained about permissions)",
            "backup script excludes @V@ and ~/.password-store",
        ],
    ),
    (
        "download_checksum",
        "sha256",
        [
            "shasum -a 256 ~/Downloads/Docker.dmg\n@V@  Docker.dmg",
            "kubectl v1.31.2 darwin/arm64 sha256: @V@ (matches dl.k8s.io .sha256)",
            'verify: echo "@V@  rclone-v1.68.2-osx-arm64.zip" | shasum -a 256 -c',
        ],
    ),
    (
        "npm_integrity_hash",
        "sha512i",
        [
            'package-lock.json: "integrity": "@V@"',
            "yarn.lock checksum for left-pad: @V@",
            "npm ERR! integrity mismatch, wanted @V@",
        ],
    ),
    (
        "docker_image_digest",
        "digest",
        [
            "pinned: FROM python:3.12-slim@@V@",
            "docker pull ghcr.io/@U@/@P@@@V@",
            "Digest: @V@\nStatus: Downloaded newer image for postgres:16",
        ],
    ),
    (
        "docker_container_id",
        "cid",
        [
            'docker ps --no-trunc -> @V@ postgres:16 "docker-entrypoint.s…"',
            "container @V@ exited with code 137 (OOM)",
            "docker inspect @V@ --format '{{.State.Health.Status}}'",
        ],
    ),
    (
        "git_commit_sha",
        "sha",
        [
            "dotfiles pinned at commit @V@",
            "brew tap-new fixed in @V@, cherry-picked to the laptop branch",
            "git bisect: first bad commit is @V@",
        ],
    ),
    (
        "git_lfs_oid",
        "lfsoid",
        [
            "version https://git-lfs.github.com/spec/v1\noid @V@\nsize 1048576",
            "lfs pointer for wallpaper.png: oid @V@",
            "git lfs ls-files shows @V@ for the dmg",
        ],
    ),
    (
        "stripe_publishable_key",
        "pk_live",
        [
            "STRIPE_PUBLISHABLE_KEY=@V@ (safe for the browser bundle)",
            "frontend .env.production: NEXT_PUBLIC_STRIPE_PK=@V@",
            "publishable key shown in the stripe dashboard: @V@",
        ],
    ),
    (
        "age_public_key",
        "age_pub",
        [
            ".sops.yaml\ncreation_rules:\n  - path_regex: secrets/.*\\.yaml$\n    age: @V@",
            "age recipient for the laptop (public): @V@",
            "age-keygen -y keys.txt -> @V@",
        ],
    ),
    (
        "minisign_public_key",
        "minisign",
        [
            "minisign -Vm release.tar.gz -P @V@",
            "zig release signing public key: @V@",
            "signify/minisign pubkey pinned in the install script: @V@",
        ],
    ),
    (
        "tailscale_node_key",
        "nodekey",
        [
            'tailscale status --json | jq .Self.PublicKey -> "@V@"',
            "node @H@ has @V@ (machine key is separate)",
            "admin console shows node key @V@ expiring in 180 days",
        ],
    ),
    (
        "google_oauth_client_id",
        "gclientid",
        [
            "rclone drive client_id = @V@ (client id is public, secret is in pass)",
            "GOOGLE_CLIENT_ID=@V@",
            "OAuth consent app id: @V@",
        ],
    ),
    (
        "configmap_base64_plain",
        "b64plain",
        [
            "kubectl get cm app -o yaml -> data.settings: @V@ (just base64 of plain config)",
            "base64 -d <<< @V@ prints non-sensitive config",
            "that long string in values.yaml is @V@ = base64 of a log level, nothing secret",
        ],
    ),
    (
        "git_config_credential_helper",
        "placeholder",
        [
            '~/.gitconfig\n[credential]\n    helper = osxkeychain\n[credential "https://dev.azure.com"]\n    useHttpPath = true',
            "git config --global credential.helper manager  (Git Credential Manager on windows)",
            '[credential "https://github.com"]\n\thelper = !/opt/homebrew/bin/gh auth git-credential',
        ],
    ),
    (
        "tmux_keybindings",
        "placeholder",
        [
            "~/.tmux.conf\nset -g prefix C-a\nunbind C-b\nbind-key C-a send-prefix\nbind-key | split-window -h",
            "tmux: set -g status-keys vi; set -g mode-keys vi",
            "bind-key -T copy-mode-vi y send-keys -X copy-pipe-and-cancel 'pbcopy'",
        ],
    ),
    (
        "ide_token_color_settings",
        "placeholder",
        [
            'settings.json\n"editor.tokenColorCustomizations": {"comments": "#6a9955"},\n"editor.semanticHighlighting.enabled": true',
            '"github.copilot.advanced": {"length": 500}  // token limit for completions',
            "JetBrains: Settings > Keymap > macOS, and 'Save passwords: In KeePass' with the db at ~/Library/Application Support/JetBrains/c.kdbx",
        ],
    ),
    (
        "llm_token_talk",
        "placeholder",
        [
            "claude code burned ~180k tokens on the dotfiles refactor; context window filled twice",
            "tokenizer counts: the .zshrc is 2,431 tokens, the brewfile 610",
            "set max_tokens=4096 in the continue config; temperature 0.2",
        ],
    ),
    (
        "password_policy_talk",
        "placeholder",
        [
            "corp policy: passwords 16+ chars, rotate every 180 days, no reuse of last 12",
            "the secret for the NAS is in pass under infra/nas; ask me before using it",
            "reminder: rotate the github PAT next month, it expires 2027-01-15",
        ],
    ),
    (
        "k8s_secret_key_ref",
        "placeholder",
        [
            "env:\n- name: DB_PASSWORD\n  valueFrom:\n    secretKeyRef:\n      name: @P@-db\n      key: password",
            "kubectl create secret generic @P@-db --from-file=password=./db.pw  (file not stored here)",
            "ExternalSecret remoteRef key: prod/@P@/db property: password",
        ],
    ),
    (
        "macos_defaults_key",
        "placeholder",
        [
            "defaults write -g KeyRepeat -int 2\ndefaults write -g InitialKeyRepeat -int 15",
            "defaults write com.apple.screensaver askForPassword -int 1",
            "remapped caps lock to escape via hidutil property --set '{\"UserKeyMapping\":[...]}'",
        ],
    ),
    (
        "request_uuid",
        "uuid",
        [
            "brew install failed, GitHub API request id @V@",
            "support ticket ref @V@ for the laptop MDM enrollment",
            'terraform state lineage = "@V@"',
        ],
    ),
    (
        "ssh_config_identityfile",
        "path",
        [
            "~/.ssh/config\nHost @H@\n  User @U@\n  IdentityFile @V@\n  IdentitiesOnly yes",
            'Host github.com\n  IdentityAgent "~/Library/Group Containers/2BUA8C4S2C.com.1password/t/agent.sock"',
            "ssh -i @V@ -J bastion @U@@@H@",
        ],
    ),
    (
        "gradle_properties_nonsecret",
        "keyid8",
        [
            "~/.gradle/gradle.properties\norg.gradle.jvmargs=-Xmx4g\norg.gradle.caching=true\nsigning.keyId=@V@",
            "signing.keyId=@V@ (short key id; password + keyring stay in CI secrets)",
            "gradle.properties: org.gradle.parallel=true, kotlin.daemon.jvmargs=-Xmx2g, signing.keyId=@V@",
        ],
    ),
    (
        "maven_settings_env_ref",
        "envref",
        [
            "<server>\n  <id>corp-releases</id>\n  <username>${env.MAVEN_USER}</username>\n  <password>${env.MAVEN_PASSWORD}</password>\n</server>",
            "settings.xml mirrors central through https://nexus.corp.example/repository/maven-public/ ; no server creds locally",
            "mvn deploy -s ci-settings.xml (password from ${env.MAVEN_PASSWORD})",
        ],
    ),
    (
        "wifi_ssid_only",
        "placeholder",
        [
            "known networks: @P@-5G, corp-guest, iPhone de @U@",
            "nmcli connection show -> home-5G  uuid @UUID@  wifi  wlp2s0",
            "networksetup -listpreferredwirelessnetworks en0 (passwords are in the keychain)",
        ],
    ),
    (
        "cosign_public_key",
        "ecpub",
        [
            "cosign.pub pinned in CI:\n-----BEGIN PUBLIC KEY-----\n@V@\n-----END PUBLIC KEY-----",
            "public half of the push signing key (safe to commit): -----BEGIN PUBLIC KEY----- @V@ -----END PUBLIC KEY-----",
            "cosign verify --key cosign.pub ghcr.io/@U@/@P@ ; key body @V@",
        ],
    ),
]


def _fill(tpl: str, v: str, r: random.Random, extra: dict) -> str:
    out = tpl.replace("@V@", v)
    for k, val in extra.items():
        out = out.replace(k, val)
    return out


def _extras(r: random.Random) -> dict:
    u = r.choice(USERS)
    return {
        "@U@": u,
        "@H@": r.choice(HOSTS),
        "@P@": r.choice(PROJECTS),
        "@E@": u.replace(".", "") + "@" + r.choice(["fastmail.com", "corp.example", "gmail.com"]),
        "@A@": _s(r, 16, UP + "234567"),
        "@X40@": _s(r, 40, B64),
        "@X8@": _s(r, 32, AN),
        "@K8@": _s(r, 8, "0123456789ABCDEF"),
        "@UUID@": _uuid(r),
        "@NUM@": str(r.randint(10**8, 10**9)),
        "@AGEPUB@": _s(r, 58, "qpzry9x8gf2tvdw0s3jn54khce6mua7l"),
    }


def _gen(r: random.Random, table: list, gens: dict, label: str) -> list[dict]:
    rows = []
    for kind, gname, templates in table:
        for tpl in templates:
            ex = _extras(r)
            if gname == "docker_auth":
                v = base64.b64encode(f"{ex['@U@']}:{_pw(r)}".encode()).decode()
            else:
                v = gens[gname](r)
            text = _fill(tpl, v, r, ex)
            value = v if v in text else ""
            if label == "secret":
                assert value, (kind, tpl)
            rows.append({"label": label, "kind": kind, "text": text, "value": value})
    return rows


SECRET_KINDS = sorted({k for k, _, _ in SECRET_TABLE})
BENIGN_KINDS = sorted({k for k, _, _ in BENIGN_TABLE})


def corpus() -> list[dict]:
    r = random.Random(SEED)
    rows = _gen(r, SECRET_TABLE, V, "secret") + _gen(r, BENIGN_TABLE, BV, "benign")
    for row in rows:
        assert row["value"] in row["text"]
    return rows


def main() -> None:
    rows = corpus()
    lines = "\n".join(json.dumps(row, ensure_ascii=False) for row in rows) + "\n"
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w", encoding="utf-8") as fh:
            fh.write(lines)
    else:
        sys.stdout.write(lines)


if __name__ == "__main__":
    main()

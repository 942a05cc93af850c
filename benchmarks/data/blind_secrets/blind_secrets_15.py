# ruff: noqa: E501
"""Blind secret-detector corpus 15: coding-agent self-written memories.

What a coding agent (Claude Code, Codex, Gemini CLI, Cursor) itself writes into its
memory after a session: "learned that...", "the user told me...", "corrected: ...",
decisions, procedures and conventions that mention how to authenticate, where
credentials live and what to run; sometimes carelessly with the value inline, often
correctly without it. Any stack (web, backend, infra, embedded, desktop), plus
home-lab and small-business notes (routers, NAS, printers, Wi-Fi, smart home, email
accounts).

Written blind on 2026-12-06: the author did not read the detector, its tests or any
earlier corpus.

Every value is generated from ``random.Random(SEED)`` inside ``corpus()``; none is a
real credential. Documentation constants (the AWS docs example pair, the jwt.io
sample token, Stripe's test card) are public examples and labelled benign.

Run:
    python benchmarks/data/blind_secrets/blind_secrets_15.py /tmp/blind15.jsonl
(or without an argument to print JSONL on stdout).

Kinds, secret:
    aws_access_key_pair, aws_secret_key_alone, github_pat_classic,
    github_pat_fine_grained, github_oauth_token, gitlab_pat, slack_bot_token,
    slack_user_token, slack_webhook_url, discord_bot_token, discord_webhook_url,
    stripe_live_secret_key, stripe_restricted_key, stripe_webhook_secret,
    openai_api_key, anthropic_api_key, gemini_api_key, gcp_service_account_key,
    openssh_private_key, rsa_private_key_env, apple_p8_key, postgres_url_password,
    mysql_cli_password, redis_url_password, mongodb_srv_password,
    router_admin_password, wifi_psk, nas_admin_password, printer_admin_password,
    gmail_app_password, smtp_password, imap_mailbox_password, npm_token, pypi_token,
    dockerhub_pat, twilio_auth_token, sendgrid_api_key, bearer_jwt_access_token,
    session_cookie, django_secret_key, rails_master_key, jwt_hmac_secret,
    home_assistant_token, telegram_bot_token, cloudflare_api_token,
    digitalocean_token, heroku_api_key, azure_storage_connection_string,
    azure_client_secret, vault_token, terraform_cloud_token, bip39_seed_phrase,
    eth_private_key, basic_auth_in_url, kubeadm_bootstrap_token,
    k8s_secret_base64_value, age_secret_key, wireguard_private_key, mqtt_password,
    rtsp_camera_credentials, sudo_password, ldap_bind_password, shopify_admin_token,
    mailgun_api_key, datadog_api_key, sentry_auth_token, linear_api_key,
    notion_token, huggingface_token, supabase_service_role_key, pgpass_line,
    netrc_password, totp_seed, recovery_codes, snmp_community, tailscale_auth_key,
    ngrok_authtoken, okta_api_token, atlassian_api_token, figma_token,
    postman_api_key, grafana_service_account_token, doppler_token, plex_token,
    onepassword_service_account_token, password_manager_master_password,
    mapbox_secret_token, algolia_admin_key, fcm_server_key, zigbee_network_key,
    azure_devops_pat, paypal_client_secret, basic_auth_header, vnc_password,
    openwrt_root_password, ansible_vault_password, wpa_supplicant_psk_hex,
    docker_config_auth, kubeconfig_client_key

Kinds, benign:
    aws_docs_example_pair, aws_iam_role_arn, secretsmanager_arn, git_commit_sha,
    sha256_checksum, docker_image_digest, request_uuid, stripe_publishable_key,
    mapbox_public_token, firebase_web_config_key, ssh_public_key,
    ssh_host_fingerprint, pgp_fingerprint, age_recipient, wireguard_public_key,
    onepassword_reference, env_var_reference, k8s_secret_key_ref, redacted_value,
    placeholder_value, revoked_token, bcrypt_hash, argon2_hash, sri_integrity_hash,
    jwt_io_example, jwt_decoded_claims, music_key, keyboard_key, cache_key_name,
    llm_token_count, lexer_token, csrf_config_name, secret_other_sense,
    password_policy, wifi_ssid_pointer, network_identifiers, device_serial,
    sentry_dsn, analytics_id, stripe_object_ids, slack_ids, github_app_ids,
    oauth_client_id, algolia_search_key, supabase_anon_key, eth_address,
    btc_address, cloudflare_zone_id, container_id, public_key_pem, certificate_pem,
    sops_ciphertext, ansible_vault_ciphertext, sealed_secret_ciphertext,
    kms_key_arn, gpg_key_id, twilio_account_sid, tailscale_node_key, zigbee_pan_id,
    key_metadata_last4, webhook_endpoint_url, hashed_token_in_db,
    secret_generation_code, rotation_note, env_var_names, auth_procedure,
    password_manager_pointer, git_lfs_oid, ipfs_cid, base64_config_blob,
    webhook_signature_header, oauth_state_param, factory_default_changed,
    stripe_test_card, azure_tenant_ids, vault_path, certificate_pin,
    dkim_public_record, ci_secret_reference, home_assistant_secret_ref,
    terraform_sensitive_var, idempotency_key, i18n_key, launchdarkly_client_side_id,
    posthog_project_key, recaptcha_site_key, vapid_public_key,
    apple_team_and_key_ids, android_signing_fingerprint, known_hosts_line,
    auth_error_message, git_pickaxe_search, w3c_trace_id, md5_checksum,
    prefixed_record_id, clerk_publishable_key, kubeconfig_ca_data,
    pgp_public_key_block, csp_nonce, webpack_chunk_hash, shamir_unseal_note,
    hibp_prefix, form_field_markup, psql_variable_placeholder, yubikey_serial
"""

from __future__ import annotations

import base64
import json
import random
import string
import sys

SEED = 515015

A62 = string.ascii_letters + string.digits
URLSAFE = A62 + "-_"
HEX = "0123456789abcdef"
B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
BECH32 = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

WORDS = [
    "kestrel", "mango", "harbor", "violet", "copper", "tundra", "falcon", "pepper",
    "orchid", "basalt", "willow", "juniper", "glacier", "saffron", "otter", "marble",
    "cobalt", "thistle", "lantern", "meadow", "quartz", "walnut", "ember", "fjord",
    "sorrel", "bramble", "cinder", "pylon", "raven", "tamarind",
]  # fmt: skip

BIP39 = [
    "abandon", "ability", "absorb", "abstract", "access", "accident", "acid",
    "acoustic", "adapt", "addict", "advance", "aerobic", "afford", "agent", "airport",
    "aisle", "album", "alcohol", "alien", "alley", "almost", "alpha", "amateur",
    "anchor", "ancient", "ankle", "antenna", "antique", "anxiety", "apology",
    "arctic", "arena", "armor", "arrow", "artefact", "asthma", "athlete", "auction",
    "august", "avocado", "awkward", "bacon", "badge", "balcony", "bamboo", "banana",
    "barrel", "basket", "beach", "betray", "bicycle", "biology", "blanket", "blossom",
    "bonus", "border", "bracket", "breeze", "broccoli", "bronze", "bubble", "buffalo",
    "bunker", "burger", "butter", "buzz", "cabbage", "cactus", "canyon", "carbon",
]  # fmt: skip


def _s(r: random.Random, n: int, alpha: str = A62) -> str:
    return "".join(r.choice(alpha) for _ in range(n))


def _hex(r: random.Random, n: int) -> str:
    return _s(r, n, HEX)


def _bytes(r: random.Random, n: int) -> bytes:
    return bytes(r.getrandbits(8) for _ in range(n))


def _b64(r: random.Random, n: int) -> str:
    return base64.b64encode(_bytes(r, n)).decode()


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _uuid(r: random.Random) -> str:
    h = _hex(r, 32)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{r.choice('89ab')}{h[17:20]}-{h[20:]}"


def _digits(r: random.Random, n: int) -> str:
    return str(r.randint(1, 9)) + _s(r, n - 1, string.digits)


def _pw(r: random.Random) -> str:
    k = r.randrange(4)
    if k == 0:
        a, b = r.sample(WORDS, 2)
        return f"{a.capitalize()}{r.choice('!#%*-')}{b.capitalize()}{r.randint(10, 99)}"
    if k == 1:
        return _s(r, r.randint(16, 22), A62 + "!@#%^*-_")
    if k == 2:
        return "-".join(r.sample(WORDS, 4)) + str(r.randint(1, 9))
    return f"{r.choice(WORDS)}{r.randint(1970, 2019)}{r.choice('!?$')}"


def _jwt(r: random.Random, header: dict, payload: dict) -> str:
    h = _b64url(json.dumps(header, separators=(",", ":")).encode())
    p = _b64url(json.dumps(payload, separators=(",", ":")).encode())
    return f"{h}.{p}.{_b64url(_bytes(r, 32))}"


def _pem_lines(r: random.Random, first: str, nlines: int) -> list[str]:
    body = first + _b64(r, 48 * nlines + 30)
    body = body[: 64 * nlines + 20]
    return [body[i : i + 64] for i in range(0, len(body), 64)]


def _ip(r: random.Random) -> str:
    return f"192.168.{r.choice([0, 1, 2, 10, 50, 178])}.{r.randint(2, 250)}"


def _fill(t: str, d: dict) -> str:
    for k, v in d.items():
        t = t.replace("\u00ab" + k + "\u00bb", str(v))
    assert "\u00ab" not in t, t
    return t


# ---------------------------------------------------------------- secret kinds


def _secret_specs() -> list[tuple[str, object, list[str]]]:
    S: list[tuple[str, object, list[str]]] = []

    def add(kind, gen, tpls):
        S.append((kind, gen, tpls))

    add(
        "aws_access_key_pair",
        lambda r: {"id": "AKIA" + _s(r, 16, B32), "v": _s(r, 40, A62 + "/+")},
        [
            "Learned: the nightly S3 sync on build-02 runs as IAM user backup-bot.\n"
            "aws_access_key_id = «id»\naws_secret_access_key = «v»\n"
            "(user pasted both in chat; profile [backup] in ~/.aws/credentials)",
            "Procedure, invoice-export Lambda redeploy:\n"
            "  export AWS_ACCESS_KEY_ID=«id»\n  export AWS_SECRET_ACCESS_KEY=«v»\n"
            "  sam deploy --no-confirm-changeset",
            "user told me the Hetzner box pushes backups to S3 with «id» / «v» "
            "(restic repo s3:s3.amazonaws.com/acme-restic).",
        ],
    )
    add(
        "aws_secret_key_alone",
        lambda r: {"v": _s(r, 40, A62 + "/+")},
        [
            "corrected: deploy.sh reads AWS_SECRET_ACCESS_KEY=«v» from .env.local, "
            "not from the instance role like I assumed.",
            "Wasabi bucket for Hyper Backup: access key is in the UI; the secret key the user "
            "pasted is «v» (needed again if the task is recreated).",
        ],
    )
    add(
        "github_pat_classic",
        lambda r: {"v": "ghp_" + _s(r, 36)},
        [
            "User gave me a GitHub token for pushing to the private fork: «v» "
            "(scopes repo, workflow).",
            "gh was failing inside the devcontainer; fixed with\n"
            "  echo «v» | gh auth login --with-token\nredo this after every rebuild.",
            "Renovate self-hosted: RENOVATE_TOKEN=«v» (classic PAT of the ops account).",
        ],
    )
    add(
        "github_pat_fine_grained",
        lambda r: {"v": "github_pat_" + _s(r, 22) + "_" + _s(r, 59)},
        [
            "Release workflow needs contents:write on homebrew-tap; the fine-grained PAT "
            "for that is «v» (expires 2027-03-01).",
            "the user pasted «v» so I could clone the private submodule "
            "vendor/sdk; they said keep using it for this repo only.",
        ],
    )
    add(
        "github_oauth_token",
        lambda r: {"v": "gho_" + _s(r, 36)},
        [
            "WSL has no keyring, so gh wrote the token in plaintext to "
            "~/.config/gh/hosts.yml: oauth_token: «v»",
            "Replaying the OAuth callback token «v» with curl -H 'Authorization: token …' "
            "reproduces the 403 on /user/orgs.",
        ],
    )
    add(
        "gitlab_pat",
        lambda r: {"v": "glpat-" + _s(r, 20, URLSAFE)},
        [
            "Self-hosted GitLab (gitlab.lab.internal): PAT for the mirror job is «v», "
            "scopes read_repository + write_repository.",
            "git clone https://oauth2:«v»@gitlab.com/acme/firmware.git is how the user "
            "pulls the firmware on the bench PC.",
            'runner config.toml sets environment = ["GITLAB_TOKEN=«v»"] for the changelog bot.',
        ],
    )
    add(
        "slack_bot_token",
        lambda r: {
            "v": f"xoxb-{_digits(r, 12)}-{_digits(r, 13)}-{_s(r, 24)}",
        },
        [
            "Slack alerts bot (@pagerbot): SLACK_BOT_TOKEN=«v», posts to #ops-alerts.",
            "learned that standup_reminder.py hardcodes the bot token «v» instead of "
            "reading env; user wants to fix it later, don't touch for now.",
        ],
    )
    add(
        "slack_user_token",
        lambda r: {"v": f"xoxp-{_digits(r, 12)}-{_digits(r, 12)}-{_digits(r, 13)}-{_hex(r, 32)}"},
        [
            "For the channel export script the user handed me their own user token "
            "«v» — fine to call conversations.history with it.",
            "slackdump auth: -t «v» (user token, workspace acme-hq)",
        ],
    )
    add(
        "slack_webhook_url",
        lambda r: {
            "v": "https://hooks.slack.com/services/T"
            + _s(r, 9, string.ascii_uppercase + string.digits)
            + "/B"
            + _s(r, 10, string.ascii_uppercase + string.digits)
            + "/"
            + _s(r, 24)
        },
        [
            "CI failure notifications go to the incoming webhook «v»",
            "alertmanager.yml, receiver slack-prod:\n  slack_configs:\n"
            "    - api_url: «v»\n      channel: '#prod'",
            "Der Backup-Job auf dem NAS meldet sich per Webhook «v» im Kanal #nas.",
        ],
    )
    add(
        "discord_bot_token",
        lambda r: {
            "v": _b64url(_digits(r, 18).encode())
            + "."
            + _s(r, 6, URLSAFE)
            + "."
            + _s(r, 38, URLSAFE)
        },
        [
            "Home Discord server mod bot: DISCORD_TOKEN=«v»",
            "bot.run('«v»') is hardcoded in main.py of the user's hobby bot; they know, "
            "asked me not to refactor yet.",
        ],
    )
    add(
        "discord_webhook_url",
        lambda r: {"v": f"https://discord.com/api/webhooks/{_digits(r, 19)}/{_s(r, 68, URLSAFE)}"},
        [
            "Uptime Kuma → Discord notifications use «v»",
            "HA automation 'doorbell_snapshot' posts the camera still to «v»",
        ],
    )
    add(
        "stripe_live_secret_key",
        lambda r: {"v": "sk_live_" + _s(r, 99)},
        [
            "Stripe LIVE secret key the user pasted while we debugged refunds: «v». "
            "Test key is separate.",
            "prod .env on the VPS has STRIPE_SECRET_KEY=«v»",
            "corrected: payments-svc builds Stripe::StripeClient.new('«v»') directly, "
            "not with the restricted key.",
        ],
    )
    add(
        "stripe_restricted_key",
        lambda r: {"v": "rk_live_" + _s(r, 99)},
        [
            "Reporting cron uses restricted key «v» (read-only charges + balance).",
            "The Zapier zap was given «v»; user asked me to remember which one.",
        ],
    )
    add(
        "stripe_webhook_secret",
        lambda r: {"v": "whsec_" + _s(r, 32)},
        [
            "Signing secret for the prod endpoint /api/stripe/webhook: «v» — needed by "
            "stripe.webhooks.constructEvent().",
            "fly secrets on shop-app: STRIPE_WEBHOOK_SECRET=«v»",
        ],
    )
    add(
        "openai_api_key",
        lambda r: {"v": "sk-proj-" + _s(r, 74, URLSAFE) + "T3BlbkFJ" + _s(r, 74, URLSAFE)},
        [
            "OpenAI key for the summarizer service: «v» (personal org, $50 budget alert).",
            "That's why the tests hit the real API: ~/.zshrc exports OPENAI_API_KEY=«v»",
            "Cursor → Models → OpenAI API Key is set to the user's own key «v»",
        ],
    )
    add(
        "anthropic_api_key",
        lambda r: {"v": "sk-ant-api03-" + _s(r, 93, URLSAFE) + "AA"},
        [
            "eval harness reads ANTHROPIC_API_KEY; the user said to use «v» for the nightly run.",
            "learned that support-bot gets its Claude key straight from "
            "docker-compose.yml:\n    environment:\n      - ANTHROPIC_API_KEY=«v»",
        ],
    )
    add(
        "gemini_api_key",
        lambda r: {"v": "AIza" + _s(r, 35, URLSAFE)},
        [
            "Gemini API key (AI Studio, unrestricted) for the transcription script: «v». "
            "Server-side only.",
            "gemini-cli settings: GEMINI_API_KEY=«v» exported in ~/.bashrc on the build VM.",
        ],
    )
    add(
        "gcp_service_account_key",
        lambda r: {
            "v": "-----BEGIN PRIVATE KEY-----\\n"
            + "\\n".join(_pem_lines(r, "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC", 5))
            + "\\n-----END PRIVATE KEY-----\\n",
            "p": r.choice(["acme-prod-4821", "shop-infra", "hl-lab-2291"]),
        },
        [
            "Service account ci-deployer@«p».iam.gserviceaccount.com, from the JSON the "
            'user pasted:\n  "private_key": "«v»",',
        ],
    )
    add(
        "openssh_private_key",
        lambda r: {
            "v": "-----BEGIN OPENSSH PRIVATE KEY-----\n"
            + "\n".join(_pem_lines(r, "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAAB", 4))
            + "\n-----END OPENSSH PRIVATE KEY-----"
        },
        [
            "User pasted the staging deploy key so I can ssh as deploy@stg:\n«v»",
            "Pi-hole box key (saved to ~/.ssh/pihole, chmod 600):\n«v»",
        ],
    )
    add(
        "rsa_private_key_env",
        lambda r: {
            "v": "-----BEGIN RSA PRIVATE KEY-----\\n"
            + "\\n".join(_pem_lines(r, "MIIEowIBAAKCAQEA", 5))
            + "\\n-----END RSA PRIVATE KEY-----"
        },
        [
            'GitHub App private key lives in .env as GITHUB_APP_PRIVATE_KEY="«v»"',
            "auth-service RS256 signing key (from the user's message, one line): «v»",
        ],
    )
    add(
        "apple_p8_key",
        lambda r: {
            "v": "-----BEGIN PRIVATE KEY-----\n"
            + "\n".join(_pem_lines(r, "MIGTAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBHkwdwIBAQQg", 2))
            + "\n-----END PRIVATE KEY-----",
            "k": _s(r, 10, string.ascii_uppercase + string.digits),
        },
        [
            "APNs auth key AuthKey_«k».p8 (Key ID «k»), contents:\n«v»",
        ],
    )
    add(
        "postgres_url_password",
        lambda r: {"v": _pw(r), "h": r.choice(["db.internal", "10.0.4.7", "pg-main"])},
        [
            "DATABASE_URL=postgres://app:«v»@«h»:5432/app  (the real one, from the "
            "prod box, user confirmed)",
            "psql into reporting: psql 'postgresql://readonly:«v»@«h»/metrics?sslmode=require'",
            "corrected: the migration user is 'owner', password «v», not the app user.",
        ],
    )
    add(
        "mysql_cli_password",
        lambda r: {"v": _pw(r), "ip": _ip(r)},
        [
            "WordPress DB on the shop server: mysql -h «ip» -u wp -p'«v»' wordpress",
            "MariaDB root on the NAS container is «v» (user set it during setup).",
        ],
    )
    add(
        "redis_url_password",
        lambda r: {"v": _s(r, 32)},
        [
            "REDIS_URL=redis://:«v»@cache-1:6379/0 for the queue workers.",
            "redis-cli -a «v» -h 10.0.2.15 --no-auth-warning  # sessions cache",
        ],
    )
    add(
        "mongodb_srv_password",
        lambda r: {"v": _pw(r), "c": _s(r, 5, string.ascii_lowercase + string.digits)},
        [
            "Atlas: mongodb+srv://analytics:«v»@cluster0.«c».mongodb.net/?retryWrites=true",
            "the user said the Atlas DB user 'etl' has password «v»",
        ],
    )
    add(
        "router_admin_password",
        lambda r: {"v": _pw(r)},
        [
            "Home router (FRITZ!Box 7590) UI at http://192.168.178.1 — admin password «v»",
            "Office router login: admin / «v» (TP-Link Archer, user changed it last week).",
            "Routeur Livebox : mot de passe admin «v» (l'utilisateur me l'a donné pour "
            "ouvrir le port 443).",
        ],
    )
    add(
        "wifi_psk",
        lambda r: {"v": _pw(r), "ssid": r.choice(["Gartenhaus", "ACME-Staff", "Nebula5G"])},
        [
            "Wi-Fi for the office: SSID «ssid», WPA2 key «v»",
            "guest QR code string the user wants printed: WIFI:T:WPA;S:«ssid»;P:«v»;;",
            "ESPHome devices join «ssid» with wifi_password «v» (hardcoded in "
            "common.yaml, no secrets.yaml yet).",
        ],
    )
    add(
        "nas_admin_password",
        lambda r: {"v": _pw(r), "ip": _ip(r)},
        [
            "Synology DS920+ at https://«ip»:5001, account 'nasadmin', password «v».",
            "TrueNAS root pw is «v» — user told me so I can fix the SMB share perms.",
        ],
    )
    add(
        "printer_admin_password",
        lambda r: {"v": _pw(r), "ip": _ip(r)},
        [
            "Brother MFC at «ip»: web admin password changed to «v» (scan-to-email setup).",
            "HP LaserJet EWS admin pw: «v»",
        ],
    )
    add(
        "gmail_app_password",
        lambda r: {"v": " ".join(_s(r, 4, string.ascii_lowercase) for _ in range(4))},
        [
            "Scanner → Gmail SMTP uses an app password: «v» (account scans.office@gmail.com).",
            "user created a Google app password for the invoice mailer: «v»",
        ],
    )
    add(
        "smtp_password",
        lambda r: {"v": _pw(r)},
        [
            "Django EMAIL_HOST_PASSWORD = '«v»' (smtp.mailbox.org, user noreply@)",
            "Postfix relay: /etc/postfix/sasl_passwd has [smtp.fastmail.com]:587 relay@acme.io:«v»",
        ],
    )
    add(
        "imap_mailbox_password",
        lambda r: {"v": _pw(r)},
        [
            "Bakery's shared mailbox info@ (IMAP imap.ionos.de:993), password «v». "
            "Owner asked me to set up Thunderbird on the new laptop.",
            "Das Passwort für buchhaltung@ lautet «v» (laut Chef).",
        ],
    )
    add(
        "npm_token",
        lambda r: {"v": "npm_" + _s(r, 36)},
        [
            ".npmrc on the release VM: //registry.npmjs.org/:_authToken=«v»",
            "npm automation token for publishing @acme/ui: «v» (user generated it today)",
        ],
    )
    add(
        "pypi_token",
        lambda r: {"v": "pypi-AgEIcHlwaS5vcmc" + _s(r, 160, URLSAFE)},
        [
            "twine upload works with __token__ / «v»",
            "~/.pypirc [pypi] password = «v»",
        ],
    )
    add(
        "dockerhub_pat",
        lambda r: {"v": "dckr_pat_" + _s(r, 27, URLSAFE)},
        [
            "docker login -u acmebuild -p «v»  (Docker Hub PAT, read/write)",
            "learned the rate-limit fix: runners log in with PAT «v» before pulling.",
        ],
    )
    add(
        "twilio_auth_token",
        lambda r: {"sid": "AC" + _hex(r, 32), "v": _hex(r, 32)},
        [
            "Twilio SMS for appointment reminders: account SID «sid», auth token «v».",
            "TWILIO_ACCOUNT_SID=«sid»\nTWILIO_AUTH_TOKEN=«v»",
        ],
    )
    add(
        "sendgrid_api_key",
        lambda r: {"v": "SG." + _s(r, 22, URLSAFE) + "." + _s(r, 43, URLSAFE)},
        [
            "SendGrid key for transactional mail: «v» (full access — user will scope it "
            "down later).",
            "corrected: SENDGRID_API_KEY is «v», the old one was deleted.",
        ],
    )
    add(
        "bearer_jwt_access_token",
        lambda r: {
            "v": _jwt(
                r,
                {"alg": "RS256", "typ": "JWT", "kid": _hex(r, 8)},
                {
                    "sub": _uuid(r),
                    "scope": "admin:all",
                    "iat": 1796000000,
                    "exp": 1827536000,
                },
            )
        },
        [
            "Admin API token the user minted (valid 1 year) for the migration script:\n"
            "Authorization: Bearer «v»",
            "curl -H 'Authorization: Bearer «v»' https://api.internal/v2/tenants  "
            "(service token, long-lived)",
        ],
    )
    add(
        "session_cookie",
        lambda r: {"v": _s(r, 32, string.ascii_lowercase + string.digits)},
        [
            "To scrape the vendor portal I reuse the user's logged-in session: "
            "Cookie: sessionid=«v»",
            "Playwright storageState had sessionid «v» for the staff account; it "
            "stays valid for two weeks.",
        ],
    )
    add(
        "django_secret_key",
        lambda r: {"v": _s(r, 50, string.ascii_lowercase + string.digits + "!@#$%^&*(-_=+)")},
        [
            "prod settings: SECRET_KEY = '«v»'",
            "learned: the SECRET_KEY in prod is «v» — rotating it logs everyone out.",
        ],
    )
    add(
        "rails_master_key",
        lambda r: {"v": _hex(r, 32)},
        [
            "config/master.key for the booking app is «v» — needed to edit credentials.yml.enc.",
            "RAILS_MASTER_KEY=«v» is set in Render's env for production.",
        ],
    )
    add(
        "jwt_hmac_secret",
        lambda r: {"v": _b64(r, 48)},
        [
            "JWT_SECRET (HS256) used by api-gateway and auth-svc: «v»",
            "decision: keep the shared HMAC secret «v» in both services until we move to RS256.",
        ],
    )
    add(
        "home_assistant_token",
        lambda r: {
            "v": _jwt(
                r,
                {"alg": "HS256", "typ": "JWT"},
                {"iss": _hex(r, 32), "iat": 1790000000, "exp": 2105360000},
            )
        },
        [
            "HA long-lived access token for Node-RED: «v»",
            "Grafana → Home Assistant datasource uses token «v» (created 'grafana').",
        ],
    )
    add(
        "telegram_bot_token",
        lambda r: {"v": f"{_digits(r, 10)}:AA{_s(r, 33, URLSAFE)}"},
        [
            "Telegram bot @nas_watch_bot token: «v» — sends SMART warnings.",
            "tg notify: curl https://api.telegram.org/bot«v»/sendMessage -d chat_id=… ",
        ],
    )
    add(
        "cloudflare_api_token",
        lambda r: {"v": _s(r, 40, URLSAFE)},
        [
            "Cloudflare API token (Zone.DNS edit) for certbot dns-01: dns_cloudflare_api_token = «v»",
            "caddy-dns/cloudflare reads CF_API_TOKEN=«v» on the homelab VM.",
        ],
    )
    add(
        "digitalocean_token",
        lambda r: {"v": "dop_v1_" + _hex(r, 64)},
        [
            "doctl auth init --access-token «v»",
            "terraform digitalocean provider token = «v» (user's personal team)",
        ],
    )
    add(
        "heroku_api_key",
        lambda r: {"v": _uuid(r)},
        [
            "HEROKU_API_KEY=«v» — the user's own account key, used by the GitHub Action deploy.",
            "heroku auth:token printed «v»; I put it in the CI settings as asked.",
        ],
    )
    add(
        "azure_storage_connection_string",
        lambda r: {"v": _b64(r, 64)},
        [
            "AZURE_STORAGE_CONNECTION_STRING=DefaultEndpointsProtocol=https;"
            "AccountName=acmeinvoices;AccountKey=«v»;EndpointSuffix=core.windows.net",
            "Storage account key1 for blob backups: «v»",
        ],
    )
    add(
        "azure_client_secret",
        lambda r: {
            "v": _s(r, 3) + "8Q~" + _s(r, 34, A62 + "._~-"),
            "app": _uuid(r),
        },
        [
            "Entra app registration (client id «app»), client secret «v».",
            "AZURE_CLIENT_SECRET=«v» for the terraform SP.",
        ],
    )
    add(
        "vault_token",
        lambda r: {"v": "hvs." + _s(r, 90, URLSAFE)},
        [
            "export VAULT_TOKEN=«v»  # root-ish token, user said it's the ops one",
            "vault login printed token «v»; it has no TTL.",
        ],
    )
    add(
        "terraform_cloud_token",
        lambda r: {"v": _s(r, 14) + ".atlasv1." + _s(r, 67)},
        [
            '~/.terraform.d/credentials.tfrc.json: {"credentials": {"app.terraform.io": '
            '{"token": "«v»"}}}',
            "TF_TOKEN_app_terraform_io=«v» in the runner env.",
        ],
    )
    add(
        "bip39_seed_phrase",
        lambda r: {"v": " ".join(r.choice(BIP39) for _ in range(12))},
        [
            "User's hardware wallet recovery phrase (he asked me to keep it for the "
            "restore test): «v»",
            "test wallet for the dApp is the funded mainnet one, mnemonic:\n«v»",
        ],
    )
    add(
        "eth_private_key",
        lambda r: {"v": "0x" + _hex(r, 64)},
        [
            "hardhat.config: deployer PRIVATE_KEY=«v» (mainnet deployer, holds ETH for gas).",
            "the relayer wallet signs with private key «v»",
        ],
    )
    add(
        "basic_auth_in_url",
        lambda r: {"v": _pw(r)},
        [
            "Internal Nexus: https://deploy:«v»@nexus.acme.lan/repository/maven-releases/",
            "pip extra index: https://ci:«v»@pypi.acme.internal/simple",
        ],
    )
    add(
        "kubeadm_bootstrap_token",
        lambda r: {
            "v": _s(r, 6, string.ascii_lowercase + string.digits)
            + "."
            + _s(r, 16, string.ascii_lowercase + string.digits)
        },
        [
            "join workers: kubeadm join 10.0.0.10:6443 --token «v» "
            "--discovery-token-ca-cert-hash sha256:… (token has ttl 0)",
        ],
    )
    add(
        "k8s_secret_base64_value",
        lambda r: {"v": base64.b64encode(_pw(r).encode()).decode()},
        [
            "applied this to the cluster:\nkind: Secret\ndata:\n  DB_PASSWORD: «v»",
            "learned: `kubectl get secret pg -o yaml` shows password: «v» (base64 of the "
            "real one).",
        ],
    )
    add(
        "age_secret_key",
        lambda r: {"v": "AGE-SECRET-KEY-1" + _s(r, 58, BECH32.upper())},
        [
            "sops age identity for the homelab repo (~/.config/sops/age/keys.txt): «v»",
        ],
    )
    add(
        "wireguard_private_key",
        lambda r: {"v": _b64(r, 32)},
        [
            "wg0.conf on the VPS:\n[Interface]\nPrivateKey = «v»\nListenPort = 51820",
            "Phone peer private key (user asked me to make the QR): «v»",
        ],
    )
    add(
        "mqtt_password",
        lambda r: {"v": _pw(r)},
        [
            "Mosquitto user 'zigbee2mqtt' password «v», broker at 192.168.1.20:1883.",
            "Tasmota plugs: MqttPassword «v» (set via console Backlog).",
        ],
    )
    add(
        "rtsp_camera_credentials",
        lambda r: {"v": _pw(r), "ip": _ip(r)},
        [
            "Frigate camera input: rtsp://admin:«v»@«ip»:554/Streaming/Channels/101",
            "Reolink doorbell login admin / «v»",
        ],
    )
    add(
        "sudo_password",
        lambda r: {"v": _pw(r)},
        [
            "user told me their sudo password on the workstation is «v» so I can run "
            "apt without asking.",
            "ansible_become_password: «v»  # media server",
        ],
    )
    add(
        "ldap_bind_password",
        lambda r: {"v": _pw(r)},
        [
            "Gitea LDAP source: bind DN cn=svc-gitea,ou=svc,dc=acme,dc=lan, bind password «v».",
            "LDAP_BIND_PW=«v» (FreeIPA service account for Nextcloud)",
        ],
    )
    add(
        "shopify_admin_token",
        lambda r: {"v": "shpat_" + _hex(r, 32)},
        [
            "Shopify custom app admin API token for the inventory sync: «v»",
            "X-Shopify-Access-Token: «v»  (store acme-tea.myshopify.com)",
        ],
    )
    add(
        "mailgun_api_key",
        lambda r: {"v": "key-" + _hex(r, 32)},
        [
            "Mailgun private API key: «v» (domain mg.acme.io)",
        ],
    )
    add(
        "datadog_api_key",
        lambda r: {"v": _hex(r, 32), "app": _hex(r, 40)},
        [
            "Datadog agent: DD_API_KEY=«v», app key «app» for the monitors script.",
            "datadog.yaml api_key: «v»",
        ],
    )
    add(
        "sentry_auth_token",
        lambda r: {
            "v": "sntrys_"
            + _b64url(
                json.dumps({"iat": 1790000000, "org": "acme", "url": "https://sentry.io"}).encode()
            )
            + "_"
            + _s(r, 43, URLSAFE)
        },
        [
            "SENTRY_AUTH_TOKEN=«v» (org token, for uploading source maps)",
        ],
    )
    add(
        "linear_api_key",
        lambda r: {"v": "lin_api_" + _s(r, 40)},
        [
            "Linear personal API key for the triage script: «v»",
        ],
    )
    add(
        "notion_token",
        lambda r: {"v": "ntn_" + _digits(r, 11) + _s(r, 35)},
        [
            "Notion integration 'docs-sync' internal secret: «v»",
            "NOTION_TOKEN=«v» — shared with the meeting-notes bot.",
        ],
    )
    add(
        "huggingface_token",
        lambda r: {"v": "hf_" + _s(r, 34)},
        [
            "huggingface-cli login --token «v»  (write token, org acme-ml)",
            "HF_TOKEN=«v» needed to pull the gated model in the training container.",
        ],
    )

    def supa(r):
        ref = _s(r, 20, string.ascii_lowercase)
        v = _jwt(
            r,
            {"alg": "HS256", "typ": "JWT"},
            {
                "iss": "supabase",
                "ref": ref,
                "role": "service_role",
                "iat": 1760000000,
                "exp": 2075576000,
            },
        )
        return {"v": v, "ref": ref}

    add(
        "supabase_service_role_key",
        supa,
        [
            "Edge function admin client uses SUPABASE_SERVICE_ROLE_KEY=«v» "
            "(project «ref»; bypasses RLS, never ship to the browser).",
            "corrected: the cron worker must use the service_role key «v», not anon.",
        ],
    )
    add(
        "pgpass_line",
        lambda r: {"v": _pw(r)},
        [
            "~/.pgpass on the backup host:\ndb.internal:5432:*:backup:«v»",
        ],
    )
    add(
        "netrc_password",
        lambda r: {"v": _pw(r)},
        [
            "~/.netrc: machine artifactory.acme.lan login ci password «v»",
            "Go private modules: machine git.acme.lan login bot password «v» in ~/.netrc",
        ],
    )
    add(
        "totp_seed",
        lambda r: {"v": _s(r, 32, B32)},
        [
            "2FA for the shared ops AWS root: otpauth://totp/AWS:root@acme?secret=«v»&issuer=AWS",
            "TOTP secret for the registrar account (user wants me to generate codes): «v»",
        ],
    )
    add(
        "recovery_codes",
        lambda r: {
            "v": "\n".join(
                f"{_s(r, 5, string.ascii_lowercase + string.digits)}-"
                f"{_s(r, 5, string.ascii_lowercase + string.digits)}"
                for _ in range(4)
            )
        },
        [
            "GitHub recovery codes for the org owner account (unused):\n«v»",
        ],
    )
    add(
        "snmp_community",
        lambda r: {"v": r.choice(WORDS) + _s(r, 6) + r.choice(WORDS)},
        [
            "LibreNMS polls the switches with SNMPv2c community «v» (read-write on the core switch!).",
        ],
    )
    add(
        "tailscale_auth_key",
        lambda r: {"v": "tskey-auth-k" + _s(r, 11) + "-" + _s(r, 32)},
        [
            "tailscale up --authkey=«v» --advertise-exit-node  (reusable key, no expiry)",
            "TS_AUTHKEY=«v» in the docker sidecar.",
        ],
    )
    add(
        "ngrok_authtoken",
        lambda r: {"v": "2" + _s(r, 26) + "_" + _s(r, 21)},
        [
            "ngrok config add-authtoken «v»",
        ],
    )
    add(
        "okta_api_token",
        lambda r: {"v": "00" + _s(r, 40, URLSAFE)},
        [
            "Okta SSWS token for the SCIM sync: Authorization: SSWS «v»",
        ],
    )
    add(
        "atlassian_api_token",
        lambda r: {"v": "ATATT3xFfGF0" + _s(r, 170, URLSAFE) + "=" + _hex(r, 8).upper()},
        [
            "Jira API token (user's account) for the release-notes script: «v»",
        ],
    )
    add(
        "figma_token",
        lambda r: {"v": "figd_" + _s(r, 40, URLSAFE)},
        [
            "Figma PAT for the design-token export: FIGMA_TOKEN=«v»",
        ],
    )
    add(
        "postman_api_key",
        lambda r: {"v": f"PMAK-{_hex(r, 24)}-{_hex(r, 34)}"},
        [
            "Newman CI run uses the Postman API key «v» to fetch collections.",
        ],
    )
    add(
        "grafana_service_account_token",
        lambda r: {"v": f"glsa_{_s(r, 32)}_{_hex(r, 8)}"},
        [
            "Grafana SA token (Admin role) used by the dashboard provisioning job: «v»",
        ],
    )
    add(
        "doppler_token",
        lambda r: {"v": "dp.st.prd." + _s(r, 43)},
        [
            "Doppler service token for prd config: DOPPLER_TOKEN=«v»",
        ],
    )
    add(
        "plex_token",
        lambda r: {"v": _s(r, 20, URLSAFE)},
        [
            "Tautulli needs X-Plex-Token=«v» (pulled from Preferences.xml).",
        ],
    )
    add(
        "onepassword_service_account_token",
        lambda r: {
            "v": "ops_"
            + _b64url(
                json.dumps(
                    {
                        "signInAddress": "acme.1password.com",
                        "email": _s(r, 12, string.ascii_lowercase)
                        + "@1passwordserviceaccounts.com",
                        "secretKey": "A3-" + _s(r, 6, B32),
                        "srpX": _hex(r, 64),
                    }
                ).encode()
            )
        },
        [
            "CI reads vault items via OP_SERVICE_ACCOUNT_TOKEN=«v»",
        ],
    )
    add(
        "password_manager_master_password",
        lambda r: {"v": "-".join(r.sample(WORDS, 5))},
        [
            "User's Bitwarden master password (he asked me to remember it for the migration): «v»",
            "KeePassXC database office.kdbx opens with «v»",
        ],
    )
    add(
        "mapbox_secret_token",
        lambda r: {
            "v": "sk."
            + _b64url(
                json.dumps(
                    {"u": "acmemaps", "a": _s(r, 25, string.ascii_lowercase + string.digits)}
                ).encode()
            )
            + "."
            + _s(r, 22, URLSAFE)
        },
        [
            "Mapbox SECRET token (styles:write, downloads:read) for the tile upload job: «v»",
        ],
    )
    add(
        "algolia_admin_key",
        lambda r: {"v": _hex(r, 32), "app": _s(r, 10, string.ascii_uppercase + string.digits)},
        [
            "Algolia app «app», ADMIN api key «v» — indexer only, never in the frontend.",
        ],
    )
    add(
        "fcm_server_key",
        lambda r: {"v": "AAAA" + _s(r, 7, URLSAFE) + ":APA91b" + _s(r, 134, URLSAFE)},
        [
            "Legacy FCM server key the push service still uses: «v»",
        ],
    )
    add(
        "zigbee_network_key",
        lambda r: {"v": "[" + ", ".join(str(r.randrange(256)) for _ in range(16)) + "]"},
        [
            "zigbee2mqtt configuration.yaml advanced.network_key: «v» — needed if the "
            "coordinator is replaced.",
        ],
    )
    add(
        "azure_devops_pat",
        lambda r: {"v": _s(r, 52, string.ascii_lowercase + "234567")},
        [
            "Azure DevOps PAT for the NuGet feed (Packaging read): «v»",
            "git clone https://build:«v»@dev.azure.com/acme/erp/_git/erp",
        ],
    )
    add(
        "paypal_client_secret",
        lambda r: {"cid": "A" + _s(r, 79, URLSAFE), "v": "E" + _s(r, 79, URLSAFE)},
        [
            "PayPal live REST app: client id «cid»\nsecret «v»",
        ],
    )
    add(
        "basic_auth_header",
        lambda r: {"v": base64.b64encode(f"admin:{_pw(r)}".encode()).decode()},
        [
            "Traefik dashboard works with -H 'Authorization: Basic «v»'",
            "the ERP API wants Authorization: Basic «v» (the integration user).",
        ],
    )
    add(
        "vnc_password",
        lambda r: {"v": _s(r, 8, A62 + "!#")},
        [
            "Mum's PC: TightVNC password «v», reachable over Tailscale.",
        ],
    )
    add(
        "openwrt_root_password",
        lambda r: {"v": _pw(r)},
        [
            "OpenWrt (GL.iNet Flint) root password «v»; ssh root@192.168.8.1.",
            "UniFi controller local admin: ubnt-admin / «v»",
        ],
    )
    add(
        "ansible_vault_password",
        lambda r: {"v": _pw(r)},
        [
            "The vault password file ~/.vault_pass contains «v» (used for group_vars/all/vault.yml).",
        ],
    )

    add(
        "wpa_supplicant_psk_hex",
        lambda r: {"v": _hex(r, 64)},
        [
            'Headless Pi Wi-Fi: wpa_supplicant.conf network={ ssid="Gartenhaus" psk=«v» } (output of wpa_passphrase).',
        ],
    )
    add(
        "docker_config_auth",
        lambda r: {"v": base64.b64encode(f"ci-bot:{_pw(r)}".encode()).decode()},
        [
            '~/.docker/config.json on the runner: {"auths": {"registry.acme.lan": {"auth": "«v»"}}}',
            "learned that the Harbor robot login is stored as auth «v» in the CI docker config.",
        ],
    )
    add(
        "kubeconfig_client_key",
        lambda r: {
            "v": base64.b64encode(
                (
                    "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEI"
                    + _b64(r, 90)
                    + "\n-----END EC PRIVATE KEY-----\n"
                ).encode()
            ).decode()
        },
        [
            "k3s admin kubeconfig user section: client-key-data: «v»",
        ],
    )
    return S


# ---------------------------------------------------------------- benign kinds


def _benign_specs() -> list[tuple[str, object, list[str]]]:
    B: list[tuple[str, object, list[str]]] = []

    def add(kind, gen, tpls):
        B.append((kind, gen, tpls))

    add(
        "aws_docs_example_pair",
        lambda r: {"id": "AKIAIOSFODNN7EXAMPLE", "v": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"},
        [
            "The credentials-parser tests use AWS's documentation pair «id» / «v»; "
            "it is the published example from the AWS docs, not an account key.",
            "README snippet (copied from the AWS CLI guide, example values only):\n"
            "[default]\naws_access_key_id = «id»\naws_secret_access_key = «v»",
        ],
    )
    add(
        "aws_iam_role_arn",
        lambda r: {"v": f"arn:aws:iam::{_digits(r, 12)}:role/gha-deploy"},
        [
            "GitHub Actions deploys via OIDC, no stored keys: role-to-assume: «v»",
            "learned: the prod account's deploy role is «v»; trust policy limits it to "
            "repo:acme/web:ref:refs/heads/main.",
            "corrected: assume «v» with `aws sts assume-role`, don't create IAM users.",
        ],
    )
    add(
        "secretsmanager_arn",
        lambda r: {
            "v": f"arn:aws:secretsmanager:eu-west-1:{_digits(r, 12)}:secret:prod/db/app-{_s(r, 6)}"
        },
        [
            "The ECS task pulls the DB password from «v» (valueFrom); nothing in the task def.",
            "Decision: rotation lambda targets «v», 30-day schedule.",
        ],
    )
    add(
        "git_commit_sha",
        lambda r: {"v": _hex(r, 40)},
        [
            'The regression came in with «v» ("switch token refresh to axios interceptor").',
            "pinned actions/checkout to «v» instead of @v4, per the supply-chain policy.",
            "Bisected: last good commit for the firmware OTA is «v».",
        ],
    )
    add(
        "sha256_checksum",
        lambda r: {"v": _hex(r, 64)},
        [
            "k3s v1.31 installer checksum verified: «v»  k3s-airgap-images-amd64.tar.zst",
            "HAOS image for the Pi: sha256 «v» matched the release page.",
            "learned that the vendor's 'secret' build hash is just sha256 of the tarball: «v».",
        ],
    )
    add(
        "docker_image_digest",
        lambda r: {"v": "sha256:" + _hex(r, 64)},
        [
            "Pin vaultwarden to ghcr.io/dani-garcia/vaultwarden@«v» until the 1.33 login bug is fixed.",
            "compose now uses postgres@«v» (digest pin, renovate updates it).",
        ],
    )
    add(
        "request_uuid",
        lambda r: {"v": _uuid(r)},
        [
            "The 401 from the auth service had x-request-id «v»; logs show the token was expired, "
            "not malformed.",
            "Support ticket with Hetzner references incident «v».",
            "Sentry event «v» is the NAS webhook timeout, not an auth issue.",
        ],
    )
    add(
        "stripe_publishable_key",
        lambda r: {"v": "pk_live_" + _s(r, 99)},
        [
            "Frontend needs the PUBLISHABLE key only: NEXT_PUBLIC_STRIPE_KEY=«v» (safe in the bundle).",
            "checkout.js loads Stripe('«v»'); that's the pk_, designed to be public.",
        ],
    )
    add(
        "mapbox_public_token",
        lambda r: {
            "v": "pk."
            + _b64url(
                json.dumps(
                    {"u": "acmemaps", "a": _s(r, 25, string.ascii_lowercase + string.digits)}
                ).encode()
            )
            + "."
            + _s(r, 22, URLSAFE)
        },
        [
            "Map widget uses the public Mapbox token «v» (URL-restricted to shop.acme.io).",
            "mapboxgl.accessToken = '«v»' is a pk. token — fine in client code.",
        ],
    )
    add(
        "firebase_web_config_key",
        lambda r: {
            "v": "AIza" + _s(r, 35, URLSAFE),
            "p": r.choice(["acme-web-7c1", "tea-shop-22"]),
        },
        [
            "Firebase web config in src/firebase.ts: apiKey «v», projectId «p». This apiKey is a "
            "public identifier shipped to every browser; access is enforced by security rules and App Check.",
            "learned: the AIza string in the Firebase web snippet («v») is not a secret; "
            "Google documents it as safe to include in client code.",
        ],
    )
    add(
        "ssh_public_key",
        lambda r: {"v": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + _s(r, 43, A62 + "+/")},
        [
            "Added the user's laptop key to authorized_keys on the NAS: «v» jana@thinkpad",
            "deploy key (public half) registered on GitHub: «v» deploy@stg",
            "cloud-init ssh_authorized_keys:\n  - «v» ops@acme",
        ],
    )
    add(
        "ssh_host_fingerprint",
        lambda r: {"v": "SHA256:" + _s(r, 43, A62 + "+/")},
        [
            "Verified the new VPS host key before trusting it: ED25519 key fingerprint is «v».",
            "If ssh warns again, the pihole host key fingerprint should be «v» (it was re-flashed).",
        ],
    )
    add(
        "pgp_fingerprint",
        lambda r: {"v": " ".join(_hex(r, 4).upper() for _ in range(10))},
        [
            "Release tags are signed; maintainer key fingerprint «v».",
            "apt repo signing key fingerprint (public): «v»",
        ],
    )
    add(
        "age_recipient",
        lambda r: {"v": "age1" + _s(r, 58, BECH32)},
        [
            ".sops.yaml creation_rules: age: «v» (public recipient; private key stays on the user's laptop).",
            "Added the CI recipient «v» so the pipeline can decrypt; identity is in the CI secret store.",
        ],
    )
    add(
        "wireguard_public_key",
        lambda r: {"v": _b64(r, 32)},
        [
            "[Peer] for the phone: PublicKey = «v», AllowedIPs = 10.8.0.3/32",
            "The VPS's wg public key is «v»; the private key never left the server.",
        ],
    )
    add(
        "onepassword_reference",
        lambda r: {
            "v": r.choice(
                [
                    "op://Homelab/Synology/password",
                    "op://Prod/Stripe/secret key",
                    "op://Private/Router/admin",
                ]
            )
        },
        [
            ".env.tpl uses references only: STRIPE_SECRET_KEY=«v»; run with `op run --env-file .env.tpl -- npm start`.",
            "convention: never paste values, reference «v» and let op inject it.",
        ],
    )
    add(
        "env_var_reference",
        lambda r: {
            "v": r.choice(
                [
                    "${DATABASE_PASSWORD}",
                    "$env:GITHUB_TOKEN",
                    "process.env.OPENAI_API_KEY",
                    "os.environ['SMTP_PASS']",
                ]
            )
        },
        [
            "docker-compose passes the password as «v» from the host env — nothing is committed.",
            "corrected: read the token via «v», don't hardcode it in the script.",
            "The settings loader resolves «v» at startup and fails fast if it's empty.",
        ],
    )
    add(
        "k8s_secret_key_ref",
        lambda r: {"v": "secretKeyRef: {name: pg-app, key: password}"},
        [
            "Deployment env DB_PASSWORD uses valueFrom.«v»; the Secret itself is created by external-secrets.",
        ],
    )
    add(
        "redacted_value",
        lambda r: {
            "v": r.choice(
                [
                    "sk_live_" + "*" * 20 + _s(r, 4),
                    "ghp_" + "•" * 12 + _s(r, 4),
                    "xoxb-****-****-" + "*" * 8,
                ]
            )
        },
        [
            "The leaked log line showed «v» — redacted by our logger, so no rotation needed.",
            "Dashboard lists the key as «v»; full value was only shown once at creation.",
        ],
    )
    add(
        "placeholder_value",
        lambda r: {
            "v": r.choice(
                [
                    "sk-proj-REPLACE_ME",
                    "<your-github-token>",
                    "xxxxxxxxxxxxxxxxxxxxxxxx",
                    "changeme-in-.env.local",
                    "YOUR_API_KEY_HERE",
                ]
            )
        },
        [
            ".env.example now has OPENAI_API_KEY=«v» so new devs know the var name.",
            "docs snippet: `export GITHUB_TOKEN=«v»` — placeholder, user fills their own.",
            "Template config.yaml ships with api_key: «v» and the app refuses to start until it's replaced.",
        ],
    )
    add(
        "revoked_token",
        lambda r: {"v": "ghp_" + _s(r, 36)},
        [
            "Incident closed: «v» was committed in a3f9e1 and has been revoked (GitHub shows it deleted, "
            "audit log confirms). Kept here only to recognise it in old logs.",
            "The token «v» from the old CI is dead: revoked 2026-10-02, the account was removed from the org.",
        ],
    )
    add(
        "bcrypt_hash",
        lambda r: {"v": "$2b$12$" + _s(r, 53, A62 + "./")},
        [
            "Seed admin user in fixtures/users.json has password_hash «v» (bcrypt, cost 12).",
            "htpasswd entry for the Traefik dashboard stores only the bcrypt hash: admin:«v»",
        ],
    )
    add(
        "argon2_hash",
        lambda r: {
            "v": f"$argon2id$v=19$m=65536,t=3,p=4${_b64(r, 16).rstrip('=')}${_b64(r, 32).rstrip('=')}"
        },
        [
            "Vaultwarden ADMIN_TOKEN is now an Argon2 PHC string: «v» (hash, not the token).",
            "Authelia users_database.yml: password: «v»",
        ],
    )
    add(
        "sri_integrity_hash",
        lambda r: {"v": "sha384-" + _b64(r, 48)},
        [
            'CDN script tag now has integrity="«v»" crossorigin="anonymous".',
            "package-lock resolved lodash with integrity «v» — unchanged after npm ci.",
        ],
    )
    add(
        "jwt_io_example",
        lambda r: {
            "v": "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
        },
        [
            "The middleware unit test uses the jwt.io sample token «v» (John Doe, signed with 'your-256-bit-secret').",
        ],
    )
    add(
        "jwt_decoded_claims",
        lambda r: {"v": json.dumps({"sub": _uuid(r), "role": "admin", "exp": 1767225600})},
        [
            "Decoded payload of the failing token (no signature kept): «v» — exp is in the past, "
            "so the refresh path is broken, not the key.",
        ],
    )
    add(
        "music_key",
        lambda r: {"v": r.choice(["F# minor", "B-flat major", "D dorian"])},
        [
            "The ringtone generator app: user wants the default song key set to «v», tempo 96.",
            "Piano-roll component: the 'key' prop is the musical key («v»), not a React key.",
        ],
    )
    add(
        "keyboard_key",
        lambda r: {"v": r.choice(["Ctrl+Shift+P", "Cmd+K Cmd+S", "Super+Alt+T"])},
        [
            "User's convention: the command palette is bound to «v»; don't remap it in the keybindings.json.",
            "Dev builds only: the 'secret' debug overlay toggles with «v»; release builds strip it.",
        ],
    )
    add(
        "cache_key_name",
        lambda r: {"v": f"session:{_uuid(r)}:refresh"},
        [
            "Redis key layout: «v» holds a pointer (user id + expiry), the token value itself is hashed.",
            "learned: primary key of api_keys table is id (bigint); lookup key format is «v».",
        ],
    )
    add(
        "llm_token_count",
        lambda r: {"v": f"{r.randint(120, 900)}k tokens"},
        [
            "The repo dump is ~«v», too big for one prompt; chunk by package.",
            "Gemini CLI session hit «v» before compaction; note: summarise earlier.",
        ],
    )
    add(
        "lexer_token",
        lambda r: {"v": "TOKEN_IDENT"},
        [
            "The DSL lexer emits «v» for bare words; the parser expects a TOKEN_STRING after 'password ='.",
        ],
    )
    add(
        "csrf_config_name",
        lambda r: {"v": "CSRF_COOKIE_NAME = 'csrftoken'"},
        [
            "Django settings: «v» and SESSION_COOKIE_SECURE = True; the SPA reads the cookie name, "
            "not a value.",
        ],
    )
    add(
        "secret_other_sense",
        lambda r: {"v": "secret-santa-2026"},
        [
            "Office app feature branch «v»: draw names, email each person their match. No auth changes.",
            "User's preference: the word 'secret' in UI copy → 'private' (e.g. «v» renamed gift-swap).",
        ],
    )
    add(
        "password_policy",
        lambda r: {"v": "min 14 chars, 1 symbol, no reuse of last 5"},
        [
            "Password policy for the staff portal: «v»; enforced in validators.py.",
            "Decision: Synology accounts follow «v», 2FA mandatory for admins.",
        ],
    )
    add(
        "wifi_ssid_pointer",
        lambda r: {"v": r.choice(["Nebula5G", "ACME-Guest", "FritzBox-Keller"])},
        [
            "New ESP32 sensors join «v»; the Wi-Fi passphrase is in secrets.yaml (gitignored), not here.",
            "Guest network «v» — the printed card on the fridge has the password; don't store it.",
        ],
    )
    add(
        "network_identifiers",
        lambda r: {"v": ":".join(_hex(r, 2) for _ in range(6))},
        [
            "DHCP reservation for the printer: MAC «v» → 192.168.1.40.",
            "Wake-on-LAN for the gaming PC: wakeonlan «v»",
        ],
    )
    add(
        "device_serial",
        lambda r: {"v": _s(r, 4, string.digits) + "PDN" + _s(r, 6, string.digits)},
        [
            "Synology serial «v», warranty until 2028; RMA portal needs it.",
        ],
    )
    add(
        "sentry_dsn",
        lambda r: {"v": f"https://{_hex(r, 32)}@o{_digits(r, 6)}.ingest.sentry.io/{_digits(r, 7)}"},
        [
            "Browser SDK init uses dsn «v»; the DSN is public by design (it only allows sending events).",
        ],
    )
    add(
        "analytics_id",
        lambda r: {"v": "G-" + _s(r, 10, string.ascii_uppercase + string.digits)},
        [
            "GA4 measurement id for the bakery site: «v» (in the <head> snippet).",
            "Plausible replaced GA; the old tag «v» can be removed from layout.html.",
        ],
    )
    add(
        "stripe_object_ids",
        lambda r: {"v": "cus_" + _s(r, 14), "p": "price_" + _s(r, 24)},
        [
            "Test fixture customer «v» subscribed to «p» reproduces the proration bug.",
            "Support case: refund for customer «v», not the whole subscription.",
        ],
    )
    add(
        "slack_ids",
        lambda r: {
            "v": "C0" + _s(r, 9, string.ascii_uppercase + string.digits),
            "t": "T0" + _s(r, 8, string.ascii_uppercase + string.digits),
        },
        [
            "Alerts post to channel «v» in workspace «t»; bot token comes from SLACK_BOT_TOKEN in the vault.",
        ],
    )
    add(
        "github_app_ids",
        lambda r: {"v": _digits(r, 6), "i": _digits(r, 8)},
        [
            "GitHub App 'acme-release' app_id «v», installation_id «i»; private key is in the vault "
            "at gh-app/acme-release.",
        ],
    )
    add(
        "oauth_client_id",
        lambda r: {
            "v": f"{_digits(r, 12)}-{_s(r, 32, string.ascii_lowercase + string.digits)}.apps.googleusercontent.com"
        },
        [
            "Google sign-in client_id «v» (public, in the login page); the client secret is only in the backend env.",
            "learned: PKCE flow for the desktop app uses client id «v» with no secret at all.",
        ],
    )
    add(
        "algolia_search_key",
        lambda r: {"v": _hex(r, 32), "app": _s(r, 10, string.ascii_uppercase + string.digits)},
        [
            "Docs search: Algolia app «app» with the SEARCH-ONLY key «v»; it's meant to be public in the frontend.",
        ],
    )

    def supa_anon(r):
        ref = _s(r, 20, string.ascii_lowercase)
        v = _jwt(
            r,
            {"alg": "HS256", "typ": "JWT"},
            {"iss": "supabase", "ref": ref, "role": "anon", "iat": 1760000000, "exp": 2075576000},
        )
        return {"v": v, "ref": ref}

    add(
        "supabase_anon_key",
        supa_anon,
        [
            "Client-side Supabase uses the anon key «v» (role anon, project «ref»); RLS policies do the real protection.",
            "corrected: NEXT_PUBLIC_SUPABASE_ANON_KEY=«v» is fine to expose; the service_role key is the one to hide.",
        ],
    )
    add(
        "eth_address",
        lambda r: {"v": "0x" + _hex(r, 40)},
        [
            "Donation address on the site: «v» (public address, receive only).",
            "Contract deployed at «v» on Sepolia; verify on Etherscan.",
        ],
    )
    add(
        "btc_address",
        lambda r: {"v": "bc1q" + _s(r, 38, BECH32)},
        [
            "Tip jar BTC address: «v»; user wants it in the footer.",
        ],
    )
    add(
        "cloudflare_zone_id",
        lambda r: {"v": _hex(r, 32), "a": _hex(r, 32)},
        [
            "terraform: cloudflare zone_id «v», account_id «a» (ids, not credentials; token comes from CLOUDFLARE_API_TOKEN).",
            "Purge cache via the API needs zone id «v»" + " plus the token from the vault.",
        ],
    )
    add(
        "container_id",
        lambda r: {"v": _hex(r, 64)},
        [
            "The OOM-killed container was «v» (immich-ml); raised the memory limit.",
        ],
    )
    add(
        "public_key_pem",
        lambda r: {
            "v": "-----BEGIN PUBLIC KEY-----\n"
            + "\n".join(_pem_lines(r, "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA", 4))
            + "\n-----END PUBLIC KEY-----"
        },
        [
            "JWKS fallback: verifier accepts this RS256 public key:\n«v»",
        ],
    )
    add(
        "certificate_pem",
        lambda r: {
            "v": "-----BEGIN CERTIFICATE-----\n"
            + "\n".join(_pem_lines(r, "MIIDdzCCAl+gAwIBAgIU", 4))
            + "\n-----END CERTIFICATE-----"
        },
        [
            "Home CA root cert (public, installed on all devices):\n«v»",
        ],
    )
    add(
        "sops_ciphertext",
        lambda r: {
            "v": f"ENC[AES256_GCM,data:{_b64(r, 24)},iv:{_b64(r, 32)},tag:{_b64(r, 16)},type:str]"
        },
        [
            "secrets.enc.yaml is safe to commit: db_password: «v» (decrypts only with the age identity).",
            "sops shows smtp_pass: «v» in the repo; decrypt with `sops -d`.",
        ],
    )
    add(
        "ansible_vault_ciphertext",
        lambda r: {"v": "$ANSIBLE_VAULT;1.1;AES256\n" + "\n".join(_hex(r, 80) for _ in range(3))},
        [
            "group_vars/all/vault.yml is encrypted:\n«v»\n(vault password lives in Bitwarden, not in the repo)",
        ],
    )
    add(
        "sealed_secret_ciphertext",
        lambda r: {"v": "AgB" + _s(r, 180, A62 + "+/")},
        [
            "SealedSecret encryptedData.password: «v» — only the controller in-cluster can decrypt.",
        ],
    )
    add(
        "kms_key_arn",
        lambda r: {"v": f"arn:aws:kms:us-east-1:{_digits(r, 12)}:key/{_uuid(r)}"},
        [
            "S3 bucket default encryption uses KMS key «v».",
            "sops creation rule kms: «v» for prod files.",
        ],
    )
    add(
        "gpg_key_id",
        lambda r: {"v": _hex(r, 16).upper()},
        [
            "git config user.signingkey «v»; commits must be signed on this repo.",
            "pass store initialised with GPG key «v» (the private key is on the YubiKey).",
        ],
    )
    add(
        "twilio_account_sid",
        lambda r: {"v": "AC" + _hex(r, 32)},
        [
            "Twilio account SID «v» (identifier); the auth token is in Doppler as TWILIO_AUTH_TOKEN.",
        ],
    )
    add(
        "tailscale_node_key",
        lambda r: {"v": "nodekey:" + _hex(r, 64)},
        [
            "tailscale status --json shows the NAS as «v»; re-auth changed it, ACLs use tags so nothing to update.",
        ],
    )
    add(
        "zigbee_pan_id",
        lambda r: {
            "v": "0x" + _hex(r, 4).upper(),
            "e": "[" + ", ".join(_hex(r, 2) for _ in range(8)) + "]",
        },
        [
            "zigbee2mqtt: pan_id «v», ext_pan_id «e»; channel 25. (network_key is in secret.yaml, not noted.)",
        ],
    )
    add(
        "key_metadata_last4",
        lambda r: {"v": "…" + _s(r, 4)},
        [
            "OpenAI key in use is the one named 'summarizer-prod' ending «v», created 2026-09-14; value not stored.",
            "npm token list: automation token ending «v», read-write, CIDR unrestricted.",
        ],
    )
    add(
        "webhook_endpoint_url",
        lambda r: {"v": f"https://api.acme.io/webhooks/stripe/{_uuid(r)}"},
        [
            "Our Stripe webhook receiver is «v»; signature check uses the whsec from env.",
        ],
    )
    add(
        "hashed_token_in_db",
        lambda r: {"v": _hex(r, 64)},
        [
            "api_tokens.token_sha256 for the CI token is «v»; we only store the hash and compare on request.",
        ],
    )
    add(
        "secret_generation_code",
        lambda r: {"v": "secrets.token_urlsafe(32)"},
        [
            "Convention: generate new app secrets with python -c 'import secrets; print(«v»)' and put them straight into the vault.",
            "Rotation script calls «v»; it prints nothing and writes to Doppler.",
        ],
    )
    add(
        "rotation_note",
        lambda r: {"v": "STRIPE_SECRET_KEY"},
        [
            "Rotated «v» today after the contractor left; new value set in Render + Doppler, old rolled in the Stripe dashboard.",
            "Reminder: «v» expires on the 1st; rotate via the dashboard, then `doppler secrets set`.",
        ],
    )
    add(
        "env_var_names",
        lambda r: {"v": "AWS_SECRET_ACCESS_KEY"},
        [
            "Required env for the worker: DATABASE_URL, REDIS_URL, «v», SENTRY_DSN. Values come from the ECS task secrets.",
            "learned: boto3 picks up AWS_ACCESS_KEY_ID / «v» before the instance profile, which is why local runs used the wrong account.",
        ],
    )
    add(
        "auth_procedure",
        lambda r: {
            "v": r.choice(
                [
                    "aws sso login --profile prod",
                    "gh auth login --web",
                    "gcloud auth application-default login",
                ]
            )
        },
        [
            "Procedure: run `«v»` first; tokens are cached by the CLI, never copy them into files.",
            "corrected: the user authenticates with «v», not with an access key.",
        ],
    )
    add(
        "password_manager_pointer",
        lambda r: {
            "v": r.choice(
                [
                    "Bitwarden → 'Fritzbox admin'",
                    "1Password item 'NAS nasadmin'",
                    "KeePass entry Office/Printer",
                ]
            )
        },
        [
            "Router admin password: see «v». Don't ask the user to paste it.",
            "Wo das NAS-Passwort liegt: «v».",
        ],
    )
    add(
        "git_lfs_oid",
        lambda r: {"v": "oid sha256:" + _hex(r, 64)},
        [
            "Model weights pointer file: version https://git-lfs.github.com/spec/v1 «v» size 438102993",
        ],
    )
    add(
        "ipfs_cid",
        lambda r: {"v": "bafybei" + _s(r, 52, "abcdefghijklmnopqrstuvwxyz234567")},
        [
            "NFT metadata pinned at ipfs://«v»",
        ],
    )
    add(
        "base64_config_blob",
        lambda r: {
            "v": base64.b64encode(
                json.dumps({"theme": "dark", "lang": "de", "beta": True}).encode()
            ).decode()
        },
        [
            "The 'token' query param in the embed URL is just base64 JSON of UI prefs: «v».",
        ],
    )
    add(
        "webhook_signature_header",
        lambda r: {"v": "sha256=" + _hex(r, 64)},
        [
            "Replayed GitHub delivery had X-Hub-Signature-256: «v»; mismatch was due to re-serialised JSON body.",
        ],
    )
    add(
        "oauth_state_param",
        lambda r: {"v": _s(r, 32, URLSAFE)},
        [
            "Login loop cause: state=«v» in the callback didn't match the cookie because SameSite=Strict dropped it.",
        ],
    )
    add(
        "factory_default_changed",
        lambda r: {"v": "admin/admin"},
        [
            "Printer shipped with the documented factory login «v»; user changed it on day one, new one is in Bitwarden.",
        ],
    )
    add(
        "stripe_test_card",
        lambda r: {"v": "4242 4242 4242 4242"},
        [
            "E2E checkout uses Stripe's test card «v», any future expiry, CVC 123.",
        ],
    )
    add(
        "azure_tenant_ids",
        lambda r: {"v": _uuid(r), "s": _uuid(r)},
        [
            "az login --tenant «v»; subscription «s». Auth is interactive, nothing stored.",
            "ARM_TENANT_ID=«v» and ARM_SUBSCRIPTION_ID=«s» are ids; the client secret is only in the pipeline library.",
        ],
    )
    add(
        "vault_path",
        lambda r: {"v": "secret/data/prod/payments"},
        [
            "External Secrets reads «v» (keys stripe_key, webhook_secret); ask ops for read access.",
        ],
    )
    add(
        "certificate_pin",
        lambda r: {"v": 'pin-sha256="' + _b64(r, 32) + '"'},
        [
            "Mobile app pins the API cert SPKI: «v»; update before renewal.",
        ],
    )
    add(
        "dkim_public_record",
        lambda r: {
            "v": "v=DKIM1; k=rsa; p=MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQ"
            + _s(r, 150, A62 + "+/")
            + "IDAQAB"
        },
        [
            'DNS TXT mail._domainkey.acme.io = "«v»" (public key; private key stays on the mail server).',
        ],
    )
    add(
        "ci_secret_reference",
        lambda r: {"v": "${{ secrets.NPM_TOKEN }}"},
        [
            "release.yml: NODE_AUTH_TOKEN: «v» — the value is only in repo settings.",
            "Decision: all workflows use «v» via env, never echo it.",
        ],
    )
    add(
        "home_assistant_secret_ref",
        lambda r: {"v": "!secret mqtt_password"},
        [
            "configuration.yaml: mqtt password: «v»; the value lives in secrets.yaml which is gitignored.",
        ],
    )
    add(
        "terraform_sensitive_var",
        lambda r: {"v": 'variable "db_password" { sensitive = true }'},
        [
            "variables.tf: «v»; value supplied via TF_VAR_db_password in the workspace.",
        ],
    )

    add(
        "idempotency_key",
        lambda r: {"v": _uuid(r)},
        [
            "Payments retries send Idempotency-Key: «v» per order attempt; the 'key' is just a dedupe id.",
            "learned: Stripe rejected the retry because idempotency key «v» was reused with a different amount.",
        ],
    )
    add(
        "i18n_key",
        lambda r: {
            "v": r.choice(
                [
                    "auth.password.reset_link_sent",
                    "settings.api_token.copy_warning",
                    "login.secret_question.label",
                ]
            )
        },
        [
            "Translation key «v» is missing in de.json; add 'Link wurde gesendet'.",
            "Renamed i18n key to «v» — grep for the old one in templates.",
        ],
    )
    add(
        "launchdarkly_client_side_id",
        lambda r: {"v": _hex(r, 24)},
        [
            "LaunchDarkly clientSideID «v» goes into the SPA (public by design); the server SDK key stays in the backend vault.",
        ],
    )
    add(
        "posthog_project_key",
        lambda r: {"v": "phc_" + _s(r, 43)},
        [
            "posthog.init('«v»', {api_host: 'https://eu.i.posthog.com'}) — project API key is write-only ingest, public.",
            "PostHog project key «v» is fine in the frontend; the personal API key (phx_) is not, and isn't stored.",
        ],
    )
    add(
        "recaptcha_site_key",
        lambda r: {"v": "6L" + _s(r, 38, URLSAFE)},
        [
            "Contact form uses reCAPTCHA v3 site key «v» (public, in the HTML); secret key is in the server env only.",
        ],
    )
    add(
        "vapid_public_key",
        lambda r: {"v": "B" + _s(r, 86, URLSAFE)},
        [
            "Web push: applicationServerKey = «v» (VAPID public key; the private half is in the push worker's env).",
        ],
    )
    add(
        "apple_team_and_key_ids",
        lambda r: {
            "v": _s(r, 10, string.ascii_uppercase + string.digits),
            "k": _s(r, 10, string.ascii_uppercase + string.digits),
        },
        [
            "fastlane Appfile: team_id «v»; the App Store Connect key id is «k», the .p8 itself is in the CI keychain.",
        ],
    )
    add(
        "android_signing_fingerprint",
        lambda r: {"v": ":".join(_hex(r, 2).upper() for _ in range(20))},
        [
            "Registered the release keystore SHA-1 «v» in Firebase for Google Sign-In (public fingerprint).",
            "Play App Signing cert fingerprint is «v»; upload key is different.",
        ],
    )
    add(
        "known_hosts_line",
        lambda r: {"v": "AAAAC3NzaC1lZDI1NTE5AAAAI" + _s(r, 43, A62 + "+/")},
        [
            "Pinned GitLab host key in the CI known_hosts: gitlab.lab.internal ssh-ed25519 «v»",
        ],
    )
    add(
        "auth_error_message",
        lambda r: {"v": 'password authentication failed for user "app"'},
        [
            "Migration failed with «v» — the pod had the old Secret mounted; restart fixed it.",
            "corrected: «v» does not mean the password is wrong here; pg_hba was set to scram and the client used md5.",
        ],
    )
    add(
        "git_pickaxe_search",
        lambda r: {"v": "git log -p -S 'sk_live_'"},
        [
            "Before open-sourcing, I ran «v» and `trufflehog`-style review by hand; only the redacted sample in docs/ matched.",
        ],
    )
    add(
        "w3c_trace_id",
        lambda r: {"v": _hex(r, 32)},
        [
            "traceparent 00-«v»-"
            + "b7ad6b7169203331-01 shows the token refresh took 4s in Keycloak.",
            "Tempo trace «v» covers the slow /login; the bottleneck is bcrypt cost 14.",
        ],
    )
    add(
        "md5_checksum",
        lambda r: {"v": _hex(r, 32)},
        [
            "Firmware blob for the router: md5 «v» matches the vendor page; flash via the recovery UI.",
            "ESP32 OTA manifest lists md5 «v» for build 1.4.2.",
        ],
    )
    add(
        "prefixed_record_id",
        lambda r: {"v": "sess_" + _s(r, 24)},
        [
            "Checkout session object «v» in the logs is an id (retrievable only with the secret key); safe to paste into tickets.",
            "Bug repro: Stripe Checkout «v» completed but the webhook never fired.",
        ],
    )
    add(
        "clerk_publishable_key",
        lambda r: {
            "v": "pk_live_"
            + base64.b64encode(
                b"clerk.acme-" + _s(r, 5, string.ascii_lowercase).encode() + b".io$"
            ).decode()
        },
        [
            "NEXT_PUBLIC_CLERK_PUBLISHABLE_KEY=«v» (public; CLERK_SECRET_KEY is only in Vercel env).",
        ],
    )
    add(
        "kubeconfig_ca_data",
        lambda r: {
            "v": base64.b64encode(
                (
                    "-----BEGIN CERTIFICATE-----\nMIIBdzCCAR2gAwIBAgIB"
                    + _b64(r, 60)
                    + "\n-----END CERTIFICATE-----\n"
                ).encode()
            ).decode()
        },
        [
            "k3s kubeconfig: certificate-authority-data: «v» (cluster CA cert, public). The user auth is via OIDC.",
        ],
    )
    add(
        "pgp_public_key_block",
        lambda r: {
            "v": "-----BEGIN PGP PUBLIC KEY BLOCK-----\n\n"
            + "\n".join(_pem_lines(r, "mDMEZ", 3))
            + "\n-----END PGP PUBLIC KEY BLOCK-----"
        },
        [
            "security.txt Encryption points to this public key:\n«v»",
        ],
    )
    add(
        "csp_nonce",
        lambda r: {"v": "'nonce-" + _b64(r, 16) + "'"},
        [
            "Example response header: script-src «v» 'strict-dynamic'; nonce is per-request, generated in middleware.",
        ],
    )
    add(
        "webpack_chunk_hash",
        lambda r: {"v": "main." + _hex(r, 20) + ".js"},
        [
            "Stale cache bug: browsers still request «v» after deploy; set Cache-Control on index.html.",
        ],
    )
    add(
        "shamir_unseal_note",
        lambda r: {"v": "key shares=5 threshold=3"},
        [
            "Vault was initialised with «v»; each holder keeps their share offline. None of them are recorded here.",
        ],
    )
    add(
        "hibp_prefix",
        lambda r: {"v": _hex(r, 5).upper()},
        [
            "Password check uses HIBP k-anonymity: send only the SHA-1 prefix (e.g. «v») and compare suffixes locally.",
        ],
    )
    add(
        "form_field_markup",
        lambda r: {"v": '<input type="password" name="password" autocomplete="current-password">'},
        [
            "Login form fix: «v» — Safari now offers the saved password.",
        ],
    )
    add(
        "psql_variable_placeholder",
        lambda r: {"v": "ALTER ROLE app WITH PASSWORD :'newpw';"},
        [
            'Rotation runbook: psql -v newpw="$(op read op://Prod/pg-app/password)" -c "«v»" — the value never hits shell history.',
        ],
    )
    add(
        "yubikey_serial",
        lambda r: {"v": _digits(r, 8)},
        [
            "User's YubiKey 5C serial «v» holds the signing subkey; touch required for every commit.",
        ],
    )

    extra = {
        "aws_iam_role_arn": [
            "Home-lab backups: the NAS assumes «v» through IAM Roles Anywhere with its device cert; no static keys on the box.",
        ],
        "git_commit_sha": [
            "user told me the 'secret fix' (their words) is in «v» — a hotfix for the password reset email, nothing sensitive in it.",
        ],
        "sha256_checksum": [
            "Sanity check after restoring the KeePass file: sha256sum office.kdbx = «v» (same as before the move).",
        ],
        "request_uuid": [
            "Nextcloud login throttling: brute-force entries tagged with request id «v» came from the scanner's IP, not an attacker.",
        ],
        "stripe_publishable_key": [
            "corrected: I almost flagged «v» as leaked in the repo; it's the publishable pk_live_, public by design.",
        ],
        "ssh_public_key": [
            "Gitea deploy keys → added «v» ci@runner (read-only).",
        ],
        "wireguard_public_key": [
            "Fritz!Box WireGuard export: peer public key «v»; the private key is in the phone's app only.",
        ],
        "onepassword_reference": [
            "Ansible lookup: password: \"{{ lookup('community.general.onepassword', 'NAS') }}\" replaces the old inline value; CLI path «v».",
        ],
        "env_var_reference": [
            "Convention for the small-biz scripts: mail password comes from «v», set via systemd EnvironmentFile with 0600 perms.",
        ],
        "redacted_value": [
            "the user pasted their token but I replaced it with «v» before saving anything; they'll rotate it anyway.",
        ],
        "placeholder_value": [
            "Printer scan-to-email doc for the shop: SMTP user scans@, password «v» — fill in on site, never email it.",
        ],
        "revoked_token": [
            "The PAT «v» that showed up in an old Slack thread was revoked during the 2026-08-11 incident; GitHub now returns 401 Bad credentials for it.",
        ],
        "bcrypt_hash": [
            "Home Assistant auth provider stores «v» in .storage/auth_provider.homeassistant — a hash, keep backups encrypted anyway.",
        ],
        "sri_integrity_hash": [
            "Pinned the htmx CDN include with «v».",
        ],
        "cache_key_name": [
            "Rate-limit bucket key «v» counts login attempts; TTL 15 min.",
        ],
        "wifi_ssid_pointer": [
            "IoT VLAN SSID «v» (hidden). PSK is in the password manager under 'IoT Wi-Fi'.",
        ],
        "network_identifiers": [
            "Pi-hole static lease: «v» = office-printer; DNS admin page login is via the password in Bitwarden.",
        ],
        "slack_ids": [
            "Slack workflow posts to «v»; the incoming webhook URL is stored as SLACK_WEBHOOK in GitHub secrets, not here.",
        ],
        "oauth_client_id": [
            "Desktop tool OAuth: client_id «v» appears in the consent URL for every user; it identifies the app, it does not authenticate anyone.",
        ],
        "eth_address": [
            "Hardware wallet receive address «v» verified on the device screen; seed is on steel plate offline.",
        ],
        "cloudflare_zone_id": [
            "Cloudflare Tunnel for the home lab runs under account id «v»; the tunnel credentials JSON stays in /etc/cloudflared/ (root-only), not copied anywhere.",
        ],
        "sops_ciphertext": [
            "Reviewed the PR: the new key landed as «v», correctly encrypted.",
        ],
        "kms_key_arn": [
            "Backups bucket uses «v» — access is by IAM policy, the ARN is not a credential.",
        ],
        "gpg_key_id": [
            "apt-key replacement: signed-by=/usr/share/keyrings/docker.gpg, key id «v».",
        ],
        "key_metadata_last4": [
            "Mailgun shows two keys: 'legacy' (ends «v») disabled, 'sending' active. Values only in the dashboard.",
        ],
        "hashed_token_in_db": [
            "Password reset tokens are stored as sha256 («v» for the test user); the emailed token is never persisted.",
        ],
        "rotation_note": [
            "After the laptop theft: rotated «v», GitHub PATs, and the NAS admin password; all new values only in 1Password.",
        ],
        "auth_procedure": [
            "For the Azure side just `az login`; otherwise `«v»`. The CLIs cache short-lived tokens in the user's home dir.",
        ],
        "password_manager_pointer": [
            "Small-business handover: email passwords for info@ and buchhaltung@ are in «v»; the owner shares it via emergency access.",
        ],
        "azure_tenant_ids": [
            "Entra app registration: directory (tenant) «v», object id «s». Client secret was NOT created; we use a federated credential.",
        ],
        "factory_default_changed": [
            "New IP camera came with «v»; first step in the setup procedure is forcing a new password, which went straight into KeePass.",
        ],
        "ci_secret_reference": [
            "Mirror workflow on GitHub reads «v»; the GitLab side uses the masked, protected CI variable $DEPLOY_TOKEN. No values in either repo.",
        ],
    }
    for kind, _gen, tpls in B:
        tpls.extend(extra.get(kind, []))
    return B


# ---------------------------------------------------------------- assembly


def corpus() -> list[dict]:
    r = random.Random(SEED)
    rows: list[dict] = []
    for label, specs in (("secret", _secret_specs()), ("benign", _benign_specs())):
        for kind, gen, tpls in specs:
            for t in tpls:
                d = gen(r)
                text = _fill(t, d)
                value = str(d["v"])
                assert value in text, (kind, t)
                rows.append({"label": label, "kind": kind, "text": text, "value": value})
    texts = [x["text"] for x in rows]
    assert len(texts) == len(set(texts))
    return rows


def main() -> None:
    rows = corpus()
    out = "\n".join(json.dumps(x, ensure_ascii=False) for x in rows) + "\n"
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w", encoding="utf-8") as f:
            f.write(out)
    else:
        sys.stdout.write(out)


if __name__ == "__main__":
    main()

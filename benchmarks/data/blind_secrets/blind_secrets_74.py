# ruff: noqa: E501
"""Blind secret-detector corpus 74: localization and translation agency tooling.

Brief: memory notes of a localization agency's tooling team: CAT tools and TMS (memoQ, Trados, Phrase, Crowdin, Lokalise, Smartling), MT APIs (DeepL, Google, Azure Translator, ModernMT), customer repos and CI hooks, FTP/SFTP hand-offs, freelancer portals, PMs and linguists writing in German, French, Japanese, Polish, Turkish and Portuguese.

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Run: python blind_secrets_74.py [out.jsonl]

Kinds, secret: deepl_api_key_free, deepl_api_key_pro, google_translate_api_key, gcp_service_account_json, azure_translator_key, modernmt_api_key, crowdin_personal_token, lokalise_api_token, phrase_strings_token, phrase_tms_password, smartling_user_secret, memoq_server_password, trados_cloud_client_secret, transifex_api_token, github_pat_classic, github_pat_fine_grained, gitlab_pat, bitbucket_app_password, sftp_url_password, ftp_credentials_prose, netrc_password, openssh_private_key, rsa_private_key_pem, pgp_private_key_block, slack_webhook_url, slack_bot_token, teams_webhook_url, atlassian_api_token, aws_access_key_pair, azure_storage_connection_string, azure_sas_url, postgres_url, mssql_connection_string, npm_token, docker_hub_pat, openai_api_key, anthropic_api_key, stripe_secret_key, sendgrid_api_key, basic_auth_header, portal_session_jwt, freelancer_portal_password, vpn_preshared_key, google_oauth_client_secret, entra_client_secret, figma_pat, contentful_cma_token, wordpress_app_password, gmail_app_password, huggingface_token, keepass_master_password_prose, webhook_signing_secret
Kinds, benign: aws_documented_example_key, recaptcha_documented_test_keys, git_commit_sha, deepl_glossary_id, lokalise_project_id, phrase_project_id, crowdin_project_id, smartling_project_id, memoq_project_guid, sha256_checksum, md5_checksum, ssh_public_key, ssh_host_fingerprint, pgp_fingerprint, tls_certificate_pem, public_key_pem, placeholder_token, env_var_reference, ci_secret_reference, vault_reference, redacted_token, revoked_token_stated_revoked, password_policy_text, ui_string_about_password, recaptcha_site_key, stripe_publishable_key, stripe_test_card, sentry_dsn_public, crowdin_ota_distribution_hash, algolia_search_only_key, mapbox_public_token, ga_measurement_id, docker_image_digest, npm_integrity_hash, jira_issue_and_build_id, azure_subscription_id, gcp_service_account_email, aws_account_arn, slack_channel_user_ids, base64_non_secret, xliff_unit_id, bcrypt_hash, webhook_delivery_id, translation_memory_filename, deepl_usage_numbers, modernmt_memory_id, invoice_po_number
"""

import base64
import json
import random
import re
import sys

SEED = 7474

HEX = "0123456789abcdef"
UHEX = "0123456789ABCDEF"
DIG = "0123456789"
LOW = "abcdefghijklmnopqrstuvwxyz"
UP = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
B62 = DIG + UP + LOW
B64URL = B62 + "-_"
B32 = UP + "234567"

WORDS = [
    "Sommer",
    "Kaffee",
    "Babel",
    "Tokio",
    "Lisboa",
    "Krakow",
    "Istanbul",
    "Gutenberg",
    "Lektorat",
    "Glossar",
    "Fuji",
    "Sakura",
    "Bosphorus",
    "Porto",
    "Warszawa",
    "Duden",
    "Rosetta",
    "Termbase",
]
SYMS = "!?#$%&*@+"


def s(r, alpha, n):
    return "".join(r.choice(alpha) for _ in range(n))


def uuid4(r):
    h = s(r, HEX, 32)
    h = h[:12] + "4" + h[13:16] + r.choice("89ab") + h[17:]
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def human_pw(r):
    return r.choice(WORDS) + str(r.randint(10, 2029)) + r.choice(SYMS)


def gen_pw(r, n=18):
    return s(r, B62 + "!#%&*+-=?@^_", n)


def rbytes(r, n):
    return bytes(r.getrandbits(8) for _ in range(n))


def b64(r, n):
    return base64.b64encode(rbytes(r, n)).decode()


def b64url(r, n):
    return base64.urlsafe_b64encode(rbytes(r, n)).decode().rstrip("=")


def lines(body, w=64):
    return "\n".join(body[i : i + w] for i in range(0, len(body), w))


def pem(label, prefix, r, nbytes):
    body = prefix + b64(r, nbytes)
    return f"-----BEGIN {label}-----\n{lines(body)}\n-----END {label}-----"


def openssh_key(r):
    body = (
        "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZWQyNTUxOQAAACA"
        + b64(r, 300)
    )
    return (
        "-----BEGIN OPENSSH PRIVATE KEY-----\n"
        + lines(body, 70)
        + "\n-----END OPENSSH PRIVATE KEY-----"
    )


def jwt(r):
    hdr = base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT"}').decode().rstrip("=")
    payload = json.dumps(
        {
            "sub": str(r.randint(10000, 99999)),
            "role": "freelancer",
            "iat": 1796000000 + r.randint(0, 9999999),
            "sid": s(r, HEX, 16),
        },
        separators=(",", ":"),
    )
    pl = base64.urlsafe_b64encode(payload.encode()).decode().rstrip("=")
    return f"{hdr}.{pl}.{b64url(r, 32)}"


def urlenc_b64(x):
    return x.replace("+", "%2B").replace("/", "%2F").replace("=", "%3D")


# --------------------------------------------------------------------------------------------
# Secret kinds: (kind, generator(r) -> dict with "v" and optional extra fields, templates)
# --------------------------------------------------------------------------------------------


def g_deepl_free(r):
    return {"v": uuid4(r) + ":fx"}


def g_deepl_pro(r):
    return {"v": uuid4(r)}


def g_google(r):
    return {"v": "AIza" + s(r, B64URL, 35)}


def g_gcp_sa(r):
    key = (
        pem("PRIVATE KEY", "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ", r, 600).replace(
            "\n", "\\n"
        )
        + "\\n"
    )
    return {"v": key, "kid": s(r, HEX, 40), "cid": "1" + s(r, DIG, 20)}


def g_azure(r):
    return {"v": s(r, HEX, 32)}


def g_mmt(r):
    return {"v": "-".join(s(r, UHEX, n) for n in (8, 4, 4, 4, 12))}


def g_crowdin(r):
    return {"v": s(r, HEX, 80)}


def g_lokalise(r):
    return {"v": s(r, HEX, 40)}


def g_phrase(r):
    return {"v": s(r, HEX, 64)}


def g_phrase_tms(r):
    return {"v": human_pw(r) if r.random() < 0.5 else gen_pw(r, 16)}


def g_smartling(r):
    return {
        "v": s(r, LOW + DIG, 14) + "-" + s(r, LOW + DIG, 4) + "-" + s(r, LOW + DIG, 35),
        "uid": s(r, LOW, 30),
    }


def g_memoq(r):
    return {"v": human_pw(r)}


def g_trados(r):
    return {"v": s(r, B64URL, 64), "cid": s(r, B62, 32)}


def g_transifex(r):
    return {"v": "1/" + s(r, HEX, 40)}


def g_ghp(r):
    return {"v": "ghp_" + s(r, B62, 36)}


def g_ghfg(r):
    return {"v": "github_pat_11" + s(r, UP + DIG, 20) + "_" + s(r, B62, 59)}


def g_glpat(r):
    return {"v": "glpat-" + s(r, B64URL, 20)}


def g_bb(r):
    return {"v": "ATBB" + s(r, B62, 28) + s(r, UHEX, 8)}


def g_sftp(r):
    # URL-safe in the userinfo part: no @ # ? % / ^ characters
    if r.random() < 0.5:
        return {"v": r.choice(WORDS) + str(r.randint(10, 2029)) + r.choice("!*+$&")}
    return {"v": s(r, B62 + "!*+-_", 14)}


def g_ftp(r):
    return {"v": human_pw(r)}


def g_netrc(r):
    return {"v": gen_pw(r, 20).replace(" ", "")}


def g_ossh(r):
    return {"v": openssh_key(r)}


def g_rsa(r):
    return {"v": pem("RSA PRIVATE KEY", "MIIEpAIBAAKCAQEA", r, 900)}


def g_pgp(r):
    body = "lQVYBG" + b64(r, 700)
    return {
        "v": "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n"
        + lines(body)
        + "\n="
        + s(r, B62, 4)
        + "\n-----END PGP PRIVATE KEY BLOCK-----"
    }


def g_slack_hook(r):
    return {
        "v": "https://hooks.slack.com/services/T"
        + s(r, UP + DIG, 8)
        + "/B"
        + s(r, UP + DIG, 10)
        + "/"
        + s(r, B62, 24)
    }


def g_xoxb(r):
    return {"v": "xoxb-" + s(r, DIG, 12) + "-" + s(r, DIG, 13) + "-" + s(r, B62, 24)}


def g_teams(r):
    return {
        "v": "https://lingoworks.webhook.office.com/webhookb2/"
        + uuid4(r)
        + "@"
        + uuid4(r)
        + "/IncomingWebhook/"
        + s(r, HEX, 32)
        + "/"
        + uuid4(r)
    }


def g_atl(r):
    return {"v": "ATATT3xFfGF0" + s(r, B64URL, 170) + "=" + s(r, UHEX, 8)}


def g_aws(r):
    return {"v": s(r, B62 + "+/", 40), "akid": "AKIA" + s(r, B32, 16)}


def g_azstor(r):
    k = b64(r, 64)
    acct = "lwhandoff" + s(r, LOW + DIG, 4)
    return {
        "v": f"DefaultEndpointsProtocol=https;AccountName={acct};AccountKey={k};EndpointSuffix=core.windows.net",
        "k": k,
    }


def g_sas(r):
    sig = urlenc_b64(b64(r, 32))
    return {
        "v": f"https://lwdeliveries.blob.core.windows.net/client-drop?sv=2022-11-02&ss=b&srt=co&sp=rwdlacx&se=2027-03-31T18:00:00Z&st=2026-12-01T08:00:00Z&spr=https&sig={sig}"
    }


def g_pg(r):
    return {
        "v": gen_pw(r, 16)
        .replace("@", "x")
        .replace("#", "y")
        .replace("?", "z")
        .replace("%", "q")
        .replace("^", "w")
    }


def g_mssql(r):
    return {"v": human_pw(r).replace(";", "")}


def g_npm(r):
    return {"v": "npm_" + s(r, B62, 36)}


def g_docker(r):
    return {"v": "dckr_pat_" + s(r, B64URL, 27)}


def g_openai(r):
    return {"v": "sk-proj-" + s(r, B64URL, 74) + "T3BlbkFJ" + s(r, B64URL, 74)}


def g_anthropic(r):
    return {"v": "sk-ant-api03-" + s(r, B64URL, 93) + "AA"}


def g_stripe(r):
    return {"v": "sk_live_51" + s(r, B62, 97)}


def g_sendgrid(r):
    return {"v": "SG." + s(r, B64URL, 22) + "." + s(r, B64URL, 43)}


def g_basic(r):
    user = r.choice(["pm.ops", "lw-ci", "handoff", "vendor.lw"])
    return {"v": base64.b64encode(f"{user}:{gen_pw(r, 14)}".encode()).decode()}


def g_jwt(r):
    return {"v": jwt(r)}


def g_freelancer(r):
    return {"v": human_pw(r)}


def g_psk(r):
    return {"v": gen_pw(r, 24)}


def g_gocspx(r):
    return {"v": "GOCSPX-" + s(r, B64URL, 28)}


def g_entra(r):
    return {"v": s(r, B62, 3) + r.choice(DIG) + "Q~" + s(r, B62 + "._~-", 34)}


def g_figma(r):
    return {"v": "figd_" + s(r, B64URL, 40)}


def g_contentful(r):
    return {"v": "CFPAT-" + s(r, B64URL, 43)}


def g_wpapp(r):
    return {"v": " ".join(s(r, B62, 4) for _ in range(6))}


def g_gmail(r):
    return {"v": " ".join(s(r, LOW, 4) for _ in range(4))}


def g_hf(r):
    return {"v": "hf_" + s(r, UP + LOW, 34)}


def g_keepass(r):
    a, b, c = r.sample(
        [
            "tulpe",
            "hering",
            "kompass",
            "laterne",
            "wolke",
            "schraube",
            "fenster",
            "garten",
            "nebel",
        ],
        3,
    )
    return {"v": f"{a}-{b}-{c}-{r.randint(10, 99)}"}


def g_whsec(r):
    return {"v": s(r, HEX, 64)}


SECRETS = [
    (
        "deepl_api_key_free",
        g_deepl_free,
        [
            "DeepL free acct for the Lehmann pilot: auth key {v} (500k chars/month, don't burn it on test runs)",
            "curl -X POST https://api-free.deepl.com/v2/translate -H 'Authorization: DeepL-Auth-Key {v}' -d 'text=Hallo' -d 'target_lang=EN'",
            "DEEPL_AUTH_KEY={v}",
            "Klucz DeepL (darmowy) do testów glosariusza PL: {v} — nie wrzucać do repo klienta",
        ],
    ),
    (
        "deepl_api_key_pro",
        g_deepl_pro,
        [
            "DeepL Pro key (agency account, billing via Finance): {v}",
            'deepl:\n  server_url: https://api.deepl.com\n  auth_key: "{v}"',
            "Neuer DeepL-Schlüssel nach Rotation am Montag:\n{v}",
            "| MT engine | endpoint | key |\n| DeepL Pro | api.deepl.com/v2 | {v} |",
        ],
    ),
    (
        "google_translate_api_key",
        g_google,
        [
            "Google Translation v2 key restricted to our egress IP: {v}",
            "GET https://translation.googleapis.com/language/translate/v2?key={v}&q=Bonjour&target=de",
            "export GOOGLE_TRANSLATE_KEY={v}",
            "Chave da API do Google para o conector do memoQ (cliente Banco Atlântico): {v}",
        ],
    ),
    (
        "gcp_service_account_json",
        g_gcp_sa,
        [
            'paste of the sa json for Translation v3 (glossaries need v3):\n{"type": "service_account", "project_id": "lw-mt-prod", "private_key_id": "{kid}", "private_key": "{v}", "client_email": "mt-runner@lw-mt-prod.iam.gserviceaccount.com", "client_id": "{cid}"}',
            'key file content (mt-runner, prod):\n{ "type": "service_account", "private_key": "{v}", "client_email": "mt-runner@lw-mt-prod.iam.gserviceaccount.com" }',
            'GOOGLE_APPLICATION_CREDENTIALS_JSON=\'{"type":"service_account","project_id":"lw-mt-prod","private_key_id":"{kid}","private_key":"{v}"}\'',
            'Dienstkonto für AutoML-Glossare, private_key: "{v}" (Rest der JSON liegt bei Jonas)',
        ],
    ),
    (
        "azure_translator_key",
        g_azure,
        [
            "Azure Translator (westeurope) Ocp-Apim-Subscription-Key: {v}",
            "curl -X POST 'https://api.cognitive.microsofttranslator.com/translate?api-version=3.0&to=tr' -H 'Ocp-Apim-Subscription-Key: {v}' -H 'Ocp-Apim-Subscription-Region: westeurope'",
            "AZURE_TRANSLATOR_KEY1={v}\nAZURE_TRANSLATOR_REGION=westeurope",
            "Azure Translatorのキー（key1、本番）: {v}　Trados用プラグインに設定済み",
        ],
    ),
    (
        "modernmt_api_key",
        g_mmt,
        [
            "ModernMT license key for adaptive MT in Matecat: {v}",
            "curl -H 'MMT-ApiKey: {v}' 'https://api.modernmt.com/translate?source=en&target=it&q=hello'",
            'mmt_api_key = "{v}"  # enterprise plan, contexts on',
            "ModernMT anahtarı (Türkçe projeler için): {v}",
        ],
    ),
    (
        "crowdin_personal_token",
        g_crowdin,
        [
            "crowdin PAT for the sync bot (scopes: projects, tm, glossaries): {v}",
            "crowdin upload sources --token {v} --project-id 482913",
            '"api_token": "{v}"',
            "Token Crowdin do synchronizacji z repo klienta Nordbank:\n{v}",
        ],
    ),
    (
        "lokalise_api_token",
        g_lokalise,
        [
            "Lokalise API token (read/write) for the Aurora mobile app: {v}",
            "curl -H 'X-Api-Token: {v}' https://api.lokalise.com/api2/projects",
            "LOKALISE_API_TOKEN={v}",
            "lokalise2 file download --token {v} --project-id 3002780358964f9bab5a92.87762498 --format json",
        ],
    ),
    (
        "phrase_strings_token",
        g_phrase,
        [
            "Phrase Strings access token for the CLI push job: {v}",
            "phrase:\n  access_token: {v}\n  project_id: 6f1c3a2b9d0e4f7a8b5c2d1e0f9a8b7c",
            "curl -H 'Authorization: token {v}' https://api.phrase.com/v2/projects",
            "Jeton d'accès Phrase pour le client Maison Clair (lecture/écriture) : {v}",
        ],
    ),
    (
        "phrase_tms_password",
        g_phrase_tms,
        [
            "Phrase TMS (ex-Memsource) API user lw_api / pw {v}",
            "memsource login for the automation user: user=lw.automation password={v}",
            "PM-Zugang Phrase TMS für Projekt Zeiss-Handbuch: Benutzer anna.k, Passwort {v}",
            "Phrase TMS APIユーザーのパスワード: {v}",
        ],
    ),
    (
        "smartling_user_secret",
        g_smartling,
        [
            "Smartling API creds: userIdentifier {uid}, userSecret {v}",
            '{"userIdentifier": "{uid}", "userSecret": "{v}"}',
            "SMARTLING_USER_ID={uid}\nSMARTLING_USER_SECRET={v}",
            "smartling-cli -u {uid} -k {v} -p 0e6193784 files push strings/en.json",
        ],
    ),
    (
        "memoq_server_password",
        g_memoq,
        [
            "memoQ server mq01.lw.local admin pw is {v} (only for resource console)",
            "memoQ Server Administrator -> user 'lwadmin' / {v}",
            "Hasło do serwera memoQ (konto PM-ów): {v}",
            "memoq webtrans: log in as reviewer_ext with {v}",
        ],
    ),
    (
        "trados_cloud_client_secret",
        g_trados,
        [
            "Trados Cloud (LC) API app: client_id {cid} client_secret {v}",
            "TRADOS_CLIENT_ID={cid}\nTRADOS_CLIENT_SECRET={v}",
            "curl -X POST https://sdl-prod.eu.auth0.com/oauth/token -d 'client_id={cid}&client_secret={v}&grant_type=client_credentials&audience=https://api.sdl.com'",
            "Secret für die Trados-Enterprise-Integration (neu generiert): {v}",
        ],
    ),
    (
        "transifex_api_token",
        g_transifex,
        [
            "Transifex token for the legacy OSS client: {v}",
            "tx push -s --token {v}",
            "[https://app.transifex.com]\napi_hostname = https://api.transifex.com\nhostname = https://app.transifex.com\npassword = {v}\nusername = api",
            "transifex api v3 bearer: {v}",
        ],
    ),
    (
        "github_pat_classic",
        g_ghp,
        [
            "GH token for the i18n-bot that opens the translation PRs: {v}",
            "git clone https://i18n-bot:{v}@github.com/nordbank/mobile-app.git",
            "GITHUB_TOKEN={v}",
            "Token GitHub do repo klienta (wygasa w marcu):\n{v}",
        ],
    ),
    (
        "github_pat_fine_grained",
        g_ghfg,
        [
            "fine-grained PAT for acme/web-frontend, contents RW only: {v}",
            "gh auth login --with-token <<< {v}",
            "Token fine-grained pro repositório do cliente (só locales/): {v}",
            '"github_token": "{v}"',
        ],
    ),
    (
        "gitlab_pat",
        g_glpat,
        [
            "GitLab PAT for pulling client's strings (gitlab.maisonclair.fr): {v}",
            "git remote set-url origin https://oauth2:{v}@gitlab.maisonclair.fr/web/site.git",
            "GITLAB_TOKEN={v}",
            "GitLab-Token für den Übersetzungs-Runner: {v}",
        ],
    ),
    (
        "bitbucket_app_password",
        g_bb,
        [
            "Bitbucket app password for user lw-translations (repo read/write): {v}",
            "git clone https://lw-translations:{v}@bitbucket.org/ottoshop/storefront.git",
            "BITBUCKET_APP_PASSWORD={v}",
            "Bitbucket uygulama şifresi (müşteri repo): {v}",
        ],
    ),
    (
        "sftp_url_password",
        g_sftp,
        [
            "hand-off drop: sftp://lw_upload:{v}@sftp.ottoshop.de:22/incoming/translations",
            "lftp -u lw_vendor,{v} sftp://files.maisonclair.fr",
            "Clients SFTP (Zeiss): host sftp.zeiss-docs.com, user lingoworks, pass {v}",
            "sshpass -p '{v}' sftp -P 2222 lingo@drop.nordbank.no",
        ],
    ),
    (
        "ftp_credentials_prose",
        g_ftp,
        [
            "Ftp for Banco Atlântico deliveries is the usual account, password changed to {v} last week",
            "FTP-Zugang Kunde Brenner: ftp.brenner-ag.de / lingoworks / {v}",
            "FTP do cliente: usuário lw_entregas senha {v}",
            "filezilla: ftp.kanto-seiki.co.jp, ユーザー lw_jp, パスワード {v}",
        ],
    ),
    (
        "netrc_password",
        g_netrc,
        [
            "~/.netrc on the build box:\nmachine ftp.brenner-ag.de login lingoworks password {v}",
            "machine api.smartling.com login svc-lw password {v}",
            "added to netrc so curl -n works: machine drop.nordbank.no login lingo password {v}",
            "netrc-Eintrag für den Kunden-FTP:\nmachine files.ottoshop.de\n  login lw\n  password {v}",
        ],
    ),
    (
        "openssh_private_key",
        g_ossh,
        [
            "deploy key for the client SFTP (ed25519, passphrase-less):\n{v}",
            "key I use for drop.nordbank.no, paste into ~/.ssh/id_nordbank:\n{v}",
            "Klucz prywatny do SFTP klienta:\n{v}",
            "{v}",
        ],
    ),
    (
        "rsa_private_key_pem",
        g_rsa,
        [
            "old RSA key the Zeiss SFTP still wants (they don't accept ed25519):\n{v}",
            "Clé privée pour le serveur SFTP de Maison Clair :\n{v}",
            'SFTP_PRIVATE_KEY="{v}"',
            "from the jenkins credential dump (handoff-sftp):\n{v}",
        ],
    ),
    (
        "pgp_private_key_block",
        g_pgp,
        [
            "Our PGP secret key for decrypting Nordbank source packages (passphrase in separate note):\n{v}",
            "gpg --import this:\n{v}",
            "PGP-Schlüssel (privat) für verschlüsselte Lieferungen:\n{v}",
            "{v}",
        ],
    ),
    (
        "slack_webhook_url",
        g_slack_hook,
        [
            "slack webhook for #loc-deliveries: {v}",
            "curl -X POST -H 'Content-type: application/json' --data '{\"text\":\"Crowdin sync done\"}' {v}",
            "SLACK_WEBHOOK_URL={v}",
            "Webhook Slacka dla kanału #pl-tłumacze: {v}",
        ],
    ),
    (
        "slack_bot_token",
        g_xoxb,
        [
            "LocBot slack token: {v}",
            "SLACK_BOT_TOKEN={v}",
            "Authorization: Bearer {v}",
            "Slack-Bot-Token für Übersetzungs-Benachrichtigungen: {v}",
        ],
    ),
    (
        "teams_webhook_url",
        g_teams,
        [
            "Teams incoming webhook for the Brenner project channel: {v}",
            "TEAMS_WEBHOOK={v}",
            "Webhook Teams (canal Entregas PT): {v}",
            "posting QA reports to teams via {v}",
        ],
    ),
    (
        "atlassian_api_token",
        g_atl,
        [
            "Jira API token for pm.ops@lingoworks.eu (used by the deadline sync): {v}",
            "curl -u pm.ops@lingoworks.eu:{v} https://lingoworks.atlassian.net/rest/api/3/myself",
            "JIRA_API_TOKEN={v}",
            "Token API do Jira (konto automatyzacji): {v}",
        ],
    ),
    (
        "aws_access_key_pair",
        g_aws,
        [
            "S3 handoff bucket lw-client-drops: AKID {akid} secret {v}",
            "[lw-drops]\naws_access_key_id = {akid}\naws_secret_access_key = {v}",
            "AWS_ACCESS_KEY_ID={akid} AWS_SECRET_ACCESS_KEY={v} aws s3 sync ./out s3://lw-client-drops/ottoshop/",
            "Cliente pediu entrega via S3. Chave: {akid} / segredo: {v}",
        ],
    ),
    (
        "azure_storage_connection_string",
        g_azstor,
        [
            "blob storage for large DTP files: {v}",
            'AZURE_STORAGE_CONNECTION_STRING="{v}"',
            '"StorageConnection": "{v}"',
            "Verbindungszeichenfolge für den Kunden-Blob:\n{v}",
        ],
    ),
    (
        "azure_sas_url",
        g_sas,
        [
            "client gave us a SAS url to drop the translated manuals: {v}",
            "azcopy copy './delivery/*' '{v}' --recursive",
            "Lien SAS pour la livraison (valide jusqu'en mars) : {v}",
            "SAS URL (write) for Kanto Seiki:\n{v}",
        ],
    ),
    (
        "postgres_url",
        g_pg,
        [
            "TMS reporting db: postgres://lw_report:{v}@tmsdb.lw.internal:5432/xtrf",
            "DATABASE_URL=postgresql://plunet_ro:{v}@10.20.0.14:5432/plunet",
            "psql 'host=tmsdb.lw.internal user=lw_report password={v} dbname=xtrf'",
            "Baza raportowa TMS: użytkownik lw_report, hasło {v}",
        ],
    ),
    (
        "mssql_connection_string",
        g_mssql,
        [
            "memoQ server SQL: Server=mq-sql01;Database=MemoQServerDB;User Id=sa;Password={v};",
            '"ConnectionStrings": {"TradosGS": "Data Source=gs-sql\\\\SQLEXPRESS;Initial Catalog=GroupShare;User ID=gs_app;Password={v}"}',
            "sqlcmd -S mq-sql01 -U sa -P '{v}' -Q 'SELECT COUNT(*) FROM dbo.Projects'",
            "SQL-Server für GroupShare: sa-Kennwort ist {v}",
        ],
    ),
    (
        "npm_token",
        g_npm,
        [
            "npm automation token for publishing @lw/i18n-utils: {v}",
            "//registry.npmjs.org/:_authToken={v}",
            "NPM_TOKEN={v}",
            "Token npm pra publicar o pacote de locales: {v}",
        ],
    ),
    (
        "docker_hub_pat",
        g_docker,
        [
            "docker hub PAT (lwtooling) for pulling the okapi image: {v}",
            "echo {v} | docker login -u lwtooling --password-stdin",
            "DOCKERHUB_TOKEN={v}",
            "Docker Hub erişim belirteci: {v}",
        ],
    ),
    (
        "openai_api_key",
        g_openai,
        [
            "OpenAI key for the LLM post-editing trial: {v}",
            "OPENAI_API_KEY={v}",
            "curl https://api.openai.com/v1/chat/completions -H 'Authorization: Bearer {v}'",
            "Klucz OpenAI do testów post-edycji:\n{v}",
        ],
    ),
    (
        "anthropic_api_key",
        g_anthropic,
        [
            "Anthropic key for the QA-checker prototype: {v}",
            "ANTHROPIC_API_KEY={v}",
            "-H 'x-api-key: {v}'",
            "LLM品質チェック用のAnthropicキー: {v}",
        ],
    ),
    (
        "stripe_secret_key",
        g_stripe,
        [
            "Stripe live secret for freelancer payouts portal: {v}",
            "STRIPE_SECRET_KEY={v}",
            "curl https://api.stripe.com/v1/payouts -u {v}:",
            "Chave secreta Stripe (produção) do portal de tradutores: {v}",
        ],
    ),
    (
        "sendgrid_api_key",
        g_sendgrid,
        [
            "sendgrid key for the 'job offered' mails to freelancers: {v}",
            "SENDGRID_API_KEY={v}",
            "smtp.sendgrid.net, user apikey, pass {v}",
            "Clé SendGrid du portail freelances : {v}",
        ],
    ),
    (
        "basic_auth_header",
        g_basic,
        [
            "XTRF API call needs: Authorization: Basic {v}",
            "curl -H 'Authorization: Basic {v}' https://lingoworks.s.xtrf.eu/home-api/projects",
            'headers = {"Authorization": "Basic {v}"}',
            "Plunet-API Header aus Postman kopiert: Basic {v}",
        ],
    ),
    (
        "portal_session_jwt",
        g_jwt,
        [
            "repro for the portal bug, my session token: {v}",
            "curl -H 'Authorization: Bearer {v}' https://portal.lingoworks.eu/api/jobs/open",
            "Cookie: lw_session={v}",
            "Token de sesión del portal (cópialo para reproducir):\n{v}",
        ],
    ),
    (
        "freelancer_portal_password",
        g_freelancer,
        [
            "Marta (PL reviewer) can't log in, I reset her portal password to {v}",
            "Senha do portal do tradutor João: {v} (ele pediu para trocar depois)",
            "Aylin'in portal şifresi {v} olarak sıfırlandı",
            "Portal-Zugang für neuen DE-Übersetzer: t.wagner / {v}",
        ],
    ),
    (
        "vpn_preshared_key",
        g_psk,
        [
            "Zeiss site-to-site VPN PSK: {v}",
            'ipsec.secrets: 203.0.113.10 198.51.100.7 : PSK "{v}"',
            "VPN-Client Kunde Brenner, Gruppenkennwort {v}",
            "WireGuard-less option, L2TP shared secret is {v}",
        ],
    ),
    (
        "google_oauth_client_secret",
        g_gocspx,
        [
            "Google OAuth client for the Drive import (docs from clients): secret {v}",
            "GOOGLE_CLIENT_SECRET={v}",
            '"client_secret": "{v}"',
            "Segredo do cliente OAuth (importação do Google Docs): {v}",
        ],
    ),
    (
        "entra_client_secret",
        g_entra,
        [
            "Entra app 'lw-sharepoint-sync' secret value: {v}",
            "AZURE_CLIENT_SECRET={v}",
            "az login --service-principal -u 6a1f0c2e-lw-sync -p '{v}' --tenant lingoworks.onmicrosoft.com",
            "SharePoint-Sync: Geheimniswert {v} (läuft 2027 ab)",
        ],
    ),
    (
        "figma_pat",
        g_figma,
        [
            "figma token for pulling UI strings from the Aurora designs: {v}",
            "FIGMA_TOKEN={v}",
            "curl -H 'X-Figma-Token: {v}' https://api.figma.com/v1/files/abc/nodes",
            "Token Figma do eksportu tekstów: {v}",
        ],
    ),
    (
        "contentful_cma_token",
        g_contentful,
        [
            "Contentful management token (Maison Clair space): {v}",
            "contentful space export --management-token {v} --space-id mc01",
            "CONTENTFUL_MANAGEMENT_TOKEN={v}",
            "Jeton de gestion Contentful : {v}",
        ],
    ),
    (
        "wordpress_app_password",
        g_wpapp,
        [
            "WPML site of Brenner: app password for user lw-import is {v}",
            "curl -u lw-import:'{v}' https://brenner-ag.de/wp-json/wp/v2/pages",
            "Hasło aplikacji WordPress (WPML): {v}",
            "WP app pw\n{v}",
        ],
    ),
    (
        "gmail_app_password",
        g_gmail,
        [
            "gmail app password for the pm-notify mailbox: {v}",
            "SMTP_USER=pm.notify@lingoworks.eu\nSMTP_PASS={v}",
            "App-Passwort für das Angebots-Postfach: {v}",
            'mutt smtp_pass = "{v}"',
        ],
    ),
    (
        "huggingface_token",
        g_hf,
        [
            "HF token for downloading the NLLB checkpoints: {v}",
            "huggingface-cli login --token {v}",
            "HF_TOKEN={v}",
            "Token Hugging Face (odczyt): {v}",
        ],
    ),
    (
        "keepass_master_password_prose",
        g_keepass,
        [
            "the team keepass opens with {v}, don't put it in slack",
            "Die Teamdatenbank geht mit {v} auf",
            "kdbx for the vendor creds -> {v}",
            "Baza haseł zespołu: {v}",
        ],
    ),
    (
        "webhook_signing_secret",
        g_whsec,
        [
            "Crowdin webhook signing secret (we verify X-Crowdin-Signature): {v}",
            "LOKALISE_WEBHOOK_SECRET={v}",
            "Smartling callback HMAC secret: {v}",
            "secret do webhooka Phrase (weryfikacja podpisu): {v}",
        ],
    ),
]

# --------------------------------------------------------------------------------------------
# Benign kinds
# --------------------------------------------------------------------------------------------


def b_aws_doc(r):
    return {"v": "AKIAIOSFODNN7EXAMPLE", "n": str(r.randint(2, 9))}


def b_recaptcha_doc(r):
    return {"v": "6LeIxAcTAAAAAJcZVRqyHh4ihc0jd7nfZ8rJd_hA", "n": str(r.randint(2, 9))}


def b_sha(r):
    return {"v": s(r, HEX, 40)}


def b_uuid(r):
    return {"v": uuid4(r)}


def b_lok_pid(r):
    return {"v": s(r, HEX, 22) + "." + s(r, DIG, 8)}


def b_phrase_pid(r):
    return {"v": s(r, HEX, 32)}


def b_crowdin_pid(r):
    return {"v": str(r.randint(100000, 999999))}


def b_smartling_pid(r):
    return {"v": s(r, HEX, 9)}


def b_guid_upper(r):
    return {"v": uuid4(r).upper()}


def b_sha256(r):
    return {"v": s(r, HEX, 64)}


def b_md5(r):
    return {"v": s(r, HEX, 32)}


def b_sshpub(r):
    return {"v": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + s(r, B62 + "+/", 43)}


def b_sshfp(r):
    return {"v": "SHA256:" + b64(r, 32).rstrip("=")}


def b_pgpfp(r):
    return {"v": " ".join(s(r, UHEX, 4) for _ in range(10))}


def b_cert(r):
    return {"v": pem("CERTIFICATE", "MIIDdzCCAl+gAwIBAgIU", r, 700)}


def b_pubkey(r):
    return {"v": pem("PUBLIC KEY", "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA", r, 230)}


def b_num(r):
    return {"v": str(r.randint(2, 60))}


def b_redacted(r):
    return {
        "v": r.choice(["ghp_", "glpat-", "sk-proj-", "npm_"])
        + "*" * r.randint(8, 20)
        + s(r, B62, 4)
    }


def b_revoked(r):
    return {"v": "ghp_" + s(r, B62, 36)}


def b_recaptcha_site(r):
    return {"v": "6L" + s(r, B64URL, 38)}


def b_pk(r):
    return {"v": "pk_live_51" + s(r, B62, 97)}


def b_sentry(r):
    return {
        "v": "https://" + s(r, HEX, 32) + "@o" + s(r, DIG, 6) + ".ingest.sentry.io/" + s(r, DIG, 7)
    }


def b_ota(r):
    return {"v": s(r, HEX, 23)}


def b_algolia(r):
    return {"v": s(r, HEX, 32), "app": s(r, UP + DIG, 10)}


def b_mapbox(r):
    return {
        "v": "pk.eyJ1IjoibGluZ293b3JrcyIsImEiOiJ" + s(r, B64URL, 22) + "In0." + s(r, B64URL, 22)
    }


def b_ga(r):
    return {"v": "G-" + s(r, UP + DIG, 10)}


def b_digest(r):
    return {"v": "sha256:" + s(r, HEX, 64)}


def b_integrity(r):
    return {"v": "sha512-" + b64(r, 64)}


def b_issue(r):
    return {"v": f"LOC-{r.randint(100, 9999)}", "b": str(r.randint(1000, 99999))}


def b_gcp_email(r):
    return {"v": f"mt-runner-{s(r, LOW + DIG, 6)}@lw-mt-prod.iam.gserviceaccount.com"}


def b_arn(r):
    return {"v": f"arn:aws:s3:::lw-client-drops-{s(r, LOW + DIG, 6)}", "acct": s(r, DIG, 12)}


def b_slack_ids(r):
    return {"v": "C0" + s(r, UP + DIG, 9), "u": "U0" + s(r, UP + DIG, 9)}


def b_b64(r):
    blob = json.dumps(
        {
            "project": f"ottoshop-{r.randint(10, 99)}",
            "locales": ["de-DE", "pl-PL", "tr-TR"],
            "due": f"2027-01-{r.randint(10, 28)}",
        }
    )
    return {"v": base64.b64encode(blob.encode()).decode()}


def b_xliff(r):
    return {"v": s(r, HEX, 32)}


def b_bcrypt(r):
    return {"v": "$2b$12$" + s(r, B62 + "./", 53)}


def b_tmfile(r):
    return {"v": f"ottoshop_de-DE_pl-PL_{s(r, HEX, 12)}.tmx"}


def b_usage(r):
    return {"v": str(r.randint(100000, 499999))}


def b_mmt_mem(r):
    return {"v": str(r.randint(10000, 999999))}


def b_po(r):
    return {"v": f"PO-{r.randint(2026, 2027)}-{r.randint(10000, 99999)}"}


def b_masked_last4(r):
    return {"v": s(r, HEX, 4)}


BENIGN = [
    (
        "aws_documented_example_key",
        b_aws_doc,
        [
            "in the handoff README we use AWS's doc example {v} as the fake key, it's not ours",
            "aws_access_key_id = {v}  # example from AWS docs, replace with yours (step {n})",
            "AWS_ACCESS_KEY_ID={v} in .env.example — placeholder only",
            "Przykładowy klucz z dokumentacji AWS: {v}",
        ],
    ),
    (
        "recaptcha_documented_test_keys",
        b_recaptcha_doc,
        [
            "staging freelancer signup uses Google's published reCAPTCHA test site key {v} (always passes)",
            "RECAPTCHA_SITE_KEY={v}  # Google test key, staging only",
            "Na stagingu klucz testowy reCAPTCHA od Google: {v}",
            "test key {v} from the reCAPTCHA FAQ, fine to commit",
        ],
    ),
    (
        "git_commit_sha",
        b_sha,
        [
            "Crowdin sync broke after {v}, reverted",
            "git cherry-pick {v}",
            "Fix für die Pluralregeln (PL) ist in Commit {v}",
            "translations merged at {v} on main",
        ],
    ),
    (
        "deepl_glossary_id",
        b_uuid,
        [
            "DeepL glossary for Ottoshop EN->DE: glossary_id {v}",
            "curl ... -d 'glossary_id={v}' -d 'source_lang=EN' -d 'target_lang=DE'",
            "Glossar-ID bei DeepL (Zeiss, de-en): {v}",
            "DeepL用語集ID: {v}（日本語→英語）",
        ],
    ),
    (
        "lokalise_project_id",
        b_lok_pid,
        [
            "Lokalise project id for Aurora iOS: {v}",
            "lokalise2 file upload --project-id {v} --file en.json --lang-iso en --token $LOKALISE_TOKEN",
            "ID projektu w Lokalise: {v}",
            'project_id: "{v}"',
        ],
    ),
    (
        "phrase_project_id",
        b_phrase_pid,
        [
            "Phrase project id (Maison Clair web): {v}",
            "phrase:\n  project_id: {v}\n  access_token: ${PHRASE_ACCESS_TOKEN}",
            "ID du projet Phrase : {v}",
            "GET https://api.phrase.com/v2/projects/{v}/locales",
        ],
    ),
    (
        "crowdin_project_id",
        b_crowdin_pid,
        [
            "Crowdin project id {v} = Nordbank mobile",
            '"project_id": {v}',
            "crowdin download --project-id {v} --token $CROWDIN_PERSONAL_TOKEN",
            "Projekt Crowdin nr {v} — tylko PL i TR",
        ],
    ),
    (
        "smartling_project_id",
        b_smartling_pid,
        [
            "Smartling project id for the Brenner portal: {v}",
            "smartling-cli -p {v} files list",
            "SMARTLING_PROJECT_ID={v}",
            "ID do projeto na Smartling: {v}",
        ],
    ),
    (
        "memoq_project_guid",
        b_guid_upper,
        [
            "memoQ project guid for Zeiss manual Q1: {v}",
            "GetProjectInfo({v}) returns null after the server upgrade",
            "memoQ-Projekt-GUID: {v}",
            "memoQプロジェクトGUID {v} のTMが壊れている",
        ],
    ),
    (
        "sha256_checksum",
        b_sha256,
        [
            "delivery zip sha256 {v}, client confirmed match",
            "sha256sum ottoshop_delivery_wk49.zip\n{v}  ottoshop_delivery_wk49.zip",
            "Prüfsumme der Lieferung (SHA-256): {v}",
            "Suma kontrolna paczki: {v}",
        ],
    ),
    (
        "md5_checksum",
        b_md5,
        [
            "md5 of the TM export: {v}",
            'ETag "{v}" on the S3 object, so upload is complete',
            "MD5 du fichier source : {v}",
            "md5: {v}",
        ],
    ),
    (
        "ssh_public_key",
        b_sshpub,
        [
            "sent Nordbank our public key for the SFTP whitelist: {v} lw-handoff",
            "authorized_keys on drop box:\n{v} build@lw-ci",
            "Klucz publiczny (dla klienta): {v}",
            "Öffentlicher Schlüssel für den Kunden-SFTP: {v} lingoworks",
        ],
    ),
    (
        "ssh_host_fingerprint",
        b_sshfp,
        [
            "sftp.zeiss-docs.com host key fingerprint {v} — verify before accepting",
            "ED25519 key fingerprint is {v}.",
            "Empreinte de l'hôte SFTP Maison Clair : {v}",
            "ホスト鍵のフィンガープリント: {v}",
        ],
    ),
    (
        "pgp_fingerprint",
        b_pgpfp,
        [
            "Nordbank PGP public key fingerprint: {v}",
            "gpg --fingerprint handoff@nordbank.no\n      {v}",
            "Fingerprint klucza PGP klienta: {v}",
            "PGP-Fingerprint zur Verifizierung (telefonisch bestätigt): {v}",
        ],
    ),
    (
        "tls_certificate_pem",
        b_cert,
        [
            "client's SFTP gateway cert so we can pin it:\n{v}",
            "ca.crt for the memoQ server (self-signed):\n{v}",
            "Zertifikat des Kunden-Proxys:\n{v}",
            "{v}",
        ],
    ),
    (
        "public_key_pem",
        b_pubkey,
        [
            "public key to verify Smartling callback signatures:\n{v}",
            "Clé publique du client pour chiffrer les livraisons :\n{v}",
            "jwt verification key (public) for the portal:\n{v}",
            "{v}",
        ],
    ),
    (
        "placeholder_token",
        b_num,
        [
            "crowdin.yml template: api_token: <your-personal-token>, project_id: <id> (step {v})",
            "DEEPL_AUTH_KEY=changeme  # fill in locally, see onboarding step {v}",
            "Lokalise token: xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx (wiki page {v})",
            "Im Template steht password: <PASSWORT> — bitte nicht committen ({v} Repos betroffen)",
            'api_key: "YOUR_API_KEY_HERE" ({v} places in the sample config)',
        ],
    ),
    (
        "env_var_reference",
        b_num,
        [
            'curl -H "Authorization: DeepL-Auth-Key $DEEPL_AUTH_KEY" ... (retries: {v})',
            "token is read from ${CROWDIN_PERSONAL_TOKEN}, no literal anywhere, {v} scripts checked",
            "api_token_env: LOKALISE_API_TOKEN  # crowdin-style env ref, timeout {v}s",
            "Klucz bierzemy z os.environ['AZURE_TRANSLATOR_KEY'], {v} workerów",
        ],
    ),
    (
        "ci_secret_reference",
        b_num,
        [
            "GH action: env: CROWDIN_PERSONAL_TOKEN: ${{ secrets.CROWDIN_PERSONAL_TOKEN }} (runs every {v}h)",
            "gitlab ci var $SMARTLING_USER_SECRET is masked+protected, {v} pipelines use it",
            "Jenkins: withCredentials([string(credentialsId: 'deepl-pro', variable: 'DEEPL_KEY')]) — {v} jobs",
            "Azure DevOps: $(TranslatorKey) aus der Variable Group 'mt-prod', {v} Stages",
        ],
    ),
    (
        "vault_reference",
        b_num,
        [
            "DeepL key lives in 1Password: op://Localization/DeepL Pro/credential ({v} people have access)",
            "vault kv get -field=token secret/loc/lokalise  (policy loc-ci, ttl {v}h)",
            "SFTP-Passwort Zeiss steht im KeePass unter Kunden/Zeiss/SFTP, Eintrag {v}",
            "Hasło do memoQ jest w Bitwarden, kolekcja 'PM', wpis nr {v}",
        ],
    ),
    (
        "redacted_token",
        b_redacted,
        [
            "the token in the log was {v} (masked by CI), rotating anyway",
            "Lokalise shows the token as {v} — only the last 4 visible",
            "Token im Screenshot geschwärzt: {v}",
            "old value {v} — redacted in the ticket",
        ],
    ),
    (
        "revoked_token_stated_revoked",
        b_revoked,
        [
            "REVOKED on 2026-11-30 after it leaked in the PR: {v} — dead, kept here for the incident timeline",
            "incident note: leaked GH token {v} was revoked within 10 min, GitHub confirms it's invalid",
            "Widerrufen und gelöscht: {v} (nur zur Dokumentation des Vorfalls)",
            "Token unieważniony w GitHubie (już nie działa): {v}",
        ],
    ),
    (
        "password_policy_text",
        b_num,
        [
            "Freelancer portal policy: min {v} chars, one digit, one symbol, no reuse of last 5",
            "Passwortrichtlinie: mindestens {v} Zeichen, Wechsel alle 90 Tage",
            "Polityka haseł: minimum {v} znaków, MFA obowiązkowe",
            "Politique : mot de passe d'au moins {v} caractères, jamais envoyé par e-mail",
            "パスワードは{v}文字以上、記号を含めること",
        ],
    ),
    (
        "ui_string_about_password",
        b_num,
        [
            'de-DE string login.password.forgot = "Passwort vergessen?" (key #{v})',
            'tr-TR: "Şifreniz en az {v} karakter olmalıdır" approved by reviewer',
            'pl-PL: "Wprowadź klucz API" for settings.api_key.label, {v} chars over limit',
            "ja-JP: 「パスワードを入力してください」(segment {v}) — client asked for politer form",
            'pt-BR: "Token de acesso inválido" segment {v} is locked',
        ],
    ),
    (
        "recaptcha_site_key",
        b_recaptcha_site,
        [
            "portal signup reCAPTCHA site key (public, in HTML): {v}",
            "RECAPTCHA_SITE_KEY={v}",
            'data-sitekey="{v}"',
            "Site key (öffentlich) für das Bewerberformular: {v}",
        ],
    ),
    (
        "stripe_publishable_key",
        b_pk,
        [
            "Stripe publishable key for the freelancer invoice page: {v}",
            "NEXT_PUBLIC_STRIPE_KEY={v}",
            "Chave publicável da Stripe (frontend): {v}",
            "Stripe('{v}')",
        ],
    ),
    (
        "stripe_test_card",
        b_num,
        [
            "for portal payments on staging use Stripe's test card 4242 4242 4242 4242, any CVC, exp 12/{v}",
            "Testkarte 4000 0000 0000 0002 (wird abgelehnt), Ablauf 01/{v}",
            "Cartão de teste Stripe: 4242424242424242, validade 10/{v}",
            "test card 5555 5555 5555 4444 / 12/{v} in sandbox",
        ],
    ),
    (
        "sentry_dsn_public",
        b_sentry,
        [
            "Sentry DSN for the portal frontend: {v}",
            "SENTRY_DSN={v}",
            'Sentry.init({ dsn: "{v}" })',
            "DSN Sentry (publiczny, we froncie): {v}",
        ],
    ),
    (
        "crowdin_ota_distribution_hash",
        b_ota,
        [
            "Crowdin OTA distribution hash for Nordbank Android: {v} (ships in the app)",
            'CrowdinSDK distributionHash = "{v}"',
            "Hash dystrybucji OTA Crowdin: {v}",
            "OTA distribution {v} published, release 4.2",
        ],
    ),
    (
        "algolia_search_only_key",
        b_algolia,
        [
            "Algolia search-only key for the docs portal (public): app {app}, key {v}",
            "algoliasearch('{app}', '{v}')  // search-only",
            "ALGOLIA_SEARCH_KEY={v}",
            "Nur-Such-Schlüssel Algolia (öffentlich): {v}",
        ],
    ),
    (
        "mapbox_public_token",
        b_mapbox,
        [
            "Mapbox public token for the store locator we localize: {v}",
            "mapboxgl.accessToken = '{v}';",
            "MAPBOX_PUBLIC_TOKEN={v}",
            "Token público do Mapbox (pk.) do cliente: {v}",
        ],
    ),
    (
        "ga_measurement_id",
        b_ga,
        [
            "GA4 id for the localized landing pages: {v}",
            "gtag('config', '{v}');",
            "Mess-ID Analytics: {v}",
            "GA ölçüm kimliği: {v}",
        ],
    ),
    (
        "docker_image_digest",
        b_digest,
        [
            "pin okapi-framework image to {v}",
            "image: lw/tikal@{v}",
            "Digest des Images: {v}",
            "docker pull lw/qa-checker@{v}",
        ],
    ),
    (
        "npm_integrity_hash",
        b_integrity,
        [
            'package-lock: "integrity": "{v}"',
            "integrity {v} mismatch on @lw/i18n-utils after republish",
            "Hash integralności pakietu: {v}",
            "integrity: {v}",
        ],
    ),
    (
        "jira_issue_and_build_id",
        b_issue,
        [
            "{v}: TR plural forms wrong, build #{b}",
            "Ticket {v} — Jenkins build {b} failed at crowdin download",
            "Siehe {v}, Build {b}",
            "{v} / pipeline {b} — hasło w UI się nie mieści (tekst PL za długi)",
        ],
    ),
    (
        "azure_subscription_id",
        b_uuid,
        [
            "Translator resource lives in subscription {v}",
            "az account set --subscription {v}",
            "Tenant ID: {v}",
            "Azure-Abonnement-ID: {v}",
        ],
    ),
    (
        "gcp_service_account_email",
        b_gcp_email,
        [
            "service account {v} has roles/cloudtranslate.user",
            "gcloud projects add-iam-policy-binding lw-mt-prod --member serviceAccount:{v} --role roles/cloudtranslate.user",
            "Dienstkonto: {v} (Schlüssel liegt im Vault, nicht hier)",
            '"client_email": "{v}"',
        ],
    ),
    (
        "aws_account_arn",
        b_arn,
        [
            "bucket {v} in account {acct}",
            '"Resource": "{v}/*"  (account {acct})',
            "Bucket do klienta: {v}, konto {acct}",
            "ARN: {v}",
        ],
    ),
    (
        "slack_channel_user_ids",
        b_slack_ids,
        [
            "post QA reports to channel {v}, mention {u}",
            "SLACK_CHANNEL={v}",
            "Kanal-ID {v}, PM-User {u}",
            "<@{u}> in {v} handles TR",
        ],
    ),
    (
        "base64_non_secret",
        b_b64,
        [
            "job metadata from the webhook payload (base64): {v}",
            "X-Lw-Job-Context: {v}",
            "Kontext des Auftrags (base64-kodiert): {v}",
            "{v}",
        ],
    ),
    (
        "xliff_unit_id",
        b_xliff,
        [
            '<trans-unit id="{v}" resname="checkout.title">',
            "segment id {v} has a broken tag pair",
            "Segment {v}: Tag-Fehler im Trados-Export",
            "Lokalise key hash {v} duplicated",
        ],
    ),
    (
        "bcrypt_hash",
        b_bcrypt,
        [
            "portal users table row for test account shows hash {v}",
            "password_hash = '{v}'",
            "bcrypt-Hash (Cost 12): {v}",
            "hash w bazie: {v}",
        ],
    ),
    (
        "webhook_delivery_id",
        b_uuid,
        [
            "Crowdin webhook delivery {v} failed with 502",
            "X-Request-Id: {v}",
            "Lokalise event id {v} retried 3x",
            "ID dostarczenia webhooka: {v}",
        ],
    ),
    (
        "translation_memory_filename",
        b_tmfile,
        [
            "TM export: {v}",
            "imported {v} into memoQ, 41k TUs",
            "TM-Datei {v} ans Lektorat geschickt",
            "Plik pamięci: {v}",
        ],
    ),
    (
        "deepl_usage_numbers",
        b_usage,
        [
            "DeepL usage this month: character_count {v} / 1000000",
            '{"character_count": {v}, "character_limit": 500000}',
            "DeepL-Verbrauch: {v} Zeichen",
            "Zużycie DeepL: {v} znaków",
        ],
    ),
    (
        "modernmt_memory_id",
        b_mmt_mem,
        [
            "ModernMT memory id for Kanto Seiki: {v}",
            "curl ... 'context_vector={v}:0.8'",
            "ModernMT bellek kimliği: {v}",
            "memory {v} updated with the reviewed TMX",
        ],
    ),
    (
        "invoice_po_number",
        b_po,
        [
            "freelancer invoice ref {v}",
            "Bestellnummer {v} für den Zeiss-Auftrag",
            "Numer zamówienia: {v}",
            "Número do pedido: {v}",
        ],
    ),
]


_FIELD = re.compile(r"\{(\w+)\}")


def _fill(tpl, d):
    return _FIELD.sub(lambda m: d[m.group(1)] if m.group(1) in d else m.group(0), tpl)


def corpus() -> list[dict]:
    r = random.Random(SEED)
    rows = []
    for label, table in (("secret", SECRETS), ("benign", BENIGN)):
        for kind, gen, templates in table:
            for tpl in templates:
                d = gen(r)
                text = _fill(tpl, d)
                assert d["v"] in text, (kind, tpl)
                rows.append({"label": label, "kind": kind, "text": text, "value": d["v"]})
    return rows


def main() -> None:
    out = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in corpus())
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w", encoding="utf-8") as f:
            f.write(out)
    else:
        sys.stdout.write(out)


if __name__ == "__main__":
    main()

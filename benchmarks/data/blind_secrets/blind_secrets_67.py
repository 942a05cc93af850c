# ruff: noqa: E501, UP031
"""Blind secret-detector corpus 67: newsroom data-journalism and digital team.

Brief: memory notes of a newsroom data/digital desk: scrapers and proxies, CMS (WordPress VIP, Arc-style) and publishing APIs, social and newsletter tools, FOIA and court-records portals, shared press-account logins, secure tip lines and PGP, analytics, maps/charts APIs, cloud notebooks; plus article ids, case numbers, dataset hashes and embed codes that look like secrets.

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Run: python blind_secrets_67.py [out.jsonl]

Kinds, secret: aws_secret_access_key, github_pat_classic, github_pat_fine_grained, gitlab_pat, slack_bot_token, slack_webhook_url, openai_api_key, anthropic_api_key, google_maps_server_key, gcp_service_account_private_key, google_oauth_client_secret, mapbox_secret_token, wordpress_application_password, wordpress_admin_password, wp_config_auth_salt, arc_cms_bearer_token, cms_session_jwt, mailchimp_api_key, sendgrid_api_key, twitter_bearer_token, facebook_page_access_token, residential_proxy_url_credentials, scraperapi_key, zyte_api_key, postgres_url_password, mysql_password, mongodb_srv_password, redis_url_password, openssh_private_key, pgp_private_key_block, pgp_key_passphrase, shared_social_account_password, pacer_password, foia_portal_password, totp_seed_base32, twofa_backup_codes, securedrop_journalist_passphrase, jupyter_server_token, databricks_token, huggingface_token, stripe_live_secret_key, datawrapper_api_token, chartbeat_api_key, cloudflare_api_token, azure_storage_connection_string, http_basic_auth_header, staging_url_basic_auth, npm_token, telegram_bot_token, twilio_auth_token, airtable_pat, notion_integration_token, census_api_key, dropbox_access_token, office_wifi_password
Kinds, benign: aws_documented_example_key, git_commit_sha, git_short_sha, dataset_sha256, file_md5_checksum, article_uuid, arc_ans_id, wordpress_post_id, court_case_number, foia_tracking_number, pgp_fingerprint, pgp_public_key_block, ssh_public_key, tls_certificate_pem, mapbox_public_token, stripe_publishable_key, recaptcha_site_key, ga_measurement_id, gtm_container_id, facebook_app_id, youtube_embed_id, tweet_status_id, placeholder_angle_brackets, placeholder_changeme, env_var_reference, password_manager_reference, masked_redacted_key, revoked_token_stated_revoked, revoked_github_pat_stated_revoked, stripe_test_card_number, password_policy_text, dataset_doi, slack_channel_user_id, google_sheet_id, datawrapper_chart_embed, documentcloud_doc_id, securedrop_onion_address, public_signal_tipline_number, mailchimp_audience_id, docker_image_digest, npm_integrity_hash, aws_account_and_distribution_id, gcp_service_account_email, sentry_event_id, ap_item_id, census_geoid, ga4_property_id, sentry_public_dsn, maps_js_key_referrer_restricted, nasa_demo_key, wayback_snapshot_url, hashed_email_segment, base64_image_data, utm_campaign_params, xxxx_filled_placeholder
"""

import base64
import json
import random
import sys

SEED = 6767

UP = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
LO = "abcdefghijklmnopqrstuvwxyz"
DG = "0123456789"
HEX = "0123456789abcdef"
AN = UP + LO + DG
B64URL = AN + "-_"
B32 = UP + "234567"

WORDS = [
    "harbor",
    "Tulip",
    "copydesk",
    "deadline",
    "Inkwell",
    "Metro",
    "pressrun",
    "Sunday",
    "lede",
    "Kicker",
    "Budget",
    "nutgraf",
    "Byline",
    "Frontpage",
    "scoop",
    "Wire",
]
DICE = [
    "correct",
    "horse",
    "battery",
    "staple",
    "lantern",
    "orbit",
    "quilt",
    "mango",
    "violet",
    "canyon",
    "pepper",
    "ribbon",
    "tundra",
    "walnut",
    "falcon",
    "mosaic",
    "glacier",
    "saddle",
]


def _s(rng, alphabet, n):
    return "".join(rng.choice(alphabet) for _ in range(n))


def _b64(rng, nbytes):
    return base64.b64encode(bytes(rng.getrandbits(8) for _ in range(nbytes))).decode()


def _b64u(data):
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _human(rng):
    return (
        rng.choice(WORDS)
        + rng.choice(WORDS).lower()
        + str(rng.randint(10, 9999))
        + rng.choice("!#$%*?@&")
    )


def _diceware(rng, n, sep=" "):
    return sep.join(rng.choice(DICE) for _ in range(n))


def _wrap(body, width=64):
    return "\n".join(body[i : i + width] for i in range(0, len(body), width))


def _pem(rng, label, prefix, nbytes):
    body = prefix + _b64(rng, nbytes)
    return f"-----BEGIN {label}-----\n{_wrap(body)}\n-----END {label}-----"


def _jwt(rng, payload):
    head = _b64u(json.dumps({"alg": "HS256", "typ": "JWT"}, separators=(",", ":")).encode())
    body = _b64u(json.dumps(payload, separators=(",", ":")).encode())
    return head + "." + body + "." + _s(rng, B64URL, 43)


def _mapbox(rng, prefix):
    payload = json.dumps(
        {"u": "metrodesk", "a": _s(rng, LO + DG, 25)}, separators=(",", ":")
    ).encode()
    return prefix + "." + _b64u(payload) + "." + _s(rng, B64URL, 22)


# ---------------------------------------------------------------- generators
# Each returns a dict; "v" is the value that must appear in the text.


def g_aws(rng):
    return {"v": _s(rng, AN + "/+", 40), "id": "AKIA" + _s(rng, UP + DG, 16)}


def g_ghp(rng):
    return {"v": "ghp_" + _s(rng, AN, 36)}


def g_ghfg(rng):
    return {"v": "github_pat_11" + _s(rng, UP + DG, 20) + "_" + _s(rng, AN, 59)}


def g_glpat(rng):
    return {"v": "glpat-" + _s(rng, B64URL, 20)}


def g_xoxb(rng):
    return {"v": f"xoxb-{_s(rng, DG, 12)}-{_s(rng, DG, 13)}-{_s(rng, AN, 24)}"}


def g_slackhook(rng):
    return {
        "v": f"https://hooks.slack.com/services/T{_s(rng, UP + DG, 9)}/B{_s(rng, UP + DG, 10)}/{_s(rng, AN, 24)}"
    }


def g_openai(rng):
    return {"v": "sk-proj-" + _s(rng, B64URL, 74) + "T3BlbkFJ" + _s(rng, B64URL, 74)}


def g_anthropic(rng):
    return {"v": "sk-ant-api03-" + _s(rng, B64URL, 93) + "AA"}


def g_gmaps(rng):
    return {"v": "AIza" + _s(rng, B64URL, 35)}


def g_gcp_sa(rng):
    pem = _pem(rng, "PRIVATE KEY", "MIIEvgIBADANBgkqhkiG9w0BAQEFAASCBKgwggSkAgEAAoIBAQ", 600)
    return {"v": pem.replace("\n", "\\n"), "kid": _s(rng, HEX, 40)}


def g_gocspx(rng):
    return {
        "v": "GOCSPX-" + _s(rng, B64URL, 28),
        "cid": _s(rng, DG, 12) + "-" + _s(rng, LO + DG, 32),
    }


def g_mapbox_sk(rng):
    return {"v": _mapbox(rng, "sk")}


def g_wp_app(rng):
    return {"v": " ".join(_s(rng, AN, 4) for _ in range(6))}


def g_human(rng):
    return {"v": _human(rng)}


def g_wp_salt(rng):
    return {"v": _s(rng, AN + "!@#$%^&*()-_[]{}<>~+=,.;:/?|", 64)}


def g_arc(rng):
    return {"v": _s(rng, UP + DG, 32) + _s(rng, AN, 32)}


def g_cms_jwt(rng):
    return {
        "v": _jwt(
            rng,
            {
                "sub": "u" + _s(rng, DG, 6),
                "role": "editor",
                "iat": 1790000000 + rng.randint(0, 9999999),
                "exp": 1800000000 + rng.randint(0, 9999999),
            },
        )
    }


def g_mailchimp(rng):
    return {"v": _s(rng, HEX, 32) + "-us" + str(rng.randint(2, 21))}


def g_sendgrid(rng):
    return {"v": "SG." + _s(rng, B64URL, 22) + "." + _s(rng, B64URL, 43)}


def g_twitter(rng):
    return {"v": "A" * 22 + _s(rng, AN, 19) + "%3D" + _s(rng, AN, 50)}


def g_fb(rng):
    return {"v": "EAAG" + _s(rng, AN, 180)}


def g_proxy(rng):
    return {"v": _s(rng, LO + DG, 12), "zone": "hl_" + _s(rng, HEX, 8)}


def g_hex32(rng):
    return {"v": _s(rng, HEX, 32)}


def g_hex40(rng):
    return {"v": _s(rng, HEX, 40)}


def g_genpw(rng):
    return {"v": _s(rng, AN, 20)}


def g_ossh(rng):
    return {
        "v": _pem(
            rng,
            "OPENSSH PRIVATE KEY",
            "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW",
            280,
        )
    }


def g_pgp_priv(rng):
    body = _wrap("lQdGBF" + _b64(rng, 420))
    crc = "=" + _b64(rng, 3)
    return {
        "v": f"-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n{body}\n{crc}\n-----END PGP PRIVATE KEY BLOCK-----"
    }


def g_dice6(rng):
    return {"v": _diceware(rng, 6)}


def g_dice7(rng):
    return {"v": _diceware(rng, 7)}


def g_totp(rng):
    return {"v": _s(rng, B32, 32)}


def g_backup(rng):
    return {"v": "  ".join(_s(rng, DG, 4) + " " + _s(rng, DG, 4) for _ in range(5))}


def g_jupyter(rng):
    return {"v": _s(rng, HEX, 48)}


def g_dapi(rng):
    return {"v": "dapi" + _s(rng, HEX, 32)}


def g_hf(rng):
    return {"v": "hf_" + _s(rng, UP + LO, 34)}


def g_stripe_sk(rng):
    return {"v": "sk_live_51" + _s(rng, AN, 97)}


def g_dw(rng):
    return {"v": _s(rng, AN, 64)}


def g_cf(rng):
    return {"v": _s(rng, B64URL, 40)}


def g_azure(rng):
    return {"v": _b64(rng, 64)}


def g_basic(rng):
    pw = _human(rng)
    return {"v": base64.b64encode(("dataeditor:" + pw).encode()).decode()}


def g_npm(rng):
    return {"v": "npm_" + _s(rng, AN, 36)}


def g_tg(rng):
    return {"v": _s(rng, DG, 10) + ":AA" + _s(rng, B64URL, 33)}


def g_twilio(rng):
    return {"v": _s(rng, HEX, 32), "sid": "AC" + _s(rng, HEX, 32)}


def g_airtable(rng):
    return {"v": "pat" + _s(rng, AN, 14) + "." + _s(rng, HEX, 64)}


def g_notion(rng):
    return {"v": "ntn_" + _s(rng, DG, 11) + _s(rng, AN, 35)}


def g_dropbox(rng):
    return {"v": "sl.B" + _s(rng, B64URL, 135)}


# benign generators


def g_sha40(rng):
    return {"v": _s(rng, HEX, 40)}


def g_sha7(rng):
    return {"v": _s(rng, HEX, 7)}


def g_sha256(rng):
    return {"v": _s(rng, HEX, 64)}


def g_uuid(rng):
    h = _s(rng, HEX, 32)
    h = h[:12] + "4" + h[13:16] + rng.choice("89ab") + h[17:]
    return {"v": f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"}


def g_ans(rng):
    return {"v": _s(rng, UP + "234567", 26)}


def g_postid(rng):
    return {"v": str(rng.randint(100000, 9999999))}


def g_case(rng):
    return {
        "v": "%d:%02d-%s-%05d-%s"
        % (
            rng.randint(1, 4),
            rng.randint(18, 26),
            rng.choice(["cv", "cr"]),
            rng.randint(100, 99999),
            _s(rng, UP, 3),
        )
    }


def g_foia(rng):
    return {
        "v": "%d-%s-%06d"
        % (rng.randint(2022, 2026), rng.choice(["FOIA", "OS", "HQ-FOIA"]), rng.randint(1, 999999))
    }


def g_fpr(rng):
    h = _s(rng, UP[:6] + DG, 40)
    return {"v": " ".join(h[i : i + 4] for i in range(0, 40, 4))}


def g_pgp_pub(rng):
    body = _wrap("mQINBG" + _b64(rng, 420))
    return {
        "v": f"-----BEGIN PGP PUBLIC KEY BLOCK-----\n\n{body}\n={_b64(rng, 3)}\n-----END PGP PUBLIC KEY BLOCK-----"
    }


def g_sshpub(rng):
    return {"v": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + _s(rng, AN + "+/", 43)}


def g_cert(rng):
    return {"v": _pem(rng, "CERTIFICATE", "MIIDdzCCAl+gAwIBAgIU", 540)}


def g_mapbox_pk(rng):
    return {"v": _mapbox(rng, "pk")}


def g_pk_live(rng):
    return {"v": "pk_live_51" + _s(rng, AN, 97)}


def g_recaptcha(rng):
    return {"v": "6L" + _s(rng, B64URL, 38)}


def g_ga(rng):
    return {"v": "G-" + _s(rng, UP + DG, 10)}


def g_gtm(rng):
    return {"v": "GTM-" + _s(rng, UP + DG, 7)}


def g_fbapp(rng):
    return {"v": _s(rng, "123456789", 1) + _s(rng, DG, 14)}


def g_yt(rng):
    return {"v": _s(rng, B64URL, 11)}


def g_tweet(rng):
    return {"v": "1" + _s(rng, DG, 18)}


def g_masked(rng):
    return {"v": "sk-proj-" + "*" * 12 + _s(rng, AN, 4)}


def g_revoked(rng):
    return {"v": f"xoxb-{_s(rng, DG, 12)}-{_s(rng, DG, 13)}-{_s(rng, AN, 24)}"}


def g_revoked_gh(rng):
    return {"v": "ghp_" + _s(rng, AN, 36)}


def g_doi(rng):
    return {"v": "10.5281/zenodo.%d" % rng.randint(1000000, 9999999)}


def g_slackid(rng):
    return {"v": "C0" + _s(rng, UP + DG, 9)}


def g_sheet(rng):
    return {"v": "1" + _s(rng, B64URL, 43)}


def g_dwchart(rng):
    return {"v": _s(rng, LO + UP + DG, 5)}


def g_dcdoc(rng):
    return {"v": str(rng.randint(20000000, 25999999))}


def g_onion(rng):
    return {"v": _s(rng, LO + "234567", 56) + ".onion"}


def g_phone(rng):
    return {
        "v": "+1 %03d-%03d-%04d"
        % (rng.randint(201, 989), rng.randint(200, 999), rng.randint(0, 9999))
    }


def g_mcaud(rng):
    return {"v": _s(rng, HEX, 10)}


def g_npmint(rng):
    return {"v": "sha512-" + _b64(rng, 64)}


def g_awsacct(rng):
    return {"v": _s(rng, DG, 12), "dist": "E" + _s(rng, UP + DG, 13)}


def g_saemail(rng):
    return {"v": f"scraper-runner@newsroom-data-{_s(rng, DG, 6)}.iam.gserviceaccount.com"}


def g_wayback(rng):
    return {
        "v": "%d%02d%02d%06d"
        % (rng.randint(2015, 2026), rng.randint(1, 12), rng.randint(1, 28), rng.randint(0, 235959))
    }


def g_b64img(rng):
    return {"v": "iVBORw0KGgoAAAANSUhEUgAA" + _b64(rng, 60)}


def g_utm(rng):
    return {"v": "nl_" + _s(rng, LO + DG, 10)}


def g_stripe_card(rng):
    return {
        "v": rng.choice(
            [
                "4242 4242 4242 4242",
                "4000 0566 5566 5556",
                "5555 5555 5555 4444",
                "4000 0000 0000 9995",
            ]
        )
    }


def g_placeholder(rng):
    return {
        "v": rng.choice(["<your-token>", "<API_KEY>", "<paste-token-here>", "YOUR_API_KEY_HERE"])
    }


def g_changeme(rng):
    return {"v": rng.choice(["changeme", "password", "CHANGE_ME", "hunter2-not-real"])}


def g_envref(rng):
    return {
        "v": rng.choice(
            [
                "${SCRAPER_PROXY_PASS}",
                "$MAILCHIMP_API_KEY",
                "${{ secrets.WPVIP_TOKEN }}",
                "os.environ['DW_TOKEN']",
            ]
        )
    }


def g_vault(rng):
    return {
        "v": rng.choice(
            [
                "op://Newsroom-Data/PACER/password",
                "vault:secret/data/newsroom/arc#token",
                "bw://Press accounts/X main",
                "op://Newsroom-Data/ScraperAPI/credential",
            ]
        )
    }


def g_xxxx(rng):
    return {
        "v": rng.choice(
            [
                "xxxxxxxxxxxxxxxxxxxxxxxx",
                "XXXX-XXXX-XXXX-XXXX",
                "sk_live_xxxxxxxxxxxxxxxx",
                "ghp_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX",
            ]
        )
    }


def g_policy(rng):
    return {"v": "minimum %d characters" % rng.randint(12, 16)}


def g_md5(rng):
    return {"v": _s(rng, HEX, 32)}


def g_digest(rng):
    return {"v": "sha256:" + _s(rng, HEX, 64)}


def g_docex(rng):
    return {"v": rng.choice(["AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"])}


def g_sentry_evt(rng):
    return {"v": _s(rng, HEX, 32)}


def g_geoid(rng):
    return {
        "v": "%02d%03d%06d" % (rng.randint(1, 56), rng.randint(1, 199), rng.randint(100, 990000))
    }


def g_ga4prop(rng):
    return {"v": str(rng.randint(200000000, 499999999))}


def g_sentry_dsn(rng):
    return {"v": f"https://{_s(rng, HEX, 32)}@o{_s(rng, DG, 6)}.ingest.sentry.io/{_s(rng, DG, 7)}"}


def g_nasa(rng):
    return {"v": "DEMO_KEY"}


# ---------------------------------------------------------------- specs
SECRET = [
    (
        "aws_secret_access_key",
        g_aws,
        [
            "scraper bucket creds (s3://newsroom-scrapes): key id {id} / secret {v}",
            "aws configure --profile datadesk  -> AWS_ACCESS_KEY_ID={id} AWS_SECRET_ACCESS_KEY={v}",
            "| datadesk-ci | {id} | {v} | rotate Q1 |",
            "FYI the secret half for {id} is\n{v}",
        ],
    ),
    (
        "github_pat_classic",
        g_ghp,
        [
            "PAT for pushing the elections repo from the notebook box: {v}",
            "git clone https://{v}@github.com/metro-data/elex-results.git",
            "GH_TOKEN={v}",
            "pasted from #data-dev: 'use mine for now pls dont share → {v}'",
        ],
    ),
    (
        "github_pat_fine_grained",
        g_ghfg,
        [
            "fine-grained token, contents:write on graphics-templates only: {v}",
            "gh auth login --with-token <<< {v}",
            "github:\n  token: {v}\n  repo: metro-data/graphics-templates",
        ],
    ),
    (
        "gitlab_pat",
        g_glpat,
        [
            "self-hosted gitlab (gitlab.metro-news.internal) deploy token for the scraper runners {v}",
            "export CI_PUSH_TOKEN={v}  # scraper-runners group",
            "Token de GitLab para los scrapers del equipo de datos: {v}",
        ],
    ),
    (
        "slack_bot_token",
        g_xoxb,
        [
            "Slack bot 'DeskBot' that posts scraper failures, bot token {v}",
            "SLACK_BOT_TOKEN={v}",
            "curl -H 'Authorization: Bearer {v}' https://slack.com/api/chat.postMessage -d channel=C01DATAALERT",
            "deskbot token (old workspace migrated, still works): {v}",
        ],
    ),
    (
        "slack_webhook_url",
        g_slackhook,
        [
            "alerts webhook for #elex-night: {v}",
            'requests.post("{v}", json={"text": "county feed stale"})',
            "webhook_url = {v}",
            "Nightly scrape summary goes to\n{v}",
        ],
    ),
    (
        "openai_api_key",
        g_openai,
        [
            "OpenAI key on the team billing acct (used by the transcript summariser): {v}",
            "OPENAI_API_KEY={v}",
            'client = OpenAI(api_key="{v}")',
            "Chave da OpenAI do projeto de checagem: {v} — não colocar no repo",
        ],
    ),
    (
        "anthropic_api_key",
        g_anthropic,
        [
            "claude key for the FOIA-doc triage notebook: {v}",
            "ANTHROPIC_API_KEY={v}",
            "x-api-key: {v}",
        ],
    ),
    (
        "google_maps_server_key",
        g_gmaps,
        [
            "Geocoding key (server side, NOT the browser one, no referrer restriction!) {v}",
            "GMAPS_GEOCODE_KEY={v}  # used by geocode_addresses.py, unrestricted",
            "curl 'https://maps.googleapis.com/maps/api/geocode/json?address=City+Hall&key={v}'",
            "Schlüssel für das Geocoding im Backend (ohne Einschränkung): {v}",
        ],
    ),
    (
        "gcp_service_account_private_key",
        g_gcp_sa,
        [
            '{"type": "service_account", "project_id": "newsroom-notebooks", "private_key_id": "{kid}", "private_key": "{v}\\n", "client_email": "bq-reader@newsroom-notebooks.iam.gserviceaccount.com"}',
            'bq reader SA json (pasted so we stop asking): private_key_id {kid}, "private_key": "{v}\\n"',
            'colab secret GCP_SA_KEY =\n{"private_key": "{v}\\n", "client_email": "colab-runner@newsroom-notebooks.iam.gserviceaccount.com"}',
        ],
    ),
    (
        "google_oauth_client_secret",
        g_gocspx,
        [
            "OAuth client for the Sheets→CMS sync: client_id {cid}.apps.googleusercontent.com client_secret {v}",
            "GOOGLE_CLIENT_SECRET={v}",
            '{"installed":{"client_id":"{cid}.apps.googleusercontent.com","client_secret":"{v}","redirect_uris":["http://localhost"]}}',
        ],
    ),
    (
        "mapbox_secret_token",
        g_mapbox_sk,
        [
            "mapbox SECRET token (uploads/tilesets:write) for the flood maps: {v}",
            "MAPBOX_UPLOAD_TOKEN={v}",
            "tilesets upload-source metrodesk precincts-2026 precincts.geojson --token {v}",
            "sk token for tileset uploads, don't put in the embed: {v}",
        ],
    ),
    (
        "wordpress_application_password",
        g_wp_app,
        [
            "WP VIP app password for the 'datadesk-bot' user (REST publishing): {v}",
            "curl -u datadesk-bot:'{v}' https://metronews.wpcomstaging.com/wp-json/wp/v2/posts",
            'wp_app_password: "{v}"',
            "Application password (Users > datadesk-bot) → {v}",
        ],
    ),
    (
        "wordpress_admin_password",
        g_human,
        [
            "wp-admin on the elections microsite: user datadesk / {v}",
            "staging WP admin pw changed to {v} after the intern left",
            "mot de passe admin WordPress du site des élections : {v}",
            "login for elections.metro-news.com/wp-admin is datadesk, {v}",
        ],
    ),
    (
        "wp_config_auth_salt",
        g_wp_salt,
        [
            "define( 'AUTH_KEY',         '{v}' );",
            "wp-config on the microsite — LOGGED_IN_SALT '{v}'",
            "define('SECURE_AUTH_KEY', '{v}');  // microsite prod",
        ],
    ),
    (
        "arc_cms_bearer_token",
        g_arc,
        [
            "Arc content API access token (prod, read/write drafts): {v}",
            'curl -H "Authorization: Bearer {v}" https://api.metro-news.arcpublishing.com/draft/v1/story',
            "ARC_ACCESS_TOKEN={v}",
            "Arc dev-center token for the sandbox *and* prod (same one, yes I know): {v}",
        ],
    ),
    (
        "cms_session_jwt",
        g_cms_jwt,
        [
            "if SSO is down you can reuse my CMS session, cookie cms_session={v}",
            "Authorization: Bearer {v}",
            "copy of the photo-desk session token for the bulk caption fix: {v}",
        ],
    ),
    (
        "mailchimp_api_key",
        g_mailchimp,
        [
            "Mailchimp API key for the morning newsletter automation: {v}",
            "MAILCHIMP_API_KEY={v}",
            "curl --user 'anystring:{v}' https://us6.api.mailchimp.com/3.0/lists",
            "clave de Mailchimp (boletín matutino): {v}",
        ],
    ),
    (
        "sendgrid_api_key",
        g_sendgrid,
        [
            "SendGrid key for breaking-news alerts: {v}",
            "SENDGRID_API_KEY={v}",
            "sendgrid:\n  api_key: {v}\n  from: alerts@metro-news.com",
        ],
    ),
    (
        "twitter_bearer_token",
        g_twitter,
        [
            "X/Twitter API bearer for the social listening scraper: {v}",
            "TWITTER_BEARER_TOKEN={v}",
            "curl -H 'Authorization: Bearer {v}' 'https://api.twitter.com/2/tweets/search/recent?query=from:cityhall'",
        ],
    ),
    (
        "facebook_page_access_token",
        g_fb,
        [
            "FB page token (never-expiring) for the Metro News page, for crossposting: {v}",
            "FB_PAGE_TOKEN={v}",
            "graph.facebook.com/v19.0/me/feed?access_token={v}",
        ],
    ),
    (
        "residential_proxy_url_credentials",
        g_proxy,
        [
            "residential proxy for the court scraper: http://brd-customer-{zone}-zone-resi:{v}@brd.superproxy.io:22225",
            "HTTPS_PROXY=http://metro-data:{v}@gate.smartproxy.com:7000",
            "scrapy settings: PROXY = 'http://user-metrodesk:{v}@pr.oxylabs.io:7777'",
            "proxy pool login: metro-data / {v} (gate.smartproxy.com:7000)",
        ],
    ),
    (
        "scraperapi_key",
        g_hex32,
        [
            "scraperapi key (5M plan): {v}",
            "curl 'http://api.scraperapi.com?api_key={v}&url=https://courts.state.gov/search'",
            "SCRAPERAPI_KEY={v}",
            "ScraperAPI-Schlüssel für den Gerichts-Scraper: {v}",
        ],
    ),
    (
        "zyte_api_key",
        g_hex32,
        [
            "Zyte API key for the price-tracker spiders: {v}",
            "shub login -> API key {v}",
            'ZYTE_API_KEY = "{v}"',
        ],
    ),
    (
        "postgres_url_password",
        g_genpw,
        [
            "DATABASE_URL=postgresql://datadesk:{v}@db.elex.internal:5432/elections",
            "psql 'postgres://analyst:{v}@10.20.3.14:5432/campaign_finance'",
            "warehouse pg: host pg-warehouse.internal user analyst pw {v}",
            "sqlalchemy url: postgresql+psycopg2://datadesk:{v}@db.elex.internal/elections",
        ],
    ),
    (
        "mysql_password",
        g_human,
        [
            "mysql -h legacy-cms-db -u wp_ro -p'{v}' wordpress",
            "old Drupal archive DB: user archive_ro password {v}",
            "MYSQL_PASSWORD={v}",
        ],
    ),
    (
        "mongodb_srv_password",
        g_genpw,
        [
            "MONGO_URI=mongodb+srv://tips-app:{v}@cluster0.x7qzp.mongodb.net/tips",
            "atlas conn str for the comment moderation dump: mongodb+srv://moderation:{v}@comments.ab12c.mongodb.net",
            'mongosh "mongodb+srv://datadesk:{v}@scrapes.9fkq1.mongodb.net/admin"',
        ],
    ),
    (
        "redis_url_password",
        g_genpw,
        [
            "REDIS_URL=redis://:{v}@redis-queue.internal:6379/0",
            "rq queue for scrapers → rediss://default:{v}@live-queue.upstash.io:6379",
            "redis-cli -h redis-queue.internal -a {v}",
        ],
    ),
    (
        "openssh_private_key",
        g_ossh,
        [
            "deploy key for the scraper box (ubuntu@scraper-01):\n{v}",
            "id_ed25519 for the notebook VM, paste into ~/.ssh:\n{v}",
            "{v}",
        ],
    ),
    (
        "pgp_private_key_block",
        g_pgp_priv,
        [
            "tips@ desk key (SECRET part, for the new laptop):\n{v}",
            "export of the investigations team key:\n{v}",
            "{v}",
        ],
    ),
    (
        "pgp_key_passphrase",
        g_dice6,
        [
            "passphrase for the tips@metro-news.com PGP key: {v}",
            "gpg --batch --passphrase '{v}' -d leak_batch3.zip.gpg",
            'the investigations key unlocks with "{v}"',
            "Passphrase der Hinweisgeber-PGP-Schlüssel: {v}",
        ],
    ),
    (
        "shared_social_account_password",
        g_human,
        [
            "main X account @MetroNews — login social@metro-news.com, {v}",
            "Instagram (metronews) pw is {v}, 2FA goes to the desk phone",
            "TikTok desk account: metronews_official / {v}",
            "la contraseña de la cuenta de Instagram del diario es {v}",
            "Threads/IG shared login changed today → {v}",
        ],
    ),
    (
        "pacer_password",
        g_human,
        [
            "PACER login (firm acct, $$ billed to data desk): metrodata / {v}",
            "pacer: user metrodata pass {v} — check the quarterly cap before bulk pulls",
            "PACER_PASSWORD={v}",
            "courtlistener RECAP is free but for sealed-adjacent dockets use PACER, metrodata + {v}",
        ],
    ),
    (
        "foia_portal_password",
        g_human,
        [
            "MuckRock org login: foia@metro-news.com / {v}",
            "state records portal (GovQA) account for FOIA: records@metro-news.com pw {v}",
            "FOIAonline acct: metrofoia, password {v}",
            "Zugang zum Auskunftsportal (IFG): presse@metro-news.de / {v}",
        ],
    ),
    (
        "totp_seed_base32",
        g_totp,
        [
            "2FA seed for @MetroNews so anyone on rota can add it to their authenticator: {v}",
            "otpauth://totp/X:MetroNews?secret={v}&issuer=X",
            "TOTP secret (PACER MFA): {v}",
            "if you lose the desk phone, re-add the Instagram authenticator with\n{v}",
        ],
    ),
    (
        "twofa_backup_codes",
        g_backup,
        [
            "backup codes for the X account (each works once): {v}",
            "Google Workspace recovery codes for newsdesk@: {v}",
            "IG backup codes:\n{v}",
        ],
    ),
    (
        "securedrop_journalist_passphrase",
        g_dice7,
        [
            "SecureDrop journalist login for the tips rota: user metro_tips, passphrase {v}",
            "SD journalist interface (rotate monthly): {v}",
            "Tails persistent volume passphrase on the SVS stick: {v}",
        ],
    ),
    (
        "jupyter_server_token",
        g_jupyter,
        [
            "notebook server on the GPU box: http://10.20.3.40:8888/?token={v}",
            "jupyter lab --ip 0.0.0.0 --NotebookApp.token={v}",
            "JupyterHub API token for the scheduler: {v}",
        ],
    ),
    (
        "databricks_token",
        g_dapi,
        [
            "Databricks PAT for the audience data notebooks: {v}",
            "DATABRICKS_TOKEN={v}",
            "databricks configure --token  (host https://adb-1234567890.11.azuredatabricks.net, token {v})",
        ],
    ),
    (
        "huggingface_token",
        g_hf,
        [
            "HF token (write) for pushing the transcription model fine-tune: {v}",
            "huggingface-cli login --token {v}",
            "HF_TOKEN={v}",
        ],
    ),
    (
        "stripe_live_secret_key",
        g_stripe_sk,
        [
            "Stripe LIVE secret for the donations page: {v}",
            "STRIPE_SECRET_KEY={v}",
            'stripe.api_key = "{v}"',
        ],
    ),
    (
        "datawrapper_api_token",
        g_dw,
        [
            "Datawrapper API token (team: Metro Graphics) for auto-updating the covid charts: {v}",
            "curl -H 'Authorization: Bearer {v}' https://api.datawrapper.de/v3/charts",
            "DW_TOKEN={v}",
            "token de Datawrapper para actualizar los gráficos: {v}",
        ],
    ),
    (
        "chartbeat_api_key",
        g_hex32,
        [
            "Chartbeat API key (all-access) for the top-stories widget: {v}",
            "curl 'https://api.chartbeat.com/live/toppages/v3/?apikey={v}&host=metro-news.com'",
            "CHARTBEAT_APIKEY={v}",
        ],
    ),
    (
        "cloudflare_api_token",
        g_cf,
        [
            "CF token w/ zone:edit on metro-news.com (for purging cache after elex updates): {v}",
            "curl -X POST https://api.cloudflare.com/client/v4/zones/ZONE/purge_cache -H 'Authorization: Bearer {v}'",
            "CLOUDFLARE_API_TOKEN={v}",
        ],
    ),
    (
        "azure_storage_connection_string",
        g_azure,
        [
            "DefaultEndpointsProtocol=https;AccountName=metrodataarchive;AccountKey={v};EndpointSuffix=core.windows.net",
            "archive blob key1 (storage acct metrodataarchive): {v}",
            "az storage blob upload --account-name metrodataarchive --account-key {v} -c scrapes -f out.csv",
        ],
    ),
    (
        "http_basic_auth_header",
        g_basic,
        [
            "Authorization: Basic {v}",
            "the embargo preview server wants header Authorization: Basic {v}",
            "curl -H 'Authorization: Basic {v}' https://preview.metro-news.com/embargo/",
        ],
    ),
    (
        "staging_url_basic_auth",
        g_human,
        [
            "staging: https://editor:{v}@staging.metro-news.com/",
            "preview link for the investigation (send to lawyers only): https://legal:{v}@preview.metro-news.com/inv/housing",
            "htpasswd user 'preview' pass {v} on preview.metro-news.com",
        ],
    ),
    (
        "npm_token",
        g_npm,
        [
            "//registry.npmjs.org/:_authToken={v}",
            "npm token for publishing @metronews/graphics-kit: {v}",
            "NPM_TOKEN={v}",
        ],
    ),
    (
        "telegram_bot_token",
        g_tg,
        [
            "telegram tip bot (@MetroTipsBot) token {v}",
            "TELEGRAM_BOT_TOKEN={v}",
            "https://api.telegram.org/bot{v}/getUpdates",
        ],
    ),
    (
        "twilio_auth_token",
        g_twilio,
        [
            "Twilio for the SMS tip line: account {sid} auth token {v}",
            "TWILIO_ACCOUNT_SID={sid}\nTWILIO_AUTH_TOKEN={v}",
            "curl -u {sid}:{v} https://api.twilio.com/2010-04-01/Accounts/{sid}/Messages.json",
        ],
    ),
    (
        "airtable_pat",
        g_airtable,
        [
            "Airtable PAT for the source-tracker base: {v}",
            "AIRTABLE_TOKEN={v}",
            "Authorization: Bearer {v}  (airtable, base appQx ... sources)",
        ],
    ),
    (
        "notion_integration_token",
        g_notion,
        [
            "Notion integration 'story-budget-sync' secret: {v}",
            "NOTION_TOKEN={v}",
            "notion internal integration token → {v}",
        ],
    ),
    (
        "census_api_key",
        g_hex40,
        [
            "Census API key (registered to the data desk email): {v}",
            "CENSUS_API_KEY={v}",
            "https://api.census.gov/data/2022/acs/acs5?get=NAME,B01001_001E&for=county:*&key={v}",
        ],
    ),
    (
        "dropbox_access_token",
        g_dropbox,
        [
            "dropbox token for the photo-desk ingest script: {v}",
            "DROPBOX_ACCESS_TOKEN={v}",
            'dbx = dropbox.Dropbox("{v}")',
        ],
    ),
    (
        "office_wifi_password",
        g_human,
        [
            "newsroom wifi (MetroNews-Staff, not Guest) pw: {v}",
            "WLAN im Newsroom: MetroNews-Staff / {v}",
            "staff wifi password is {v}",
        ],
    ),
]

BENIGN = [
    (
        "aws_documented_example_key",
        g_docex,
        [
            "AWS docs use {v} as the sample key — that's the one in our README snippet, not real",
            "example from the boto3 docs: {v}",
            "# sample creds from AWS documentation\naws_access_key_id_or_secret = {v}",
        ],
    ),
    (
        "git_commit_sha",
        g_sha40,
        [
            "elex-results deployed at commit {v}",
            "reverted {v} (broke the county table)",
            "git checkout {v} -- scrapers/courts.py",
            "commit\n{v}",
            "| 2026-11-03 | {v} | election night freeze |",
        ],
    ),
    (
        "git_short_sha",
        g_sha7,
        [
            "fix landed in {v}, redeploy tonight",
            "regression introduced by {v}",
            "cherry-pick {v} onto release/elex",
        ],
    ),
    (
        "dataset_sha256",
        g_sha256,
        [
            "campaign finance dump 2026-Q3, sha256 {v}",
            "sha256sum police_stops_2025.csv.gz → {v}",
            "{v}  contracts_2026.parquet",
            "Archived FOIA release, hash for chain-of-custody: {v}",
            "Hash SHA-256 del conjunto de datos de contratos: {v}",
        ],
    ),
    (
        "file_md5_checksum",
        g_md5,
        [
            "md5 of the leaked spreadsheet as received: {v}",
            'ETag from S3 for the scrape output: "{v}"',
            "md5sum docket_export.zip = {v}",
        ],
    ),
    (
        "article_uuid",
        g_uuid,
        [
            "story id for the housing investigation: {v}",
            "the sidebar embed references article {v}",
            "| housing-pt2 | {v} | scheduled 06:00 |",
        ],
    ),
    (
        "arc_ans_id",
        g_ans,
        [
            "Arc ANS id of the elex live blog: {v}",
            "circulate story {v} to the sports section too",
            "GET /content/v4/?_id={v}&website=metro-news",
            "ANS-ID der Wahl-Liveblog-Story: {v}",
        ],
    ),
    (
        "wordpress_post_id",
        g_postid,
        [
            "WP post {v} is the evergreen explainer, don't unpublish",
            "wp post update {v} --post_status=draft",
            "https://metro-news.com/?p={v}",
        ],
    ),
    (
        "court_case_number",
        g_case,
        [
            "docket to watch: {v} (S.D.N.Y.)",
            "pull all filings in case {v} from RECAP first",
            "| city v. contractor | {v} | hearing 12/14 |",
            "número de caso federal: {v}",
        ],
    ),
    (
        "foia_tracking_number",
        g_foia,
        [
            "FOIA request tracking no. {v}, fee waiver pending",
            "appeal filed for {v}",
            "| ICE detention data | {v} | acknowledged |",
            "Aktenzeichen der IFG-Anfrage: {v}",
        ],
    ),
    (
        "pgp_fingerprint",
        g_fpr,
        [
            "tips@ PGP fingerprint (publish on the contact page): {v}",
            "verify the key before encrypting: {v}",
            "Fingerprint: {v}",
            "huella de la clave PGP del buzón de filtraciones: {v}",
        ],
    ),
    (
        "pgp_public_key_block",
        g_pgp_pub,
        [
            "public key for the tips page:\n{v}",
            "{v}",
            "reporter public key, import with gpg --import:\n{v}",
        ],
    ),
    (
        "ssh_public_key",
        g_sshpub,
        [
            "add to authorized_keys on scraper-01: {v} maria@laptop",
            "{v} ci@scraper-runners",
            "public key for the notebook VM (fine to share): {v}",
        ],
    ),
    (
        "tls_certificate_pem",
        g_cert,
        [
            "cert for the elections microsite (public):\n{v}",
            "{v}",
            "CA chain for the court portal, needed because their cert is odd:\n{v}",
        ],
    ),
    (
        "mapbox_public_token",
        g_mapbox_pk,
        [
            "public mapbox token for the flood map embed (URL-restricted to metro-news.com): {v}",
            "mapboxgl.accessToken = '{v}';",
            "pk token is fine in the frontend: {v}",
        ],
    ),
    (
        "stripe_publishable_key",
        g_pk_live,
        [
            "Stripe publishable key for the donate button: {v}",
            "const stripe = Stripe('{v}');",
            "NEXT_PUBLIC_STRIPE_KEY={v}",
        ],
    ),
    (
        "recaptcha_site_key",
        g_recaptcha,
        [
            "reCAPTCHA site key for the tip form: {v}",
            '<div class="g-recaptcha" data-sitekey="{v}"></div>',
            "site key (public) {v}",
            "RECAPTCHA_SITE_KEY={v}",
        ],
    ),
    (
        "ga_measurement_id",
        g_ga,
        [
            "GA4 measurement id for the elections microsite: {v}",
            "gtag('config', '{v}');",
            "ID de medición de GA4: {v}",
        ],
    ),
    (
        "gtm_container_id",
        g_gtm,
        [
            "GTM container for metro-news.com: {v}",
            '<noscript><iframe src="https://www.googletagmanager.com/ns.html?id={v}"></iframe></noscript>',
            "tag manager {v} (prod)",
        ],
    ),
    (
        "facebook_app_id",
        g_fbapp,
        [
            "fb:app_id meta tag value {v}",
            '<meta property="fb:app_id" content="{v}" />',
            "Meta pixel id {v}",
        ],
    ),
    (
        "youtube_embed_id",
        g_yt,
        [
            '<iframe src="https://www.youtube.com/embed/{v}" allowfullscreen></iframe>',
            "council meeting video: https://youtu.be/{v}",
            "embed id {v} for the explainer",
        ],
    ),
    (
        "tweet_status_id",
        g_tweet,
        [
            "embed the mayor's post https://x.com/MayorOffice/status/{v}",
            "tweet id {v} deleted by the account, we have the archive",
            "| deleted post | {v} | screenshot in drive |",
        ],
    ),
    (
        "placeholder_angle_brackets",
        g_placeholder,
        [
            "curl -H 'Authorization: Bearer {v}' https://api.datawrapper.de/v3/charts",
            "DW_TOKEN={v}",
            'in the notebook template set api_key = "{v}" and run all',
        ],
    ),
    (
        "placeholder_changeme",
        g_changeme,
        [
            "docker-compose for local scraper dev: POSTGRES_PASSWORD={v}",
            "default in .env.example is {v}; real one is in 1Password",
            "the template sets admin password to '{v}', setup script forces a reset",
        ],
    ),
    (
        "env_var_reference",
        g_envref,
        [
            "proxy: http://metro-data:{v}@gate.smartproxy.com:7000",
            "api_key: {v}",
            "the scraper reads {v} at start-up, never hardcode",
            "token={v}",
            "proxy pass comes from {v}, set in the systemd unit",
        ],
    ),
    (
        "password_manager_reference",
        g_vault,
        [
            "PACER creds are at {v}",
            "password: {v}",
            "don't paste creds in here — use {v}",
            "las credenciales están en {v}",
        ],
    ),
    (
        "masked_redacted_key",
        g_masked,
        [
            "openai key {v} is the team one (dashboard only shows it masked)",
            "OPENAI_API_KEY={v}",
            "logged value was redacted to {v}",
            "| openai | {v} | team billing |",
        ],
    ),
    (
        "revoked_token_stated_revoked",
        g_revoked,
        [
            "REVOKED 2026-11-04 after it leaked in a screenshot, keep for the incident log: {v}",
            "old deskbot token {v} — rotated & revoked, Slack confirms invalid_auth",
            "incident note: exposed {v} was revoked within 10 min, new one in vault",
        ],
    ),
    (
        "revoked_github_pat_stated_revoked",
        g_revoked_gh,
        [
            "the PAT that was in the public gist ({v}) is deleted/revoked, GitHub sent the alert",
            "revoked: {v} (leaked in notebook output)",
            "post-mortem: {v} revoked by GitHub secret scanning at 14:02",
        ],
    ),
    (
        "stripe_test_card_number",
        g_stripe_card,
        [
            "test donation with card {v}, any CVC, any future date",
            "stripe test mode card: {v}",
            "QA: use {v} in test mode only",
            "tarjeta de prueba de Stripe: {v}",
        ],
    ),
    (
        "password_policy_text",
        g_policy,
        [
            "shared account passwords: {v}, generated by 1Password, rotate when someone leaves",
            "policy for press accounts — {v}, no reuse, 2FA on everything",
            "Richtlinie: Passwörter {v}, keine Wiederverwendung",
        ],
    ),
    (
        "dataset_doi",
        g_doi,
        [
            "methodology + data released at doi:{v}",
            "cite the dataset as https://doi.org/{v}",
            "| police-stops | {v} | CC-BY |",
        ],
    ),
    (
        "slack_channel_user_id",
        g_slackid,
        [
            "alerts go to channel {v} (#elex-night)",
            "SLACK_CHANNEL={v}",
            "post in {v}, not in general",
        ],
    ),
    (
        "google_sheet_id",
        g_sheet,
        [
            "source sheet for the tracker: https://docs.google.com/spreadsheets/d/{v}/edit",
            "SHEET_ID={v}",
            "gspread: gc.open_by_key('{v}')",
            "planilha de origem: {v}",
        ],
    ),
    (
        "datawrapper_chart_embed",
        g_dwchart,
        [
            '<iframe title="Evictions by month" src="https://datawrapper.dwcdn.net/{v}/3/" scrolling="no" frameborder="0"></iframe>',
            "chart id {v} needs the Nov numbers",
            "| evictions | {v} | auto-update on |",
        ],
    ),
    (
        "documentcloud_doc_id",
        g_dcdoc,
        [
            "contract PDF on DocumentCloud: https://www.documentcloud.org/documents/{v}-city-towing-contract",
            "embed document {v} in the sidebar",
            "DocumentCloud id {v} (public, annotated)",
        ],
    ),
    (
        "securedrop_onion_address",
        g_onion,
        [
            "our SecureDrop address (public, on the tips page): {v}",
            "http://{v}",
            "dirección de SecureDrop publicada: {v}",
        ],
    ),
    (
        "public_signal_tipline_number",
        g_phone,
        [
            "Signal tip line published on the site: {v}",
            "tips via Signal/WhatsApp to {v}",
            "| tip line | {v} | public |",
        ],
    ),
    (
        "mailchimp_audience_id",
        g_mcaud,
        [
            "Mailchimp audience id for Morning Brief: {v}",
            "POST /3.0/lists/{v}/members",
            "list_id={v}",
        ],
    ),
    (
        "docker_image_digest",
        g_digest,
        [
            "pin the scraper image to ghcr.io/metro-data/scraper@{v}",
            "image digest {v}",
            "FROM python:3.12-slim@{v}",
        ],
    ),
    (
        "npm_integrity_hash",
        g_npmint,
        [
            '"integrity": "{v}"',
            "lockfile integrity for @metronews/graphics-kit changed to {v}",
            "integrity {v}",
        ],
    ),
    (
        "aws_account_and_distribution_id",
        g_awsacct,
        [
            "AWS account {v}, CloudFront dist {dist} for the graphics bucket",
            "arn:aws:iam::{v}:role/scraper-runner",
            "| graphics-cdn | {v} | {dist} |",
        ],
    ),
    (
        "gcp_service_account_email",
        g_saemail,
        [
            "share the sheet with {v} so the sync can read it",
            "client_email: {v}",
            "SA {v} has BigQuery read only",
        ],
    ),
    (
        "sentry_event_id",
        g_sentry_evt,
        [
            "scraper crash, sentry event {v}",
            "see Sentry issue event_id={v} for the traceback",
            "| courts scraper | timeout | {v} |",
            "error id {v} — same as last night",
        ],
    ),
    (
        "ap_item_id",
        g_sentry_evt,
        [
            "AP story itemid {v} is the wire version, ours is the rewrite",
            "GET https://api.ap.org/media/v/content/{v}",
            "wire item {v} (AP) used for the sidebar",
            "AP-Meldung {v} als Grundlage verwendet",
        ],
    ),
    (
        "census_geoid",
        g_geoid,
        [
            "tract GEOID {v} is the one with the eviction spike",
            "join on geoid = '{v}'",
            "| tract | {v} | 31% renters burdened |",
            "geoid {v}",
        ],
    ),
    (
        "ga4_property_id",
        g_ga4prop,
        [
            "GA4 property {v} (metro-news.com main)",
            "properties/{v}:runReport",
            "Looker Studio source → GA4 property id {v}",
            "propiedad de GA4: {v}",
        ],
    ),
    (
        "sentry_public_dsn",
        g_sentry_dsn,
        [
            "frontend Sentry DSN (public, ships in the bundle): {v}",
            "Sentry.init({ dsn: '{v}' });",
            "SENTRY_DSN={v}  # browser DSN, only allows sending events",
        ],
    ),
    (
        "maps_js_key_referrer_restricted",
        g_gmaps,
        [
            "Maps JS key in the election map page, HTTP-referrer restricted to *.metro-news.com, public by design: {v}",
            '<script src="https://maps.googleapis.com/maps/api/js?key={v}&callback=initMap"></script>',
            "browser key (referrer-locked, visible in page source anyway) {v}",
        ],
    ),
    (
        "nasa_demo_key",
        g_nasa,
        [
            "api.nasa.gov works with {v} for testing (rate-limited, public)",
            "curl 'https://api.nasa.gov/planetary/apod?api_key={v}'",
            "NASA_KEY={v}  # public demo key",
        ],
    ),
    (
        "wayback_snapshot_url",
        g_wayback,
        [
            "archived copy of the deleted page: https://web.archive.org/web/{v}/https://cityhall.gov/contracts",
            "wayback snapshot {v}",
            "cite web.archive.org/web/{v}/ for the old version",
        ],
    ),
    (
        "hashed_email_segment",
        g_md5,
        [
            "Mailchimp subscriber hash (md5 of lowercase email) {v}",
            "PATCH /lists/a1b2c3/members/{v}",
            "subscriber_hash: {v}",
        ],
    ),
    (
        "base64_image_data",
        g_b64img,
        [
            '<img src="data:image/png;base64,{v}">',
            "favicon inline data: {v}",
            "the spark-line is inlined as base64 {v}",
        ],
    ),
    (
        "utm_campaign_params",
        g_utm,
        [
            "https://metro-news.com/elex?utm_source=newsletter&utm_campaign={v}",
            "campaign tag {v}",
            "utm_campaign={v}",
        ],
    ),
    (
        "xxxx_filled_placeholder",
        g_xxxx,
        [
            "Example in the wiki: STRIPE_SECRET_KEY={v}",
            "api_key: {v}",
            "token looks like {v} (not a real one)",
        ],
    ),
]


def corpus() -> list:
    rng = random.Random(SEED)
    rows = []
    for label, specs in (("secret", SECRET), ("benign", BENIGN)):
        for kind, gen, templates in specs:
            for tpl in templates:
                d = gen(rng)
                text = tpl
                for k, val in d.items():
                    text = text.replace("{" + k + "}", val)
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

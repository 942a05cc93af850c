# ruff: noqa: E501
"""Blind secret-detector corpus 77: public library and museum digital team.

Brief: memory notes of a library/museum digital team (Koha, Alma, Evergreen, SIP2 kiosks, digitisation and IIIF, collections databases, public Wi-Fi and PC booking, donor/membership CRM, ticketing, archivist and volunteer notes in English, Welsh, Spanish and Italian) with live credentials and non-secret look-alikes.

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Run: python blind_secrets_77.py [out.jsonl]

Kinds, secret: koha_db_password, koha_sip_account_password, sip2_login_message_password, evergreen_db_password, alma_api_key, oclc_wskey_secret, ezproxy_admin_password, ldap_bind_password, postgres_url_credentials, mysql_url_credentials, aws_access_key_pair, aws_secret_key_alone, azure_storage_connection_string, gcp_service_account_json, github_pat_classic, github_pat_fine_grained, gitlab_pat, slack_bot_token, slack_webhook_url, discord_webhook_url, stripe_live_secret_key, stripe_restricted_key, square_access_token, mailchimp_api_key, sendgrid_api_key, twilio_auth_token, smtp_relay_password, openai_api_key, huggingface_token, npm_token, dockerhub_pat, google_oauth_client_secret, mapbox_secret_token, eventbrite_private_token, salesforce_password_and_token, cantaloupe_admin_secret, django_secret_key, wordpress_db_password, wpa2_staff_wifi_psk, radius_shared_secret, pc_booking_admin_password, ssh_private_key_pem, rsa_private_key_pem, basic_auth_header, bearer_jwt, url_embedded_credentials, sftp_vendor_password, building_alarm_code, human_password_prose_no_keyword, telegram_bot_token
Kinds, benign: tiff_sha256_fixity, bagit_md5_manifest, git_commit_sha, iiif_manifest_uuid, alma_mms_id, item_barcode, isbn, ark_identifier, accession_number, placeholder_angle_brackets, placeholder_changeme, env_var_reference, vault_reference, masked_secret, redacted_secret, aws_documented_example_key, stripe_publishable_key, recaptcha_site_key, ssh_public_key, x509_certificate_pem, ssh_host_fingerprint, gpg_fingerprint, password_policy_text, guest_wifi_password_posted_publicly, sip2_checkout_message_no_password, mac_address, ip_address, scanner_serial_number, ticket_order_reference, mapbox_public_token, orcid_id, oclc_number, wikidata_qid, docker_image_digest, npm_integrity_hash, ga4_measurement_id, revoked_github_token_stated_revoked, xxxx_placeholder, jira_ticket_key, koha_config_template_placeholder, dewey_call_number, iiif_image_api_url, cantaloupe_cache_key_hex, eventbrite_event_id, s3_etag, google_oauth_client_id_only, twilio_account_sid_only, stripe_test_publishable_key, hex_colour_code
"""

import json
import random
import string
import sys

SEED = 7777

UP = string.ascii_uppercase
LO = string.ascii_lowercase
DG = string.digits
AN = UP + LO + DG
HEX = "0123456789abcdef"
B64 = AN + "+/"
B64U = AN + "-_"

WORDS = [
    "Dragon",
    "Castell",
    "Bara",
    "Llyfr",
    "Museo",
    "Biblio",
    "Hiraeth",
    "Cwtch",
    "Tortuga",
    "Giallo",
    "Sunflower",
    "Penguin",
    "Pickle",
    "Marmite",
    "Archive",
    "Vellum",
    "Quire",
    "Folio",
    "Tardis",
    "Rugby",
]
SYMS = "!@#$%&*?"


def rs(r, alpha, n):
    return "".join(r.choice(alpha) for _ in range(n))


def human_pw(r):
    w = r.choice(WORDS)
    if r.random() < 0.5:
        w = w + r.choice(WORDS).lower()
    return w + str(r.randint(1, 2026)) + r.choice(SYMS)


def gen_pw(r):
    return rs(r, AN + "!#%^*-_", r.randint(16, 24))


def b64_pad(r, nbytes):
    import base64

    return base64.b64encode(bytes(r.randrange(256) for _ in range(nbytes))).decode()


def pem(r, header, nbytes, prefix=""):
    body = prefix + b64_pad(r, nbytes)
    lines = [body[i : i + 64] for i in range(0, len(body), 64)]
    return "-----BEGIN " + header + "-----\n" + "\n".join(lines) + "\n-----END " + header + "-----"


def jwt(r):
    import base64
    import json as _j

    h = base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT"}').decode().rstrip("=")
    p = _j.dumps(
        {
            "sub": "svc-kiosk-" + str(r.randint(1, 40)),
            "iat": r.randint(1700000000, 1790000000),
            "scope": "circ",
        }
    )
    p = base64.urlsafe_b64encode(p.encode()).decode().rstrip("=")
    s = rs(r, B64U, 43)
    return h + "." + p + "." + s


def uuid4(r):
    h = rs(r, HEX, 32)
    h = h[:12] + "4" + h[13:16] + r.choice("89ab") + h[17:]
    return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]


# ---------------------------------------------------------------- generators


def g_pw(r):
    return {"v": human_pw(r) if r.random() < 0.5 else gen_pw(r)}


def g_human(r):
    return {"v": human_pw(r)}


def g_gen(r):
    return {"v": gen_pw(r)}


def g_alma(r):
    return {"v": "l7xx" + rs(r, HEX, 32)}


def g_oclc(r):
    return {"v": rs(r, AN + "+/", 32), "id": rs(r, AN, 80)}


def g_pg(r):
    p = gen_pw(r).replace("#", "x").replace("%", "q").replace("^", "z")
    return {"v": "postgresql://evergreen:" + p + "@db01.lib.internal:5432/evergreen", "p": p}


def g_my(r):
    p = human_pw(r).replace("#", "").replace("%", "").replace("@", "").replace("?", "")
    return {"v": "mysql://koha_main:" + p + "@10.20.4.11:3306/koha_main", "p": p}


def g_aws_pair(r):
    return {"v": rs(r, B64[:-1], 40).replace("+", "/"), "id": "AKIA" + rs(r, UP + "234567", 16)}


def g_aws_secret(r):
    return {"v": rs(r, AN + "+/", 40)}


def g_azure(r):
    acct = "museumdigi" + str(r.randint(10, 99))
    key = b64_pad(r, 64)
    return {
        "v": "DefaultEndpointsProtocol=https;AccountName="
        + acct
        + ";AccountKey="
        + key
        + ";EndpointSuffix=core.windows.net"
    }


def g_gcp(r):
    k = pem(r, "PRIVATE KEY", 1190, "MIIEvg" + r.choice("IQ") + "BADANBgkqhkiG9w0BAQEFAASCBKg")
    kid = rs(r, HEX, 40)
    cid = "".join(r.choice(DG) for _ in range(21))
    js = json.dumps(
        {
            "type": "service_account",
            "project_id": "museum-iiif-prod",
            "private_key_id": kid,
            "private_key": k + "\n",
            "client_email": "iiif-uploader@museum-iiif-prod.iam.gserviceaccount.com",
            "client_id": cid,
            "token_uri": "https://oauth2.googleapis.com/token",
        },
        indent=2,
    )
    return {"v": k, "vj": json.dumps(k)[1:-1], "json": js}


def g_ghp(r):
    return {"v": "ghp_" + rs(r, AN, 36)}


def g_ghfg(r):
    return {"v": "github_pat_11" + rs(r, UP + DG, 20) + "_" + rs(r, AN, 59)}


def g_glpat(r):
    return {"v": "glpat-" + rs(r, AN + "-_", 20)}


def g_xoxb(r):
    return {
        "v": "xoxb-"
        + str(r.randint(10**10, 10**12))
        + "-"
        + str(r.randint(10**12, 10**13))
        + "-"
        + rs(r, AN, 24)
    }


def g_slackhook(r):
    return {
        "v": "https://hooks.slack.com/services/T"
        + rs(r, UP + DG, 10)
        + "/B"
        + rs(r, UP + DG, 10)
        + "/"
        + rs(r, AN, 24)
    }


def g_discord(r):
    return {
        "v": "https://discord.com/api/webhooks/"
        + str(r.randint(10**17, 10**18))
        + "/"
        + rs(r, B64U, 68)
    }


def g_sklive(r):
    return {"v": "sk_live_51" + rs(r, AN, 97)}


def g_rklive(r):
    return {"v": "rk_live_51" + rs(r, AN, 97)}


def g_square(r):
    return {"v": "EAAA" + rs(r, AN + "-_", 60)}


def g_mailchimp(r):
    return {"v": rs(r, HEX, 32) + "-us" + str(r.randint(1, 21))}


def g_sendgrid(r):
    return {"v": "SG." + rs(r, B64U, 22) + "." + rs(r, B64U, 43)}


def g_twilio(r):
    return {"v": rs(r, HEX, 32), "sid": "AC" + rs(r, HEX, 32)}


def g_openai(r):
    return {"v": "sk-proj-" + rs(r, B64U, 48) + "T3BlbkFJ" + rs(r, B64U, 48)}


def g_hf(r):
    return {"v": "hf_" + rs(r, UP + LO, 34)}


def g_npm(r):
    return {"v": "npm_" + rs(r, AN, 36)}


def g_docker(r):
    return {"v": "dckr_pat_" + rs(r, AN + "-_", 27)}


def g_gocspx(r):
    return {
        "v": "GOCSPX-" + rs(r, AN + "-_", 28),
        "cid": str(r.randint(10**11, 10**12))
        + "-"
        + rs(r, LO + DG, 32)
        + ".apps.googleusercontent.com",
    }


def g_mapbox_sk(r):
    return {"v": "sk.eyJ1IjoibXVzZXVtZGlnaSIsImEiOiJ" + rs(r, AN, 22) + "In0." + rs(r, B64U, 22)}


def g_eventbrite(r):
    return {"v": rs(r, UP + DG, 20)}


def g_sf(r):
    return {"v": human_pw(r), "tok": rs(r, AN, 25)}


def g_django(r):
    return {
        "v": "django-insecure-" + rs(r, LO + DG + "!@#%^&*(-_=+)", 50)
        if r.random() < 0.3
        else rs(r, LO + DG + "!@#%^&*(-_=+)", 50)
    }


def g_psk(r):
    w = r.choice(WORDS) + r.choice(WORDS) + str(r.randint(10, 99)) + r.choice(SYMS)
    return {"v": w if r.random() < 0.6 else rs(r, AN, 20)}


def g_ssh_priv(r):
    return {
        "v": pem(
            r,
            "OPENSSH PRIVATE KEY",
            290,
            "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW",
        )
    }


def g_rsa_priv(r):
    return {"v": pem(r, "RSA PRIVATE KEY", 1180, "MIIEpAIBAAKCAQEA")}


def g_basic(r):
    import base64

    u = r.choice(["sipkiosk", "alma_ro", "tessitura_api", "iiifadmin"])
    p = human_pw(r)
    return {"v": base64.b64encode((u + ":" + p).encode()).decode(), "u": u}


def g_jwt(r):
    return {"v": jwt(r)}


def g_urlcred(r):
    p = human_pw(r).replace("@", "").replace("#", "").replace("?", "").replace("%", "")
    return {"v": p}


def g_alarm(r):
    return {"v": "".join(r.choice(DG) for _ in range(r.choice([4, 5, 6])))}


def g_tg(r):
    return {"v": str(r.randint(10**8, 10**10)) + ":AA" + rs(r, B64U, 33)}


# benign generators


def g_hex(n):
    return lambda r: {"v": rs(r, HEX, n)}


def g_uuid(r):
    return {"v": uuid4(r)}


def g_mms(r):
    return {
        "v": "99"
        + "".join(r.choice(DG) for _ in range(r.randint(10, 14)))
        + "3"
        + "".join(r.choice(DG) for _ in range(3))
        + "1"
    }


def g_barcode(r):
    return {"v": "3" + "".join(r.choice(DG) for _ in range(13))}


def g_isbn(r):
    d = [9, 7, 8] + [r.randint(0, 9) for _ in range(9)]
    s = sum(x * (1 if i % 2 == 0 else 3) for i, x in enumerate(d))
    d.append((10 - s % 10) % 10)
    return {"v": "".join(map(str, d))}


def g_ark(r):
    return {
        "v": "ark:/" + str(r.randint(10000, 99999)) + "/" + rs(r, "bcdfghjkmnpqrstvwxz" + DG, 10)
    }


def g_accession(r):
    return {
        "v": str(r.randint(1950, 2026)) + "." + str(r.randint(1, 400)) + "." + str(r.randint(1, 60))
    }


def g_masked(r):
    return {
        "v": "sk_live_" + "*" * r.randint(8, 20) + rs(r, AN, 4),
        "a": "l7xx" + "*" * r.randint(20, 28) + rs(r, HEX, 4),
        "g": "ghp_" + "*" * r.randint(8, 30) + rs(r, AN, 4),
        "x": "xoxb-" + "*" * r.randint(8, 20) + rs(r, AN, 4),
    }


def g_pk_live(r):
    return {"v": "pk_live_51" + rs(r, AN, 97)}


def g_recaptcha(r):
    return {"v": "6L" + rs(r, AN + "-_", 38)}


def g_sshpub(r):
    return {"v": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + rs(r, AN + "+/", 43)}


def g_cert(r):
    return {"v": pem(r, "CERTIFICATE", 900, "MIID" + r.choice("jkl") + "zCCAo")}


def g_sshfp(r):
    return {"v": "SHA256:" + rs(r, AN + "+/", 43)}


def g_gpgfp(r):
    h = rs(r, HEX.upper(), 40)
    return {"v": " ".join(h[i : i + 4] for i in range(0, 40, 4))}


def g_guest(r):
    return {"v": r.choice(["Books", "Library", "Reading", "Croeso"]) + str(r.randint(100, 9999))}


def g_item(r):
    return {
        "v": "3" + "".join(r.choice(DG) for _ in range(13)),
        "p": "2" + "".join(r.choice(DG) for _ in range(13)),
    }


def g_mac(r):
    return {"v": ":".join(rs(r, "0123456789ABCDEF", 2) for _ in range(6))}


def g_ip(r):
    return {
        "v": "10."
        + str(r.randint(0, 255))
        + "."
        + str(r.randint(0, 255))
        + "."
        + str(r.randint(1, 254))
    }


def g_serial(r):
    return {"v": rs(r, UP, 3) + "".join(r.choice(DG) for _ in range(8))}


def g_order(r):
    return {"v": str(r.randint(10**9, 10**10))}


def g_mapbox_pk(r):
    return {"v": "pk.eyJ1IjoibXVzZXVtZGlnaSIsImEiOiJ" + rs(r, AN, 22) + "In0." + rs(r, B64U, 22)}


def g_orcid(r):
    d = [r.randint(0, 9) for _ in range(15)]
    t = 0
    for x in d:
        t = (t + x) * 2
    c = (12 - t % 11) % 11
    s = "".join(map(str, d)) + ("X" if c == 10 else str(c))
    return {"v": "-".join(s[i : i + 4] for i in range(0, 16, 4))}


def g_oclc_num(r):
    return {"v": str(r.randint(10**6, 10**10))}


def g_qid(r):
    return {"v": "Q" + str(r.randint(100, 130000000))}


def g_digest(r):
    return {"v": "sha256:" + rs(r, HEX, 64)}


def g_integrity(r):
    return {"v": "sha512-" + b64_pad(r, 64)}


def g_ga4(r):
    return {"v": "G-" + rs(r, UP + DG, 10)}


def g_jira(r):
    return {"v": r.choice(["DIGI", "LIBSYS", "WEB"]) + "-" + str(r.randint(10, 4999))}


def g_dewey(r):
    return {
        "v": str(r.randint(0, 999)).zfill(3) + "." + str(r.randint(1, 9999)) + " " + rs(r, UP, 3)
    }


def g_iiif(r):
    return {"v": uuid4(r) if r.random() < 0.5 else rs(r, LO + DG, 12)}


def g_num(lo, hi):
    return lambda r: {"v": str(r.randint(lo, hi))}


# ---------------------------------------------------------------- templates

S = "secret"
B = "benign"

SPEC = [
    # ------------------------------------------------------------ secrets
    (
        S,
        "koha_db_password",
        g_pw,
        [
            "koha-conf.xml on ils-prod01: <user>koha_main</user>\n<pass>{v}</pass>",
            "Koha DB creds (prod): koha_main / {v} - do not use for reporting, use the ro user",
            "mysql -u koha_main -p'{v}' -h localhost koha_main -e 'select count(*) from issues'",
            "| host | db | user | pass |\n| ils-prod01 | koha_main | koha_main | {v} |",
            "Nota per Giulia: la password del database Koha è {v} (l'ho cambiata dopo l'upgrade a 24.05)",
        ],
    ),
    (
        S,
        "koha_sip_account_password",
        g_human,
        [
            'SIPconfig.xml: <login id="sipkiosk1" password="{v}" delimiter="|" error-detect="enabled" institution="CPL" />',
            "self-check kiosk staff acct in Koha is sipkiosk1, pw {v} (Bibliotheca wants it in their setup screen)",
            "Cyfrinair y ciosg hunanwasanaeth (SIP2) yw {v} - peidiwch â'i rannu gyda'r gwirfoddolwyr",
            "kiosk reinstall checklist:\n1. SIP server 10.20.4.11:6001\n2. login sipkiosk1\n3. pass {v}\n4. location code MAIN",
        ],
    ),
    (
        S,
        "sip2_login_message_password",
        g_gen,
        [
            "captured from telnet test: 9300CNsipkiosk2|CO{v}|CPMAIN|AY1AZF5A1",
            "Debug session - raw SIP2 login: `9300CNselfcheck|CO{v}|CPBRANCH2|` then got 941 back, so creds fine",
            "if kiosk shows 'SC offline' send this by hand:\n9300CNsc_eastbranch|CO{v}|CPEAST|AY0AZF1C2",
        ],
    ),
    (
        S,
        "evergreen_db_password",
        g_pw,
        [
            "Evergreen opensrf.xml <pw>{v}</pw> for the evergreen pg role, same on db02 replica",
            "PGPASSWORD={v} psql -h db01.lib.internal -U evergreen evergreen -c 'select 1'",
            "evergreen db pw rotated today -> {v}   (updated opensrf.xml on all 3 app servers)",
            "La contraseña de postgres para Evergreen es {v}; la usa también el script de estadísticas",
        ],
    ),
    (
        S,
        "alma_api_key",
        g_alma,
        [
            "Alma API key (prod, Bibs read/write): {v}",
            "curl -s 'https://api-eu.hosted.exlibrisgroup.com/almaws/v1/bibs/991234?apikey={v}'",
            "ALMA_API_KEY={v}",
            "hey the key for the Alma users API is {v}, sandbox one is separate",
            "Authorization: apikey {v}",
        ],
    ),
    (
        S,
        "oclc_wskey_secret",
        g_oclc,
        [
            "OCLC WSKey for Metadata API\nclient id: {id}\nsecret: {v}",
            'oclc_wskey = "{id}"\noclc_secret = "{v}"',
            "worldshare secret (expires 2027) {v}",
            "curl -u '{id}:{v}' -d 'grant_type=client_credentials&scope=WorldCatMetadataAPI' https://oauth.oclc.org/token",
        ],
    ),
    (
        S,
        "ezproxy_admin_password",
        g_human,
        [
            "ezproxy user.txt: libadmin:{v}:admin",
            "EZproxy admin login libadmin / {v} - for checking the audit log when a vendor blocks us",
            "ezproxy admin pw is {v} fyi (Sarah changed it after the JSTOR block)",
        ],
    ),
    (
        S,
        "ldap_bind_password",
        g_gen,
        [
            "ldapsearch -x -H ldaps://dc01.council.local -D 'CN=svc-koha,OU=Service,DC=council,DC=local' -w '{v}' -b 'DC=council,DC=local' sAMAccountName=jbloggs",
            "Koha LDAP: <user>svc-koha@council.local</user> <pass>{v}</pass>",
            "bind dn svc-pcbook, bind pw {v}",
            "staff SSO for PC booking uses AD svc account svc-pcbook / {v}",
        ],
    ),
    (
        S,
        "postgres_url_credentials",
        g_pg,
        [
            "DATABASE_URL={v}",
            "reporting dashboard connects with {v} (read-only is on TODO)",
            "sqlalchemy.url = {v}",
            "Metabase connection string for Evergreen stats: {v}",
        ],
    ),
    (
        S,
        "mysql_url_credentials",
        g_my,
        [
            "KOHA_DB={v}",
            "nightly export: mysqldump via {v} -> s3 bucket",
            "Conn: {v}",
            "DSN per il report delle statistiche: {v}",
        ],
    ),
    (
        S,
        "aws_access_key_pair",
        g_aws_pair,
        [
            "digitisation uploader IAM user\naws_access_key_id = {id}\naws_secret_access_key = {v}",
            "AWS_ACCESS_KEY_ID={id} AWS_SECRET_ACCESS_KEY={v} aws s3 sync ./masters s3://museum-tiff-masters/2026/",
            "keys for the glacier archive bucket: {id} / {v}",
            "Allweddi AWS ar gyfer y bwced digido: {id} a {v}",
        ],
    ),
    (
        S,
        "aws_secret_key_alone",
        g_aws_secret,
        [
            "secret for the s3-iiif-writer key (id is in the wiki): {v}",
            "aws_secret_access_key = {v}",
            "new secret after rotation {v}",
        ],
    ),
    (
        S,
        "azure_storage_connection_string",
        g_azure,
        [
            'AZURE_STORAGE_CONNECTION_STRING="{v}"',
            "blob storage for oral history audio: {v}",
            "az storage blob upload-batch -d wavs -s ./oralhist --connection-string '{v}'",
            'appsettings.json -> "StorageConnection": "{v}"',
        ],
    ),
    (
        S,
        "gcp_service_account_json",
        g_gcp,
        [
            (
                "key file for the iiif uploader SA (pasting here so we stop losing it):\n{json}",
                "vj",
            ),
            "private key from iiif-uploader.json:\n{v}",
            ("GOOGLE_APPLICATION_CREDENTIALS content for cloud run:\n{json}", "vj"),
        ],
    ),
    (
        S,
        "github_pat_classic",
        g_ghp,
        [
            "GH token for the collections-site deploy action: {v}",
            "git clone https://{v}@github.com/citymuseum/collections-site.git",
            "export GITHUB_TOKEN={v}",
            "token para el bot de actualizaciones de Omeka: {v}",
        ],
    ),
    (
        S,
        "github_pat_fine_grained",
        g_ghfg,
        [
            "fine-grained PAT (repo: iiif-manifests, contents rw) {v}",
            "gh auth login --with-token <<< {v}",
            "GH_TOKEN: {v}",
        ],
    ),
    (
        S,
        "gitlab_pat",
        g_glpat,
        [
            "gitlab token for the koha-plugins mirror: {v}",
            "git remote set-url origin https://oauth2:{v}@gitlab.com/citylib/koha-plugins.git",
            "CI_PUSH_TOKEN={v}",
        ],
    ),
    (
        S,
        "slack_bot_token",
        g_xoxb,
        [
            "kiosk-alerts bot token {v}",
            "SLACK_BOT_TOKEN={v}",
            "curl -H 'Authorization: Bearer {v}' -d 'channel=#kiosks&text=SIP down' https://slack.com/api/chat.postMessage",
            "bot de Slack para avisos de los quioscos: {v}",
        ],
    ),
    (
        S,
        "slack_webhook_url",
        g_slackhook,
        [
            "webhook for #digitisation: {v}",
            "notify_url: {v}",
            'curl -X POST -d \'{"text":"IIIF cache full"}\' {v}',
        ],
    ),
    (
        S,
        "discord_webhook_url",
        g_discord,
        [
            "volunteer transcription discord webhook {v}",
            "DISCORD_HOOK={v}",
            "webhook del server dei volontari: {v}",
        ],
    ),
    (
        S,
        "stripe_live_secret_key",
        g_sklive,
        [
            "Donations page stripe key (LIVE!): {v}",
            "STRIPE_SECRET_KEY={v}",
            "curl https://api.stripe.com/v1/charges -u {v}:",
            "membership renewals: stripe secret {v}, publishable one is in the theme",
        ],
    ),
    (
        S,
        "stripe_restricted_key",
        g_rklive,
        [
            "restricted key for the finance export (read charges only): {v}",
            "STRIPE_RK={v}",
            "Gift Aid report script uses {v}",
        ],
    ),
    (
        S,
        "square_access_token",
        g_square,
        [
            "shop till Square prod access token: {v}",
            "SQUARE_ACCESS_TOKEN={v}",
            "café + shop POS sync: Authorization: Bearer {v}",
        ],
    ),
    (
        S,
        "mailchimp_api_key",
        g_mailchimp,
        [
            "Mailchimp key for the Friends newsletter sync: {v}",
            "MAILCHIMP_API_KEY={v}",
            "curl -u anystring:{v} https://us6.api.mailchimp.com/3.0/lists",
            "clave de Mailchimp para el boletín de socios: {v}",
        ],
    ),
    (
        S,
        "sendgrid_api_key",
        g_sendgrid,
        [
            "overdue notices go out via sendgrid, key {v}",
            "SENDGRID_API_KEY={v}",
            "Koha SMTP: user apikey / pass {v} on smtp.sendgrid.net:587",
        ],
    ),
    (
        S,
        "twilio_auth_token",
        g_twilio,
        [
            "holds SMS: Twilio SID {sid}, auth token {v}",
            "TWILIO_ACCOUNT_SID={sid}\nTWILIO_AUTH_TOKEN={v}",
            "curl -u {sid}:{v} https://api.twilio.com/2010-04-01/Accounts/{sid}/Messages.json",
        ],
    ),
    (
        S,
        "smtp_relay_password",
        g_pw,
        [
            "smtp relay for koha notices: noreply@citylib.org.uk / {v} port 587",
            "<smtp_server><host>smtp.office365.com</host><user_name>noreply@citylib.org.uk</user_name><password>{v}</password></smtp_server>",
            "Il relay SMTP usa noreply@citylib.org.uk con password {v}",
            "mail pw for the noreply box changed to {v} - update Koha + the ticketing system",
        ],
    ),
    (
        S,
        "openai_api_key",
        g_openai,
        [
            "handwriting transcription pilot uses OpenAI key {v}",
            "OPENAI_API_KEY={v}",
            'client = OpenAI(api_key="{v}")',
        ],
    ),
    (
        S,
        "huggingface_token",
        g_hf,
        [
            "HF token to pull the TrOCR model for the ledger project: {v}",
            "huggingface-cli login --token {v}",
            "HF_TOKEN={v}",
        ],
    ),
    (
        S,
        "npm_token",
        g_npm,
        [
            "npm publish token for @citymuseum/mirador-plugins: {v}",
            "//registry.npmjs.org/:_authToken={v}",
            "NPM_TOKEN={v}",
        ],
    ),
    (
        S,
        "dockerhub_pat",
        g_docker,
        [
            "docker login -u citymuseum -p {v}",
            "dockerhub PAT for pushing the cantaloupe image: {v}",
            "DOCKERHUB_TOKEN={v}",
        ],
    ),
    (
        S,
        "google_oauth_client_secret",
        g_gocspx,
        [
            "Google login for volunteer portal\nclient_id: {cid}\nclient_secret: {v}",
            "GOOGLE_CLIENT_SECRET={v}",
            "oauth secret for the transcription site {v}",
        ],
    ),
    (
        S,
        "mapbox_secret_token",
        g_mapbox_sk,
        [
            "Mapbox secret token (uploads scope) for the historic maps tiles: {v}",
            "MAPBOX_UPLOAD_TOKEN={v}",
            "mapbox upload tilesets.citymaps1880 --token {v}",
        ],
    ),
    (
        S,
        "eventbrite_private_token",
        g_eventbrite,
        [
            "Eventbrite private token for the events sync: {v}",
            "curl -H 'Authorization: Bearer {v}' https://www.eventbriteapi.com/v3/users/me/",
            "EVENTBRITE_TOKEN={v}",
        ],
    ),
    (
        S,
        "salesforce_password_and_token",
        g_sf,
        [
            "donor CRM integration user: integration@citymuseum.org / {v} + security token {tok}",
            "sf_password={v}\nsf_security_token={tok}",
            "Salesforce (Friends & Donors) api user pw {v}, token reset -> {tok}",
        ],
    ),
    (
        S,
        "cantaloupe_admin_secret",
        g_human,
        [
            "cantaloupe.properties:\nendpoint.admin.enabled = true\nendpoint.admin.username = admin\nendpoint.admin.secret = {v}",
            "IIIF server admin panel: admin / {v}",
            "cache purge needs the Cantaloupe admin secret ({v})",
            "endpoint.api.secret = {v}",
        ],
    ),
    (
        S,
        "django_secret_key",
        g_django,
        [
            "SECRET_KEY = '{v}'",
            "collections site prod settings: SECRET_KEY={v}",
            'DJANGO_SECRET_KEY="{v}"',
        ],
    ),
    (
        S,
        "wordpress_db_password",
        g_pw,
        [
            "define( 'DB_PASSWORD', '{v}' );",
            "museum WP site db: wp_museum / {v}",
            "WORDPRESS_DB_PASSWORD={v}",
        ],
    ),
    (
        S,
        "wpa2_staff_wifi_psk",
        g_psk,
        [
            "STAFF-ONLY SSID 'CityLib-Staff' key: {v}",
            "Wi-Fi staff (NOT the public one): {v}",
            "Cyfrinair Wi-Fi y staff: {v}",
            'network={\n  ssid="CityLib-Staff"\n  psk="{v}"\n}',
            "La clave del wifi del personal es {v}, no se la deis a los voluntarios",
        ],
    ),
    (
        S,
        "radius_shared_secret",
        g_gen,
        [
            "public wifi captive portal radius secret: {v}",
            "client 10.30.0.0/16 {\n  secret = {v}\n  shortname = branch-aps\n}",
            "RADIUS shared secret between the APs and NPS is {v}",
        ],
    ),
    (
        S,
        "pc_booking_admin_password",
        g_human,
        [
            "PC booking admin console: sysadmin / {v}",
            "the override pw on the public PCs (to end a session early) is {v}",
            "Password amministratore del sistema di prenotazione PC: {v}",
            "Booking server admin - user: admin  pass: {v}",
        ],
    ),
    (
        S,
        "ssh_private_key_pem",
        g_ssh_priv,
        [
            "deploy key for the iiif box (ed25519):\n{v}",
            "{v}",
            "pasting the key for dig-scan01 until we sort the vault:\n\n{v}\n\nuser is digitise",
        ],
    ),
    (
        S,
        "rsa_private_key_pem",
        g_rsa_priv,
        [
            "SAML SP signing key for the ezproxy shib config:\n{v}",
            "key for iiif.citymuseum.org cert (the .crt is public, this isn't):\n{v}",
            "server.key\n{v}",
        ],
    ),
    (
        S,
        "basic_auth_header",
        g_basic,
        [
            "Authorization: Basic {v}",
            "curl -H 'Authorization: Basic {v}' https://ils.citylib.org.uk/api/v1/patrons?cardnumber=...",
            'proxy_set_header Authorization "Basic {v}";',
        ],
    ),
    (
        S,
        "bearer_jwt",
        g_jwt,
        [
            "Authorization: Bearer {v}",
            "long-lived token for the kiosk-status API (no expiry!): {v}",
            "KIOSK_API_TOKEN={v}",
        ],
    ),
    (
        S,
        "url_embedded_credentials",
        g_urlcred,
        [
            "IIIF ingest watches https://ingest:{v}@iiif.citymuseum.org/admin/queue",
            "sftp://marcload:{v}@ftp.vendor-records.com/outgoing/",
            "cd to smb://digi_svc:{v}@nas02/scans/incoming",
            "webdav https://archivist:{v}@files.citymuseum.org/remote.php/dav/files/archivist/",
        ],
    ),
    (
        S,
        "sftp_vendor_password",
        g_pw,
        [
            "MARC records vendor SFTP: user citylib_mrc, pw {v}",
            "sshpass -p '{v}' sftp citylib_mrc@ftp.vendor-records.com",
            "Contraseña del SFTP del proveedor de registros MARC: {v}",
        ],
    ),
    (
        S,
        "building_alarm_code",
        g_alarm,
        [
            "alarm code for the stores (basement) is {v} - then press # and wait for the beep",
            "Cod y larwm ar gyfer yr archifdy: {v}",
            "door keypad to the strongroom: {v}",
            "Il codice dell'allarme del deposito è {v}",
        ],
    ),
    (
        S,
        "human_password_prose_no_keyword",
        g_human,
        [
            "for the scanning PC in room 3 log in as digitise, it's {v}",
            "Rhian said the Axiell login for volunteers is vol_archive and then {v}",
            "the CollectiveAccess cataloguer account: cat_user {v}",
            "Per accedere a Collections Online usate museo_ed / {v}",
            "tessitura box office: boxoffice1 {v}",
        ],
    ),
    (
        S,
        "telegram_bot_token",
        g_tg,
        [
            "telegram bot for the after-hours building alerts: {v}",
            "TELEGRAM_BOT_TOKEN={v}",
            "curl https://api.telegram.org/bot{v}/sendMessage -d chat_id=-100123 -d text=door",
        ],
    ),
    # ------------------------------------------------------------ benign
    (
        B,
        "tiff_sha256_fixity",
        g_hex(64),
        [
            "sha256sum MS_1043_f014r.tif\n{v}  MS_1043_f014r.tif",
            "fixity check ok for MS_1043_f012r.tif sha256 {v}",
            "{v}  masters/2026/MS_1043/f013v.tif",
            "the Archivematica checksum for the ledger scan is {v}, matches the one in the AIP",
            "Comprobación de fijeza correcta: SHA-256 {v}",
            "Gwiriad sefydlogrwydd: {v} (yn cyfateb)",
        ],
    ),
    (
        B,
        "bagit_md5_manifest",
        g_hex(32),
        [
            "Payload-Oxum ok, md5 for tagmanifest: {v}",
            "manifest-md5.txt:\n{v}  data/box12/folder3/img_0001.tif",
            "md5 of the delivered drive image: {v}",
            "| file | md5 |\n| oralhist_044.wav | {v} |",
            "Checksum MD5 del file consegnato: {v}",
        ],
    ),
    (
        B,
        "git_commit_sha",
        g_hex(40),
        [
            "Mae'r newid wedi'i gyfuno yn {v}",
            "| repo | commit |\n| koha-sip-tweaks | {v} |",
            "koha-plugin-iiif deployed at commit {v}",
            "reverted {v} - it broke the SIP2 date format",
            "git checkout {v} && make deploy",
            "pinned mirador to {v}",
        ],
    ),
    (
        B,
        "iiif_manifest_uuid",
        g_uuid,
        [
            '"id": "https://iiif.citymuseum.org/manifests/{v}"',
            "manifest for the Penrhyn estate map: https://iiif.citymuseum.org/manifests/{v}/manifest.json",
            "object uuid {v} missing thumbnail",
            "CollectiveAccess object_id -> iiif uuid {v}",
            "UUID del oggetto: {v}",
        ],
    ),
    (
        B,
        "alma_mms_id",
        g_mms,
        [
            "Il record MMS {v} ha due 245",
            "Alma MMS ID {v} has a broken 856 link",
            "bib {v} merged into the new record",
            "GET /almaws/v1/bibs/{v}?view=full&apikey=${ALMA_API_KEY}",
            "MMS {v} - suppress from discovery",
        ],
    ),
    (
        B,
        "item_barcode",
        g_barcode,
        [
            "scanner reads {v} but Koha says 'no item with this barcode'",
            "item {v} keeps triggering the security gate even after checkin",
            "barcode {v} shows 'in transit' forever",
            "Mae'r eitem {v} ar goll o'r silff",
            "| barcode | status |\n| {v} | lost |",
        ],
    ),
    (
        B,
        "isbn",
        g_isbn,
        [
            "020 $a {v} (pbk.)",
            "Mae ISBN {v} ar goll o'r rhestr archebu",
            "ISBN {v} - duplicate records in the catalogue",
            "order placed for {v} (3 copies)",
            "El ISBN {v} no aparece en Z39.50",
        ],
    ),
    (
        B,
        "ark_identifier",
        g_ark,
        [
            "Identificador persistente: {v}",
            "persistent id for the photo collection: {v}",
            "https://n2t.net/{v}",
            "minted {v} for the newspaper digitisation batch",
        ],
    ),
    (
        B,
        "accession_number",
        g_accession,
        [
            "Rhif derbyn {v} - angen tynnu llun eto",
            "accession number {v} (loan from the county records office)",
            "object {v} moved to store B shelf 12",
            "Numero di inventario {v}: restauro completato",
            "acc no {v} photographed, 14 views",
        ],
    ),
    (
        B,
        "placeholder_angle_brackets",
        None,
        [
            (
                "curl 'https://api-eu.hosted.exlibrisgroup.com/almaws/v1/users?apikey={v}'",
                "<your-api-key>",
            ),
            ('in SIPconfig.xml set password="{v}" for the kiosk login', "<your-sip-password>"),
            ("export SENDGRID_API_KEY={v}", "<SENDGRID_API_KEY>"),
            ("template: DB_PASSWORD={v}", "<password>"),
            ("Sustituye {v} por la clave de Alma antes de ejecutar el script", "<tu-clave-api>"),
        ],
    ),
    (
        B,
        "placeholder_changeme",
        None,
        [
            (
                "docker-compose for the test Koha has KOHA_DB_PASS={v} - fine, it's local only",
                "changeme",
            ),
            (
                "default in the vendor's install guide is '{v}' - we set a real one on install",
                "CHANGEME",
            ),
            ("endpoint.admin.secret = {v}   (sample file, not used)", "change_me"),
            (
                "kiosk image ships with admin pw '{v}', first-boot script forces a reset",
                "changeme123",
            ),
        ],
    ),
    (
        B,
        "env_var_reference",
        None,
        [
            ("password comes from {v} in the systemd unit, don't hardcode", "$KOHA_DB_PASS"),
            ("apikey={v}", "${ALMA_API_KEY}"),
            (
                "the Actions workflow reads {v} - set it in repo settings",
                "${{ secrets.GH_DEPLOY_TOKEN }}",
            ),
            ("sip login: CO{v}", "%SIP_PASSWORD%"),
            ("STRIPE_SECRET_KEY={v}", "${STRIPE_SECRET_KEY}"),
        ],
    ),
    (
        B,
        "vault_reference",
        None,
        [
            ("creds are in vault at {v}", "secret/koha/prod/db"),
            ("vault kv get -field=password {v}", "kv/iiif/cantaloupe-admin"),
            ("read it from {v}, not from the wiki", "op://Digital/Stripe live/credential"),
            ("La contraseña está en {v}", "secret/data/crm/salesforce"),
            ("Mae'r cyfrinair yn y gladdgell: {v}", "op://Archifau/SFTP MARC/password"),
        ],
    ),
    (
        B,
        "masked_secret",
        g_masked,
        [
            ("Slack app page shows the bot token as {x} (last 4 only)", "x"),
            "stripe dashboard shows the key as {v} - that's the live one",
            ("the token ending {g} was the one in the screenshot? checking", "g"),
            ("Alma dev network lists our key as {a}", "a"),
        ],
    ),
    (
        B,
        "redacted_secret",
        None,
        [
            ("koha-conf.xml <pass>{v}</pass> (see vault)", "[REDACTED]"),
            ("SIP2 login: 9300CNsipkiosk1|CO{v}|CPMAIN|", "********"),
            ("STRIPE_SECRET_KEY={v}", "<redacted>"),
            ("password: {v}", "•••••••••"),
            ("Authorization: Bearer {v}", "[token removed]"),
        ],
    ),
    (
        B,
        "aws_documented_example_key",
        None,
        [
            (
                "the AWS docs use {v} in the examples - copy the format, not the value",
                "AKIAIOSFODNN7EXAMPLE",
            ),
            (
                "aws configure example from the training slides: {v}",
                "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            ),
            (
                "sample ~/.aws/credentials in our how-to uses aws_access_key_id = {v}",
                "AKIAIOSFODNN7EXAMPLE",
            ),
        ],
    ),
    (
        B,
        "stripe_publishable_key",
        g_pk_live,
        [
            "clave publicable de Stripe para el formulario de donaciones: {v}",
            "donate button needs the publishable key {v} in the theme (public, fine)",
            "STRIPE_PUBLISHABLE_KEY={v}",
            "Stripe.js init: Stripe('{v}')",
        ],
    ),
    (
        B,
        "recaptcha_site_key",
        g_recaptcha,
        [
            "site key {v} (the secret key stays on the server)",
            "reCAPTCHA site key for the volunteer signup form: {v}",
            '<div class="g-recaptcha" data-sitekey="{v}"></div>',
            "RECAPTCHA_SITE_KEY={v}  (site key is public; secret key is in vault)",
        ],
    ),
    (
        B,
        "ssh_public_key",
        g_sshpub,
        [
            "{v} digitise@dig-scan01",
            "add to authorized_keys on dig-scan01:\n{v} rhian@archives-laptop",
            "my pubkey: {v} marco@digi",
            "Clave pública para el servidor IIIF: {v} lucia@museo",
        ],
    ),
    (
        B,
        "x509_certificate_pem",
        g_cert,
        [
            "IdP signing cert for the ezproxy shib config:\n{v}",
            "intermediate cert bundle for iiif.citymuseum.org:\n{v}",
            "{v}",
        ],
    ),
    (
        B,
        "ssh_host_fingerprint",
        g_sshfp,
        [
            "| host | fp |\n| iiif01 | {v} |",
            "host key fingerprint for ftp.vendor-records.com is ED25519 {v} - verify before accepting",
            "ECDSA key fingerprint is {v}.",
            "dig-scan01 fingerprint {v}",
        ],
    ),
    (
        B,
        "gpg_fingerprint",
        g_gpgfp,
        [
            "gpg --recv-keys '{v}'",
            "sign the AIP transfer with key {v}",
            "GPG fingerprint for security@citymuseum.org: {v}",
            "Olion bysedd GPG: {v}",
        ],
    ),
    (
        B,
        "password_policy_text",
        lambda r: {"v": str(r.randint(8, 16))},
        [
            "Rhaid i gyfrineiriau staff fod o leiaf {v} nod",
            "staff passwords must be at least {v} characters, no reuse of the last 5",
            "patron PIN reset: tell them to pick {v}+ chars; never read a PIN out loud at the desk",
            "Las contraseñas del personal deben tener al menos {v} caracteres",
            "policy: volunteer accounts expire after {v} weeks, passwords never emailed",
        ],
    ),
    (
        B,
        "guest_wifi_password_posted_publicly",
        g_guest,
        [
            "Guest WiFi today: CityLib-Free / {v} (same as on the whiteboard by the door)",
            "public Wi-Fi 'CityLib-Free' password is on the posters at every desk this month: {v}",
            "Wi-Fi i'r cyhoedd: {v} (ar yr arwyddion wrth y fynedfa)",
            "la contraseña del wifi de visitantes ({v}) está impresa en los folletos",
        ],
    ),
    (
        B,
        "sip2_checkout_message_no_password",
        g_item,
        [
            "09N20261207    11422220261207    114222AP|AO|AB{v}|AC|",
            "kiosk log: 11YN20261207    102233                  AOCPL|AA{p}|AB{v}|AC|BON|",
            "checkout failed for item {v} - SIP2 response 120NUN, 'item blocked'",
            "SIP 17 item info for AB{v} returns circ status 08",
        ],
    ),
    (
        B,
        "mac_address",
        g_mac,
        [
            "Dirección MAC del quiosco 2: {v}",
            "kiosk 3 MAC {v} - add to the DHCP reservation",
            "PC booking terminal mac {v}",
            "RFID pad {v} not seen on the switch",
        ],
    ),
    (
        B,
        "ip_address",
        g_ip,
        [
            "ping {v} -> timeout, kiosk probably asleep",
            "SIP server is on {v} port 6001",
            "IIIF cache node {v} ran out of disk",
            "whitelist {v} in EZproxy for the walk-in users",
        ],
    ),
    (
        B,
        "scanner_serial_number",
        g_serial,
        [
            "S/N {v}",
            "book scanner serial {v} - warranty till 2028",
            "Zeutschel serial no. {v}, service visit booked",
            "Número de serie del escáner: {v}",
        ],
    ),
    (
        B,
        "ticket_order_reference",
        g_order,
        [
            "Numero d'ordine {v}: rimborso emesso",
            "Eventbrite order {v} - refund approved (duplicate booking)",
            "family tour booking ref {v}, 2 adults 3 kids",
            "prenotazione {v} annullata dal visitatore",
        ],
    ),
    (
        B,
        "mapbox_public_token",
        g_mapbox_pk,
        [
            "the pk. token {v} is the public one, it's in the page source anyway",
            "public map token for the historic maps viewer: {v} (URL-restricted)",
            "mapboxgl.accessToken = '{v}';",
            "MAPBOX_PUBLIC_TOKEN={v}",
        ],
    ),
    (
        B,
        "orcid_id",
        g_orcid,
        [
            "<orcid>{v}</orcid>",
            "curator's ORCID: https://orcid.org/{v}",
            "add ORCID {v} to the dataset record",
            "ORCID del ricercatore: {v}",
        ],
    ),
    (
        B,
        "oclc_number",
        g_oclc_num,
        [
            "Rhif OCLC {v}",
            "OCLC number {v} - set holdings",
            "035 $a (OCoLC){v}",
            "ocm{v} overlaid our local record",
        ],
    ),
    (
        B,
        "wikidata_qid",
        g_qid,
        [
            "P170 (creator) -> {v}",
            "linked the artist to Wikidata {v}",
            "https://www.wikidata.org/wiki/{v}",
            "reconcile place names in OpenRefine -> {v}",
        ],
    ),
    (
        B,
        "docker_image_digest",
        g_digest,
        [
            "Digest: {v}",
            "cantaloupe image pinned to islandora/cantaloupe@{v}",
            "deployed digest {v}",
            "image: koha/koha-testing@{v}",
        ],
    ),
    (
        B,
        "npm_integrity_hash",
        g_integrity,
        [
            '"integrity": "{v}"',
            "package-lock for mirador changed integrity to {v} after the bump",
            "npm warn tarball integrity {v} mismatch - cleared cache, fine now",
        ],
    ),
    (
        B,
        "ga4_measurement_id",
        g_ga4,
        [
            "GA4 stream for the shop: {v}",
            "GA4 measurement id for the collections site: {v}",
            "gtag('config', '{v}');",
            "ID di misurazione Analytics: {v}",
        ],
    ),
    (
        B,
        "revoked_github_token_stated_revoked",
        g_ghp,
        [
            "Este token ({v}) ya está revocado, lo dejo aquí sólo para el informe del incidente",
            "the token {v} that ended up in the public repo was revoked by GitHub within minutes - confirmed dead, new one in vault",
            "REVOKED 2026-11-20, do not use: {v}",
            "incident note: {v} leaked in a screenshot, revoked same day, audit log clean",
        ],
    ),
    (
        B,
        "xxxx_placeholder",
        None,
        [
            ("doc example: apikey={v}", "l7xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"),
            ("fill in STRIPE_SECRET_KEY={v} before running", "sk_live_xxxxxxxxxxxxxxxxxxxxxxxx"),
            ("password: {v}", "xxxxxxxx"),
            ("Wi-Fi staff: XXXX (ask Rhian) | SIP: {v}", "XXXX-XXXX-XXXX"),
        ],
    ),
    (
        B,
        "jira_ticket_key",
        g_jira,
        [
            "ver {v} para el problema del wifi",
            "see {v} for the kiosk rollout",
            "{v}: SIP2 timeouts at the east branch",
            "closed {v}, IIIF cache purge done",
        ],
    ),
    (
        B,
        "koha_config_template_placeholder",
        None,
        [
            ("koha-conf.xml template in ansible: <pass>{v}</pass>", "__DB_PASS__"),
            ('SIPconfig template line: password="{v}"', "__SIP_PASSWORD__"),
            ("ansible fills in {v} from the vault at deploy", "{{ koha_db_password }}"),
        ],
    ),
    (
        B,
        "dewey_call_number",
        g_dewey,
        [
            "| call no | copies |\n| {v} | 2 |",
            "shelf mark {v} mislabelled",
            "call no {v} - move to local studies",
            "Signatura {v}: ejemplar dañado",
        ],
    ),
    (
        B,
        "iiif_image_api_url",
        g_iiif,
        [
            "info.json: https://iiif.citymuseum.org/iiif/3/{v}/info.json",
            "https://iiif.citymuseum.org/iiif/3/{v}/full/max/0/default.jpg",
            "thumbnail request /iiif/2/{v}/full/200,/0/default.jpg is 500ing",
            "image id {v} has wrong rotation in the info.json",
        ],
    ),
    (
        B,
        "cantaloupe_cache_key_hex",
        g_hex(16),
        [
            "rm /var/cache/cantaloupe/source/{v}",
            "derivative cache file: /var/cache/cantaloupe/{v}.jpg",
            "thumb_{v}.png regenerated",
            "cache key {v} evicted",
        ],
    ),
    (
        B,
        "eventbrite_event_id",
        g_num(10**11, 10**12),
        [
            "Digwyddiad Eventbrite {v} - wedi gwerthu allan",
            "late opening event id {v} - embed widget on the what's on page",
            "https://www.eventbrite.co.uk/e/{v}",
            "evento {v}: aggiunti 20 posti",
        ],
    ),
    (
        B,
        "s3_etag",
        lambda r: {"v": rs(r, HEX, 32) + "-" + str(r.randint(2, 90))},
        [
            'multipart upload done, ETag "{v}" for the 40GB TIFF batch',
            "aws s3api head-object says ETag {v} - not an md5 because multipart",
            "ETag del objeto: {v}",
        ],
    ),
    (
        B,
        "google_oauth_client_id_only",
        lambda r: {
            "v": str(r.randint(10**11, 10**12))
            + "-"
            + rs(r, LO + DG, 32)
            + ".apps.googleusercontent.com"
        },
        [
            "client id for the volunteer portal Google sign-in (public, goes in the page): {v}",
            '<meta name="google-signin-client_id" content="{v}">',
            "GOOGLE_CLIENT_ID={v}",
        ],
    ),
    (
        B,
        "twilio_account_sid_only",
        lambda r: {"v": "AC" + rs(r, HEX, 32)},
        [
            "Twilio account SID {v} (auth token lives in vault)",
            "support ticket with Twilio: account {v}, SMS to +44 numbers failing",
            "TWILIO_ACCOUNT_SID={v}",
        ],
    ),
    (
        B,
        "stripe_test_publishable_key",
        lambda r: {"v": "pk_test_51" + rs(r, AN, 97)},
        [
            "staging donate page uses {v}",
            "STRIPE_PK_TEST={v}",
            "test mode publishable key {v} - use card 4242 4242 4242 4242",
        ],
    ),
    (
        B,
        "hex_colour_code",
        lambda r: {"v": "#" + rs(r, HEX, 6)},
        [
            "Mirador theme primary colour {v}",
            "brand guide: heading colour {v}, don't use pure black",
            "--accent: {v};",
        ],
    ),
]


def corpus() -> list[dict]:
    r = random.Random(SEED)
    rows = []
    for label, kind, gen, templates in SPEC:
        for t in templates:
            if gen is None:
                t, fixed = t
                d = {"v": fixed}
                vkey = "v"
            else:
                d = gen(r)
                vkey = "v"
                if isinstance(t, tuple):
                    t, vkey = t
            text = t
            for k, val in d.items():
                text = text.replace("{" + k + "}", val)
            rows.append({"label": label, "kind": kind, "text": text, "value": d[vkey]})
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

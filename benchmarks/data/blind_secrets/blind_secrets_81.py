# ruff: noqa: E501, UP031
"""Blind secret-detector corpus 81: theatre and live-events production.

Brief: memory notes of a theatre / live-events production company: ticketing platforms, lighting and sound consoles on show networks, show-control and media servers, touring laptops, venue Wi-Fi and backstage access, streaming to platforms, crew scheduling apps; notes by production managers and technicians, some in German, Swedish or Czech. Live secrets against look-alikes (hashes, ids, serials, public keys, placeholders, masked values, vault references, documented examples, publishable keys).

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Run: python blind_secrets_81.py [out.jsonl]

Kinds, secret: aws_secret_access_key, github_pat_classic, github_pat_fine_grained, gitlab_pat, slack_bot_token, slack_webhook_url, discord_webhook_url, stripe_live_secret_key, twilio_auth_token, sendgrid_api_key, google_api_key, gcp_service_account_json, openssh_private_key, rsa_private_key_pem, youtube_stream_key, twitch_stream_key, rtmp_url_with_stream_key, srt_passphrase, venue_wifi_psk, stage_door_keypad_code, lighting_console_password, sound_console_password, media_server_password, postgres_url_with_password, mysql_cli_password, redis_url_with_password, mongodb_srv_uri, smtp_password, jwt_bearer_token, basic_auth_header, url_with_credentials, nas_root_password_prose, remote_desktop_password, bitlocker_recovery_key, apple_app_specific_password, npm_token, azure_storage_connection_string, azure_sas_token, telegram_bot_token, openai_api_key, mailchimp_api_key, square_access_token, shopify_admin_token, crew_scheduling_api_key, eventbrite_private_token, datadog_api_key, vault_token, snmp_community_private, sftp_password, network_switch_enable_secret
Kinds, benign: git_commit_sha, short_commit_sha, show_file_uuid, sha256_checksum, md5_checksum, ssh_public_key, ssh_host_fingerprint, x509_certificate_pem, placeholder_angle_bracket, placeholder_changeme, placeholder_xxxx, env_var_reference, vault_reference, masked_secret, redacted_secret, aws_documented_example_key, stripe_publishable_key, recaptcha_site_key, ticket_order_reference, console_serial_number, mac_address, show_network_ip_plan, dmx_artnet_addressing, timecode_value, password_policy_text, revoked_stream_key_stated_revoked, youtube_video_and_channel_id, rtmp_ingest_url_without_key, trace_request_id, docker_image_digest, npm_integrity_hash, slack_channel_and_user_id, aws_account_id_and_arn, gpg_key_fingerprint, firmware_version_and_build, freight_tracking_number, merch_ean_barcode, guest_wifi_open_network, company_iban_on_invoice, color_and_gel_codes, seat_map_ids, dante_device_names, license_seat_count_note, base64_thumbnail_data, box_office_phone_number, wifi_ssid_without_password, cue_list_numbers, venue_gps_coordinates, ticket_platform_public_event_url, hex_color_for_led_wall
"""

import json
import random
import string
import sys

SEED = 8181

UP = string.ascii_uppercase
LO = string.ascii_lowercase
DG = string.digits
AN = UP + LO + DG
HEX = "0123456789abcdef"
B64 = AN + "+/"
URLSAFE = AN + "-_"

WORDS = [
    "Hamlet",
    "Faust",
    "Lear",
    "Tosca",
    "Carmen",
    "Ophelia",
    "Macbeth",
    "Gobo",
    "Spotlight",
    "Bühne",
    "Vorhang",
    "Kulisse",
    "scena",
    "divadlo",
    "ridan",
    "Scenen",
    "Ljus",
    "Fresnel",
    "Follow",
    "Dimmer",
    "Rigging",
    "Truss",
    "Cyclorama",
    "Prompter",
    "Fly",
    "Opona",
    "Lampa",
    "Tontechnik",
    "Sommar",
    "Nora",
]
SYMS = "!#$%&*?+-."


def _r(rng, alpha, n):
    return "".join(rng.choice(alpha) for _ in range(n))


def human_pw(rng):
    w = rng.choice(WORDS)
    if rng.random() < 0.4:
        w = w + rng.choice(WORDS).lower()
    return w + str(rng.randint(1, 9999)) + rng.choice(SYMS)


def gen_pw(rng):
    s = _r(rng, AN, rng.randint(14, 22))
    k = rng.randint(2, len(s) - 2)
    return s[:k] + rng.choice("!#%*-_") + s[k:]


def b64_body(rng, n):
    return _r(rng, B64, n)


def pem_block(rng, label, lines):
    body = (
        "\n".join(b64_body(rng, 64) for _ in range(lines))
        + "\n"
        + b64_body(rng, rng.randint(8, 60))
        + "="
    )
    return f"-----BEGIN {label}-----\n{body}\n-----END {label}-----"


def jwt(rng):
    import base64

    hdr = base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT"}').decode().rstrip("=")
    payload = '{"sub":"%s","role":"boxoffice","iat":%d,"exp":%d}' % (
        _r(rng, DG, 8),
        1790000000 + rng.randint(0, 9999999),
        1800000000 + rng.randint(0, 9999999),
    )
    pl = base64.urlsafe_b64encode(payload.encode()).decode().rstrip("=")
    return hdr + "." + pl + "." + _r(rng, URLSAFE, 43)


def basic_hdr(rng):
    import base64

    user = rng.choice(["foh", "boxoffice", "lx", "showcontrol", "tour"])
    return base64.b64encode((user + ":" + human_pw(rng)).encode()).decode()


def dashed(rng, groups, n, alpha):
    return "-".join(_r(rng, alpha, n) for _ in range(groups))


def uuid4(rng):
    h = _r(rng, HEX, 32)
    return "{}-{}-4{}-{}{}-{}".format(
        h[:8], h[8:12], h[13:16], rng.choice("89ab"), h[17:20], h[20:32]
    )


# ---------------------------------------------------------------- secrets
# each kind: (kind, generator, [templates]); template is str with @V or callable(v, rng)

SECRETS = [
    (
        "aws_secret_access_key",
        lambda r: _r(r, B64, 40),
        [
            lambda v, r: (
                f"ticketing exports bucket creds (box office S3 sync):\naws_access_key_id = AKIA{_r(r, UP + DG, 16)}\naws_secret_access_key = @V"
            ),
            "export AWS_SECRET_ACCESS_KEY=@V  # for the foyer-screens uploader on the touring mac",
            "Anna: the secret for the s3 media bucket is @V, id is in the tour doc",
            "AWS klíč pro zálohy show souborů: secret @V",
        ],
    ),
    (
        "github_pat_classic",
        lambda r: "ghp_" + _r(r, AN, 36),
        [
            "cloned the qlab-scripts repo on FOH laptop with token @V (expires after tour)",
            "git clone https://@V@github.com/ourco/showcontrol-osc.git",
            "GH_TOKEN=@V",
            "Token für das Cue-Repo: @V — bitte nicht weitergeben",
        ],
    ),
    (
        "github_pat_fine_grained",
        lambda r: "github_pat_" + _r(r, AN, 22) + "_" + _r(r, AN, 59),
        [
            "fine-grained PAT for the ticket-widget repo (read/write contents): @V",
            "| repo | token |\n| ticket-widget | @V |",
            "gh auth login --with-token <<< @V",
        ],
    ),
    (
        "gitlab_pat",
        lambda r: "glpat-" + _r(r, URLSAFE, 20),
        [
            "gitlab deploy for the lighting preset library: @V",
            "CI_JOB_PUSH_TOKEN: @V",
            "Petr poslal token na gitlab: @V",
            'curl --header "PRIVATE-TOKEN: @V" https://gitlab.ourco.cz/api/v4/projects',
        ],
    ),
    (
        "slack_bot_token",
        lambda r: f"xoxb-{_r(r, DG, 12)}-{_r(r, DG, 13)}-{_r(r, AN, 24)}",
        [
            "crew-call bot posts call times to #crew, bot token @V",
            "SLACK_BOT_TOKEN=@V",
            "slack bot tok (schedule reminders): @V",
            '[notifier]\nslack_token = "@V"',
        ],
    ),
    (
        "slack_webhook_url",
        lambda r: (
            f"https://hooks.slack.com/services/T{_r(r, UP + DG, 10)}/B{_r(r, UP + DG, 10)}/{_r(r, AN, 24)}"
        ),
        [
            "show-report webhook -> #production: @V",
            "curl -X POST -H 'Content-type: application/json' --data '{\"text\":\"House open\"}' @V",
            "webhook_url: @V",
            "Webhook für Abendbericht: @V",
        ],
    ),
    (
        "discord_webhook_url",
        lambda r: f"https://discord.com/api/webhooks/{_r(r, DG, 19)}/{_r(r, URLSAFE, 68)}",
        [
            "touring crew discord, stream-alert hook: @V",
            "DISCORD_HOOK=@V",
            "if the stream drops the obs script pings @V",
        ],
    ),
    (
        "stripe_live_secret_key",
        lambda r: "sk_live_" + _r(r, AN, 99),
        [
            "merch/online donation checkout uses stripe key @V",
            "STRIPE_SECRET_KEY=@V",
            "stripe live secret (donations page): @V",
            "Stripe-nyckel för biljettdonationer: @V",
        ],
    ),
    (
        "twilio_auth_token",
        lambda r: _r(r, HEX, 32),
        [
            lambda v, r: f"SMS crew-call: account AC{_r(r, HEX, 32)}, auth token @V",
            "TWILIO_AUTH_TOKEN=@V",
            lambda v, r: (
                f"curl -u AC{_r(r, HEX, 32)}:@V https://api.twilio.com/2010-04-01/Accounts.json"
            ),
        ],
    ),
    (
        "sendgrid_api_key",
        lambda r: f"SG.{_r(r, URLSAFE, 22)}.{_r(r, URLSAFE, 43)}",
        [
            "box office e-ticket mails go out via sendgrid, key @V",
            "SENDGRID_API_KEY=@V",
            "sendgrid key (newsletter + tix): @V",
            '"sendgrid": {"api_key": "@V"}',
        ],
    ),
    (
        "google_api_key",
        lambda r: "AIza" + _r(r, URLSAFE, 35),
        [
            "server-side key for the YouTube Data API (scheduling premieres), unrestricted!: @V",
            "YOUTUBE_API_KEY=@V",
            "Google API klíč pro kalendář zkoušek: @V",
        ],
    ),
    (
        "gcp_service_account_json",
        lambda r: pem_block(r, "PRIVATE KEY", 6),
        [
            lambda v, r: json.dumps(
                {
                    "type": "service_account",
                    "project_id": "rehearsal-sched",
                    "private_key_id": _r(r, HEX, 40),
                    "private_key": v + "\n",
                    "client_email": "sheets-sync@rehearsal-sched.iam.gserviceaccount.com",
                },
                indent=1,
            ),
            lambda v, r: (
                "sheets sync SA key (crew rota spreadsheet), pasted here bc the laptop died:\n"
                + json.dumps(
                    {
                        "type": "service_account",
                        "private_key": v,
                        "client_email": "rota@crewrota-1.iam.gserviceaccount.com",
                    }
                )
            ),
        ],
    ),
    (
        "openssh_private_key",
        lambda r: pem_block(r, "OPENSSH PRIVATE KEY", 5),
        [
            "key for the media server jump box (user show):\n@V",
            "id_ed25519 vom Tour-Laptop, falls der wieder stirbt:\n@V",
        ],
    ),
    (
        "rsa_private_key_pem",
        lambda r: pem_block(r, "RSA PRIVATE KEY", 8),
        [
            "TLS key for tickets.ourvenue.example (cert renewed in March):\n@V",
            "privkey.pem for the kiosk https:\n@V",
        ],
    ),
    (
        "youtube_stream_key",
        lambda r: dashed(r, 5, 4, LO + DG),
        [
            "YT stream key for the gala livestream: @V",
            "OBS > Settings > Stream > YouTube, key @V",
            "stream key youtube (premiere 14.5.): @V",
            "Streamschlüssel YouTube für die Matinee: @V",
            "@V",
        ],
    ),
    (
        "twitch_stream_key",
        lambda r: f"live_{_r(r, DG, 9)}_{_r(r, AN, 30)}",
        [
            "twitch key for the backstage cam channel: @V",
            "ffmpeg -re -i program.mp4 -c copy -f flv rtmp://live.twitch.tv/app/@V",
            "Twitch-nyckel till repetitionsströmmen: @V",
        ],
    ),
    (
        "rtmp_url_with_stream_key",
        lambda r: dashed(r, 4, 4, LO + DG) + "-" + _r(r, LO + DG, 4),
        [
            "full ingest for the vMix: rtmp://a.rtmp.youtube.com/live2/@V",
            "ATEM streaming.xml <key>@V</key> server rtmp://a.rtmp.youtube.com/live2",
            "backup encoder: rtmps://b.rtmp.youtube.com:443/live2?backup=1/@V",
        ],
    ),
    (
        "srt_passphrase",
        lambda r: gen_pw(r),
        [
            "SRT from venue to broadcast truck: srt://203.0.113.40:9000?mode=caller&passphrase=@V&pbkeylen=32",
            "srt passphrase (encoder ↔ truck) is @V",
            "SRT-Passphrase für die Strecke Bühne→Ü-Wagen: @V",
        ],
    ),
    (
        "venue_wifi_psk",
        lambda r: human_pw(r),
        [
            "backstage wifi CREW-5G pw @V",
            "WLAN Technik: SSID 'Buehne-Tech', Passwort @V",
            "Wi-Fi för personal: PersonalNet / @V",
            "Wi-Fi pro techniku: heslo @V",
            "WIFI:T:WPA;S:ShowNet-Ctrl;P:@V;;",
        ],
    ),
    (
        "stage_door_keypad_code",
        lambda r: str(r.randint(1000, 999999)),
        [
            "stage door keypad code this run: @V then #",
            "Code Bühneneingang: @V (ändert sich nach der Premiere)",
            "loading dock roller door: hold button, code @V",
            "Kód na zadní vchod: @V",
        ],
    ),
    (
        "lighting_console_password",
        lambda r: human_pw(r),
        [
            "grandMA3 session admin pw is @V",
            "ETC Eos: shell password for the main desk @V",
            "Lichtpult Admin-Passwort: @V",
            "ljusbordets admin: @V",
            "MA onPC on the backup laptop, user Administrator / @V",
        ],
    ),
    (
        "sound_console_password",
        lambda r: human_pw(r),
        [
            "DiGiCo SD12 engineer lock pw @V",
            "Yamaha CL5 admin password: @V (don't let the visiting mixer change it)",
            "Tonpult Admin: @V",
            "Heslo k mixu na zvukařině: @V",
        ],
    ),
    (
        "media_server_password",
        lambda r: gen_pw(r),
        [
            "disguise d3 director machine, local admin @V",
            "Watchout production PC: login showadmin / @V",
            "pixera master password @V",
            "Medienserver (Resolume Kiste) Login: video / @V",
        ],
    ),
    (
        "postgres_url_with_password",
        lambda r: gen_pw(r),
        [
            "DATABASE_URL=postgres://tix_app:@V@db.internal.ourvenue.net:5432/tickets",
            "crew app db: postgresql://rota:@V@10.20.0.15/rota?sslmode=require",
            'psql "postgresql://reporting:@V@pg-prod:5432/boxoffice"',
        ],
    ),
    (
        "mysql_cli_password",
        lambda r: human_pw(r),
        [
            "mysql -h 10.1.4.20 -u seatplan -p'@V' seatplan_prod",
            "MYSQL_ROOT_PASSWORD=@V",
            "old ticketing DB root pw @V",
        ],
    ),
    (
        "redis_url_with_password",
        lambda r: _r(r, AN, 32),
        [
            "REDIS_URL=redis://default:@V@redis-queue.internal:6379/0",
            "seat-hold cache: rediss://:@V@cache.ourvenue.net:6380",
            "redis-cli -a @V -h 10.20.0.30 FLUSHDB   # only after the on-sale!",
        ],
    ),
    (
        "mongodb_srv_uri",
        lambda r: gen_pw(r),
        [
            "MONGO_URI=mongodb+srv://crewapp:@V@cluster0.ab1cd.mongodb.net/crew",
            "setlist db: mongodb+srv://setlists:@V@cluster-tour.x7yz2.mongodb.net/?retryWrites=true",
        ],
    ),
    (
        "smtp_password",
        lambda r: human_pw(r),
        [
            "box office SMTP: mail.ourvenue.net:587 user tickets@ourvenue.net pass @V",
            "SMTP_PASSWORD=@V",
            "SMTP-lösenord för biljettkontoret: @V",
        ],
    ),
    (
        "jwt_bearer_token",
        jwt,
        [
            "Authorization: Bearer @V",
            'curl -H "Authorization: Bearer @V" https://api.ticketplatform.example/v2/events/812/orders',
            "session token for the scanning app (valid till closing night): @V",
        ],
    ),
    (
        "basic_auth_header",
        basic_hdr,
        [
            "Authorization: Basic @V",
            "ticketing partner webhook sends header Authorization: Basic @V",
            "curl -H 'Authorization: Basic @V' http://10.10.1.50/api/cues",
        ],
    ),
    (
        "url_with_credentials",
        lambda r: human_pw(r),
        [
            "show NAS: smb://tour:@V@10.10.0.5/showfiles",
            "http://admin:@V@192.168.0.1 is the venue router, we need it for port forwarding",
            "ftp://lx:@V@files.ourco.example/presets/",
            "rsync from https://sync:@V@media.ourco.example/dav/",
        ],
    ),
    (
        "nas_root_password_prose",
        lambda r: human_pw(r),
        [
            "Synology in the dimmer room: admin, and it's @V",
            "for the NAS just use @V, same as last tour",
            "root na NASu je @V",
            "Passwort vom NAS ist @V",
        ],
    ),
    (
        "remote_desktop_password",
        lambda r: _r(r, LO + DG, 8),
        [
            "TeamViewer on the FOH laptop: ID 1 234 567 890, password @V",
            "AnyDesk unattended access pw for the media server: @V",
            "Fernwartung Lichtrechner: TeamViewer Kennwort @V",
        ],
    ),
    (
        "bitlocker_recovery_key",
        lambda r: "-".join("%06d" % r.randint(0, 999999) for _ in range(8)),
        [
            "BitLocker recovery key, touring laptop TL-03: @V",
            "Wiederherstellungsschlüssel Laptop Ton: @V",
            "recovery key if TL-01 asks again:\n@V",
        ],
    ),
    (
        "apple_app_specific_password",
        lambda r: dashed(r, 4, 4, LO),
        [
            "notarization for the QLab helper app: app-specific pw @V",
            "xcrun notarytool submit app.zip --apple-id build@ourco.example --password @V --team-id ABCDE12345",
            "Apple ID prod-mac app password @V",
        ],
    ),
    (
        "npm_token",
        lambda r: "npm_" + _r(r, AN, 36),
        [
            "//registry.npmjs.org/:_authToken=@V",
            "NPM_TOKEN=@V for publishing the osc-bridge package",
            "npm token (cue-osc publish): @V",
        ],
    ),
    (
        "azure_storage_connection_string",
        lambda r: _r(r, B64, 86) + "==",
        [
            "DefaultEndpointsProtocol=https;AccountName=ourcovideo;AccountKey=@V;EndpointSuffix=core.windows.net",
            "AZURE_STORAGE_KEY=@V",
            "archive of show recordings, storage key: @V",
        ],
    ),
    (
        "azure_sas_token",
        lambda r: _r(r, AN, 43) + "%3D",
        [
            "upload link for the recording: https://ourcovideo.blob.core.windows.net/recordings?sv=2022-11-02&ss=b&srt=co&sp=rwdlac&se=2027-06-30T00:00:00Z&sig=@V",
            "?sv=2022-11-02&sr=c&sp=racwl&se=2027-01-31&sig=@V  <- SAS for Akt-1 footage, send to editor",
            "SAS sig for the rehearsal footage container: @V",
        ],
    ),
    (
        "telegram_bot_token",
        lambda r: "%d:%s" % (r.randint(1000000000, 7999999999), "AA" + _r(r, URLSAFE, 33)),
        [
            "tg bot for the tour crew group: @V",
            "TELEGRAM_TOKEN=@V",
            "Telegram-Bot für Probenplan: @V",
        ],
    ),
    (
        "openai_api_key",
        lambda r: "sk-proj-" + _r(r, URLSAFE, 48) + "T3BlbkFJ" + _r(r, URLSAFE, 48),
        [
            "OPENAI_API_KEY=@V  (surtitle translation script)",
            "key for the subtitle/surtitle translator: @V",
            "Klíč k překladači titulků: @V",
        ],
    ),
    (
        "mailchimp_api_key",
        lambda r: _r(r, HEX, 32) + "-us" + str(r.randint(2, 21)),
        [
            "mailchimp (season brochure list): @V",
            "MAILCHIMP_KEY=@V",
            "newsletter api key @V",
        ],
    ),
    (
        "square_access_token",
        lambda r: "EAAA" + _r(r, URLSAFE, 60),
        [
            "bar POS (Square) production token: @V",
            "SQUARE_ACCESS_TOKEN=@V",
            "Kassensystem Bar, Square Token: @V",
        ],
    ),
    (
        "shopify_admin_token",
        lambda r: "shpat_" + _r(r, HEX, 32),
        [
            "merch store admin api token: @V",
            "X-Shopify-Access-Token: @V",
            "shopify (tour merch) shpat: @V",
        ],
    ),
    (
        "crew_scheduling_api_key",
        lambda r: _r(r, HEX, 40),
        [
            "crew rota app API key (staff scheduling export): @V",
            'rota_api_key = "@V"',
            "curl -H 'X-Api-Key: @V' https://api.crewrota.example/v1/shifts?venue=main",
            "API-nyckel schemaläggning: @V",
        ],
    ),
    (
        "eventbrite_private_token",
        lambda r: _r(r, UP + DG, 20),
        [
            "Eventbrite private token for the workshop events: @V",
            "EVENTBRITE_TOKEN=@V",
            "curl https://www.eventbriteapi.com/v3/users/me/?token=@V",
        ],
    ),
    (
        "datadog_api_key",
        lambda r: _r(r, HEX, 32),
        [
            "DD_API_KEY=@V  (monitoring the ticket site during on-sale)",
            "datadog api key for the on-sale dashboard: @V",
        ],
    ),
    (
        "vault_token",
        lambda r: "hvs." + _r(r, URLSAFE, 90),
        [
            "VAULT_TOKEN=@V",
            "root token from unseal day, rotate!: @V",
            "vault login @V",
        ],
    ),
    (
        "snmp_community_private",
        lambda r: _r(r, LO, 5) + _r(r, DG, 3) + _r(r, LO, 3),
        [
            "switches on show network, SNMP rw community @V",
            "snmpset -v2c -c @V 10.10.0.2 ifAdminStatus.12 i 2",
            "SNMP community (schreibend) für Dante-Switche: @V",
        ],
    ),
    (
        "sftp_password",
        lambda r: gen_pw(r),
        [
            "sftp lx@files.ourco.example pw @V (for uploading show files from tour)",
            "SFTP pro výměnu show souborů: uživatel lx, heslo @V",
            "sshpass -p '@V' sftp media@10.10.0.40",
        ],
    ),
    (
        "network_switch_enable_secret",
        lambda r: human_pw(r),
        [
            "Cisco on the show net: enable secret @V",
            "Luminex GigaCore admin pw: @V",
            "Netgear M4250 (AV line) admin / @V",
        ],
    ),
]


# ---------------------------------------------------------------- benign


def cert_pem(rng):
    return pem_block(rng, "CERTIFICATE", 7)


BENIGN = [
    (
        "git_commit_sha",
        lambda r: _r(r, HEX, 40),
        [
            "deployed ticket-widget at commit @V",
            "cue scripts pinned to @V, do not pull main during tech week",
            "Fix für Timecode-Drift ist in Commit @V",
            "revert @V if the OSC bridge misbehaves",
        ],
    ),
    (
        "short_commit_sha",
        lambda r: _r(r, HEX, 7),
        [
            "showcontrol build @V is the one we toured with",
            "qlab-scripts @V broke the go button mapping",
            "Verze @V je na obou laptopech",
        ],
    ),
    (
        "show_file_uuid",
        uuid4,
        [
            "QLab workspace id @V (Hamlet main)",
            "showfile uuid @V",
            "event id in the ticket platform: @V",
            "Eos show file 'Faust_v14' uuid @V",
        ],
    ),
    (
        "sha256_checksum",
        lambda r: _r(r, HEX, 64),
        [
            "sha256 of Tosca_final.esf3d: @V",
            "sha256sum grandMA3_v2.1.iso -> @V (matches website)",
            "Prüfsumme Medienpaket Akt 2: @V",
            "checksum video pack: @V",
        ],
    ),
    (
        "md5_checksum",
        lambda r: _r(r, HEX, 32),
        [
            "md5 of the 4K intro loop @V, copied fine to both servers",
            "md5sum Akt1_Projection.mov = @V",
            "MD5 kontrolní součet: @V",
        ],
    ),
    (
        "ssh_public_key",
        lambda r: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + _r(r, B64, 43),
        [
            "add this to authorized_keys on the media server: @V tour-laptop",
            "my pubkey: @V",
            "öffentlicher Schlüssel Ton-Laptop: @V ton@tl02",
        ],
    ),
    (
        "ssh_host_fingerprint",
        lambda r: "SHA256:" + _r(r, B64, 43),
        [
            "jump box host key fingerprint @V, verify on first connect",
            "ED25519 key fingerprint is @V.",
            "fingerprint mediaserver-a: @V",
        ],
    ),
    (
        "x509_certificate_pem",
        cert_pem,
        [
            "public cert for tickets.ourvenue.example (chain part 1):\n@V",
            "CA cert for the show-net RADIUS, install on tablets:\n@V",
        ],
    ),
    (
        "placeholder_angle_bracket",
        lambda r: r.choice(
            ["<your-token>", "<stream-key>", "<PASSWORD>", "<api-key-here>", "<paste key>"]
        ),
        [
            "OBS stream key: @V (get it from YouTube Studio)",
            "export TICKET_API_KEY=@V",
            "curl -H 'Authorization: Bearer @V' https://api.ticketplatform.example/v2/events",
            "wifi pw: @V — ask the venue TD",
        ],
    ),
    (
        "placeholder_changeme",
        lambda r: r.choice(["changeme", "CHANGE_ME", "change-me", "todo", "TBD"]),
        [
            "DB_PASSWORD=@V",
            "default console admin pw in our template is @V, set a real one on site",
            "password: @V  # filled in by ansible",
            "Passwort: @V (wird vor Ort gesetzt)",
        ],
    ),
    (
        "placeholder_xxxx",
        lambda r: r.choice(
            [
                "xxxx-xxxx-xxxx-xxxx-xxxx",
                "sk_live_xxxxxxxxxxxxxxxx",
                "XXXXXXXX",
                "****",
                "ghp_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX",
            ]
        ),
        [
            "stream key format: @V",
            "STRIPE_SECRET_KEY=@V",
            "heslo: @V",
            "token @V goes here",
        ],
    ),
    (
        "env_var_reference",
        lambda r: r.choice(
            [
                "${TWITCH_STREAM_KEY}",
                "$YT_KEY",
                "${SMTP_PASSWORD}",
                "%CONSOLE_PW%",
                "${{ secrets.GH_TOKEN }}",
                "$env:MEDIA_PW",
            ]
        ),
        [
            "ffmpeg ... -f flv rtmp://live.twitch.tv/app/@V",
            "smtp_pass = @V",
            "the deploy step uses @V, never paste the value here",
            "password: @V",
        ],
    ),
    (
        "vault_reference",
        lambda r: r.choice(
            [
                "op://Production/Backstage WiFi/password",
                "vault:secret/data/tour/nas#password",
                "1Password item 'grandMA3 admin'",
                "Bitwarden: Venues/Stage door",
                "arn:aws:secretsmanager:eu-central-1:123456789012:secret:ticketing/db",
            ]
        ),
        [
            "backstage wifi pw lives in @V",
            "db creds: @V",
            "Passwort steht in @V",
            "lösenordet finns i @V",
        ],
    ),
    (
        "masked_secret",
        lambda r: r.choice(["sk_live_", "ghp_", "xoxb-", "SG.", "live_"]) + "****" + _r(r, AN, 4),
        [
            "rotated the key ending @V on Monday",
            "dashboard shows @V as active",
            "alter Key (@V) ist gelöscht",
            "key @V belongs to the merch account",
        ],
    ),
    (
        "redacted_secret",
        lambda r: r.choice(["[REDACTED]", "<redacted>", "•••••••••", "***hidden***", "[removed]"]),
        [
            "YT stream key: @V",
            "TeamViewer pw @V",
            "Authorization: Bearer @V",
            "heslo k wifi: @V",
        ],
    ),
    (
        "aws_documented_example_key",
        lambda r: r.choice(["AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"]),
        [
            "the docs example @V is what the uploader README shows, not ours",
            "aws configure wants something like @V",
            "Beispielschlüssel aus der AWS-Doku: @V",
        ],
    ),
    (
        "stripe_publishable_key",
        lambda r: "pk_live_" + _r(r, AN, 99),
        [
            "publishable key in the donation page html: @V (public, fine)",
            "NEXT_PUBLIC_STRIPE_PK=@V",
            'data-key="@V" on the checkout button',
        ],
    ),
    (
        "recaptcha_site_key",
        lambda r: "6L" + _r(r, URLSAFE, 38),
        [
            "recaptcha site key on the ticket form: @V",
            'data-sitekey="@V"',
            "sitekey (public) @V",
        ],
    ),
    (
        "ticket_order_reference",
        lambda r: "ORD-" + _r(r, UP + DG, 10),
        [
            "customer complained about order @V, refunded 2 seats",
            "Bestellung @V: Rollstuhlplatz umgebucht",
            "comp tickets under @V for the lighting designer's family",
            "beställning @V avbokad",
        ],
    ),
    (
        "console_serial_number",
        lambda r: r.choice(["MA3-", "SD12-", "CL5-", "EOS-"]) + _r(r, UP + DG, 10),
        [
            "desk serial @V goes back to the rental house",
            "Seriennummer Pult: @V",
            "Sériové číslo pultu: @V",
            "insurance list: console @V",
        ],
    ),
    (
        "mac_address",
        lambda r: ":".join(_r(r, HEX, 2) for _ in range(6)),
        [
            "DHCP reservation for the media server: @V -> 10.10.0.40",
            "Dante primary MAC @V",
            "MAC-Adresse Nodebox links: @V",
        ],
    ),
    (
        "show_network_ip_plan",
        lambda r: "10.%d.%d.%d" % (r.randint(0, 99), r.randint(0, 254), r.randint(1, 254)),
        [
            "sACN node SR is @V /16",
            "grandMA backup at @V",
            "IP Lichtnetz Knoten: @V",
            "| device | ip |\n| QLab mini | @V |",
        ],
    ),
    (
        "dmx_artnet_addressing",
        lambda r: "%d/%d" % (r.randint(1, 64), r.randint(1, 512)),
        [
            "moving heads patched at @V",
            "Art-Net universe/address for the haze: @V",
            "adresa stroboskopu @V",
        ],
    ),
    (
        "timecode_value",
        lambda r: (
            "%02d:%02d:%02d:%02d"
            % (r.randint(0, 2), r.randint(0, 59), r.randint(0, 59), r.randint(0, 24))
        ),
        [
            "LTC start for act 2 at @V",
            "cue 214 fires at TC @V",
            "Tidkod för ridån: @V",
        ],
    ),
    (
        "password_policy_text",
        lambda r: str(r.choice([12, 14, 16])),
        [
            "policy: console passwords min @V chars, no show names, change after each tour",
            "Passwortregel: mindestens @V Zeichen, keine Stücktitel",
            "never post the stream key in #crew; passwords >= @V chars in 1Password",
        ],
    ),
    (
        "revoked_stream_key_stated_revoked",
        lambda r: dashed(r, 5, 4, LO + DG),
        [
            "old YT key @V was REVOKED after it leaked on the projection screen, new one in 1Password",
            "key @V is dead (reset in YouTube Studio 03/11)",
            "Alter Streamschlüssel @V wurde zurückgesetzt und ist ungültig",
        ],
    ),
    (
        "youtube_video_and_channel_id",
        lambda r: "UC" + _r(r, URLSAFE, 22),
        [
            "our channel id @V",
            "YouTube-Kanal-ID: @V",
            "embed the premiere from channel @V",
        ],
    ),
    (
        "rtmp_ingest_url_without_key",
        lambda r: r.choice(
            [
                "rtmp://a.rtmp.youtube.com/live2",
                "rtmps://live-api-s.facebook.com:443/rtmp/",
                "rtmp://live.twitch.tv/app",
                "srt://203.0.113.40:9000?mode=caller",
            ]
        ),
        [
            "ingest server @V (key separately)",
            "Server: @V",
            "server URL for OBS: @V",
        ],
    ),
    (
        "trace_request_id",
        lambda r: _r(r, HEX, 32),
        [
            "ticket API 502 during on-sale, request id @V, sent to vendor support",
            "x-request-id: @V",
            "trace @V shows the timeout at the payment step",
        ],
    ),
    (
        "docker_image_digest",
        lambda r: "sha256:" + _r(r, HEX, 64),
        [
            "osc-bridge image pinned to ghcr.io/ourco/osc-bridge@@V",
            "digest @V works on the ARM Pi",
            "Image-Digest: @V",
        ],
    ),
    (
        "npm_integrity_hash",
        lambda r: "sha512-" + _r(r, B64, 86) + "==",
        [
            '"integrity": "@V"',
            "lockfile integrity for osc@2.4.1: @V",
        ],
    ),
    (
        "slack_channel_and_user_id",
        lambda r: r.choice(["C0", "U0", "G0"]) + _r(r, UP + DG, 9),
        [
            "post show reports to channel @V",
            "ping @V when the truck arrives",
            "Kanal-ID: @V",
        ],
    ),
    (
        "aws_account_id_and_arn",
        lambda r: _r(r, DG, 12),
        [
            "ticket exports live in account @V (eu-central-1)",
            "arn:aws:s3:::ourco-recordings in account @V",
            "role arn:aws:iam::@V:role/media-uploader",
        ],
    ),
    (
        "gpg_key_fingerprint",
        lambda r: " ".join(_r(r, HEX.upper(), 4) for _ in range(10)),
        [
            "sign the release with my key, fpr @V",
            "GPG-Fingerabdruck: @V",
        ],
    ),
    (
        "firmware_version_and_build",
        lambda r: (
            "%d.%d.%d.%d"
            % (r.randint(1, 3), r.randint(0, 9), r.randint(0, 9), r.randint(1000, 9999))
        ),
        [
            "all MA3 desks on @V, don't update mid-run",
            "Firmware der Nodes: @V",
            "firmware ljusbord @V",
        ],
    ),
    (
        "freight_tracking_number",
        lambda r: "1Z" + _r(r, UP + DG, 16),
        [
            "cable cases shipped, tracking @V",
            "Sendungsnummer Kabelkisten: @V",
            "gobo order tracking @V",
        ],
    ),
    (
        "merch_ean_barcode",
        lambda r: "40" + _r(r, DG, 11),
        [
            "tour t-shirt EAN @V",
            "EAN Programmheft: @V",
        ],
    ),
    (
        "guest_wifi_open_network",
        lambda r: "Theatre-Guest-" + _r(r, DG, 2),
        [
            "audience wifi @V is open, captive portal only, no password",
            "Publikums-WLAN @V hat kein Passwort",
            "hosté: síť @V, bez hesla",
        ],
    ),
    (
        "company_iban_on_invoice",
        lambda r: (
            f"DE{_r(r, DG, 2)} {_r(r, DG, 4)} {_r(r, DG, 4)} {_r(r, DG, 4)} {_r(r, DG, 4)} {_r(r, DG, 2)}"
        ),
        [
            "our IBAN for the rental invoice (on every invoice anyway): @V",
            "Bankverbindung für die Gage: @V",
        ],
    ),
    (
        "color_and_gel_codes",
        lambda r: r.choice(["L", "R", "GAM"]) + str(r.randint(100, 999)),
        [
            "FOH wash gel @V, backlight L201",
            "Farbfilter für Akt 3: @V",
            "gel färg @V på sidoljusen",
        ],
    ),
    (
        "seat_map_ids",
        lambda r: "SM-%d-%s" % (r.randint(100, 999), _r(r, UP, 3)),
        [
            "new seat map @V (row K removed for the camera riser)",
            "Saalplan @V ohne Reihe K",
            "seat map @V for the touring version",
        ],
    ),
    (
        "dante_device_names",
        lambda r: "FOH-{}-{}".format(r.choice(["Rio", "Stage", "Amp", "Tio"]), _r(r, DG, 4)),
        [
            "Dante Controller shows @V as clock leader, fix it",
            "Gerät @V hat falsche Latenz",
            "route @V ch 1-16 to the recording mac",
        ],
    ),
    (
        "license_seat_count_note",
        lambda r: str(r.randint(2, 20)),
        [
            "we have @V seats of QLab Pro on subscription, renew in June",
            "Lizenz: @V Plätze Capture, Verlängerung im Sommer",
        ],
    ),
    (
        "base64_thumbnail_data",
        lambda r: "iVBORw0KGgoAAAANSUhEUgAA" + _r(r, B64, 60) + "=",
        [
            "set poster thumb: data:image/png;base64,@V",
            '"thumbnail": "@V"',
        ],
    ),
]


EXTRA_BENIGN = {
    "git_commit_sha": ["merged PR, HEAD now @V"],
    "show_file_uuid": ["| show | id |\n| Carmen tour | @V |", "crew app shift template id @V"],
    "sha256_checksum": ["@V  Hamlet_AV_Pack_v3.zip"],
    "ssh_public_key": ["authorized_keys on jump box:\n@V lx@tl01"],
    "placeholder_angle_bracket": ["rtmp://a.rtmp.youtube.com/live2/@V"],
    "placeholder_changeme": ["grandMA3 admin / @V (template, site TD sets real one)"],
    "env_var_reference": ["DATABASE_URL=postgres://tix_app:@V@db.internal:5432/tickets"],
    "vault_reference": ["heslo k NASu najdeš v @V"],
    "masked_secret": ["| service | key |\n| stripe | @V |"],
    "redacted_secret": [
        "DATABASE_URL=postgres://tix_app:@V@db.internal:5432/tickets",
        "Streamschlüssel: @V",
    ],
    "stripe_publishable_key": ["pk for the merch popup: @V"],
    "recaptcha_site_key": ["reCAPTCHA Website-Schlüssel (öffentlich): @V"],
    "ticket_order_reference": ["| order | seats | note |\n| @V | 2 | wheelchair |"],
    "console_serial_number": ["serienummer @V"],
    "mac_address": ["ether @V  (media-a eth1)"],
    "show_network_ip_plan": ["ssh show@@V", "Dante sek. síť @V"],
    "dmx_artnet_addressing": ["DMX Adresse Nebelmaschine @V"],
    "timecode_value": ["Zeitcode Pyro: @V", "@V"],
    "password_policy_text": ["lösenord: minst @V tecken, byt efter varje turné"],
    "revoked_stream_key_stated_revoked": [
        "revoked twitch-side too; @V no longer works, don't bother"
    ],
    "youtube_video_and_channel_id": ["channel @V (public handle @ourcotheatre)"],
    "rtmp_ingest_url_without_key": ["Ingest-Server: @V"],
    "trace_request_id": ["Požadavek @V selhal na platební bráně"],
    "docker_image_digest": ["docker pull ghcr.io/ourco/crew-rota@@V"],
    "slack_channel_and_user_id": ["#crew-calls = @V"],
    "aws_account_id_and_arn": ["AWS-Konto @V (Ticket-Exporte)"],
    "gpg_key_fingerprint": ["fingerprint @V"],
    "firmware_version_and_build": ["Eos v@V on all tablets"],
    "freight_tracking_number": ["sledování zásilky: @V"],
    "merch_ean_barcode": ["EAN plakát @V"],
    "guest_wifi_open_network": ["guest SSID @V, open"],
    "company_iban_on_invoice": ["IBAN (steht auf jeder Rechnung): @V"],
    "color_and_gel_codes": ["cyc: @V + L201"],
    "seat_map_ids": ["Mapa sálu @V"],
    "dante_device_names": ["@V clock sync error again"],
    "license_seat_count_note": ["@V licences of Capture, 3 free"],
}

MORE_BENIGN = [
    (
        "box_office_phone_number",
        lambda r: f"+49 30 {_r(r, DG, 4)} {_r(r, DG, 3)}",
        [
            "box office hotline @V (public on website)",
            "Kasse: @V",
            "call @V for comp list changes",
        ],
    ),
    (
        "wifi_ssid_without_password",
        lambda r: "Crew-" + _r(r, UP, 3) + "-" + _r(r, DG, 2),
        [
            "crew wifi SSID is @V, PM gives the pw in person",
            "WLAN-Name Technik: @V (Passwort beim TD)",
            "ssid @V",
        ],
    ),
    (
        "cue_list_numbers",
        lambda r: "%d.%d" % (r.randint(1, 600), r.randint(0, 9)),
        [
            "LX cue @V fires with SQ 45",
            "Cue @V ist zu früh, Regie will +2s",
            "ljuscue @V flyttad",
        ],
    ),
    (
        "venue_gps_coordinates",
        lambda r: (
            "%d.%06d, %d.%06d"
            % (r.randint(48, 59), r.randint(0, 999999), r.randint(10, 18), r.randint(0, 999999))
        ),
        [
            "load-in gate GPS @V",
            "Zufahrt LKW: @V",
        ],
    ),
    (
        "ticket_platform_public_event_url",
        lambda r: _r(r, DG, 10),
        [
            "public ticket link https://tickets.ourvenue.example/event/@V",
            "Eventbrite event id @V for the workshop",
            "předprodej: https://tickets.ourvenue.example/event/@V",
        ],
    ),
    (
        "hex_color_for_led_wall",
        lambda r: "#" + _r(r, HEX, 6),
        [
            "LED wall background @V per designer",
            "Farbe LED-Wand @V",
        ],
    ),
]


def corpus() -> list[dict]:
    rng = random.Random(SEED)
    rows = []
    for label, table in (("secret", SECRETS), ("benign", BENIGN + MORE_BENIGN)):
        for kind, gen, templates in table:
            for t in list(templates) + (EXTRA_BENIGN.get(kind, []) if label == "benign" else []):
                v = gen(rng)
                text = t(v, rng).replace("@V", v) if callable(t) else t.replace("@V", v)
                if v not in text:
                    v = json.dumps(v)[1:-1]
                rows.append({"label": label, "kind": kind, "text": text, "value": v})
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

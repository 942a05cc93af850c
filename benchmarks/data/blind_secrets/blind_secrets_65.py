# ruff: noqa: E501, UP031
"""Blind secret-detector corpus 65: university student developer club and hackathon team.

Brief: shared cloud credits and student accounts, Discord bots, Firebase and Supabase projects, GitHub Classroom and CI, Raspberry Pi and Arduino projects, campus Wi-Fi and LDAP logins, course APIs (Canvas, Moodle), free-tier ML and maps API keys, secrets pasted in chats and READMEs, and the student ids, course codes, commit hashes and project ids that look like secrets.

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Run: python blind_secrets_65.py [out.jsonl]

Kinds, secret: aws_secret_access_key, aws_academy_session_credentials, github_pat_classic, github_pat_fine_grained, github_oauth_token_gho, gitlab_pat, discord_bot_token, discord_webhook_url, discord_client_secret, telegram_bot_token, slack_bot_token, firebase_service_account_private_key, google_oauth_client_secret, google_api_key_server, supabase_service_role_jwt, supabase_db_password_uri, supabase_secret_key, openai_api_key, anthropic_api_key, huggingface_token, replicate_api_token, groq_api_key, mapbox_secret_token, openweathermap_appid, canvas_access_token, moodle_ws_token, campus_sso_password, eduroam_password, ldap_bind_password, hackathon_wifi_psk, raspberry_pi_ssh_password, arduino_sketch_wifi_password, mqtt_broker_password, blynk_auth_token, mongodb_atlas_uri_password, postgres_uri_password, azure_storage_account_key, azure_sas_signature, digitalocean_token, npm_token, pypi_token, dockerhub_pat, ngrok_authtoken, tailscale_auth_key, twilio_auth_token, sendgrid_api_key, stripe_live_secret_key, app_signing_secret, jupyter_token_url, ssh_private_key_openssh, url_embedded_credentials, prose_password_no_keyword, vercel_token, cloudflare_api_token, spotify_client_secret
Kinds, benign: student_id, course_code, git_commit_sha, short_commit_sha, uuid_identifier, firebase_web_config_public, firebase_app_id, supabase_anon_key_public, supabase_publishable_key, supabase_project_url, stripe_publishable_key, stripe_test_card_documented, mapbox_public_token, recaptcha_site_key, google_oauth_client_id, discord_snowflake_ids, discord_invite_url, discord_interactions_public_key, ssh_public_key, x509_certificate_pem, gpg_fingerprint, ssh_host_key_fingerprint, sha256_checksum, docker_image_digest, npm_integrity_hash, git_lfs_oid, placeholder_angle_brackets, placeholder_changeme, env_var_reference, ci_secrets_reference, redacted_masked_value, aws_documented_example_key, supabase_local_demo_key_documented, revoked_discord_token_said_revoked, revoked_github_pat_said_revoked, password_policy_text, bcrypt_hash_seed, raspberry_pi_serial, mac_address, aws_account_id, gcp_project_id_number, gcp_billing_account_id, github_classroom_invite_link, canvas_lms_ids, zoom_meeting_id, orcid_id, ml_model_dataset_slug, vault_path_reference, wifi_ssid_only, twilio_account_sid, arduino_chip_id, pi_default_credentials_advice, google_analytics_measurement_id, sentry_dsn_client_public, algolia_search_only_key, web_push_vapid_public_key, posthog_project_key, ip_address_host
"""

import base64
import json
import random
import string
import sys

SEED = 6565

ALNUM = string.ascii_letters + string.digits
LOWER_ALNUM = string.ascii_lowercase + string.digits
UPPER_ALNUM = string.ascii_uppercase + string.digits
HEX = "0123456789abcdef"
URLSAFE = ALNUM + "-_"
B32 = string.ascii_uppercase + "234567"

WORDS = [
    "pizza",
    "hackathon",
    "raspberry",
    "penguin",
    "coffee",
    "dragon",
    "sunset",
    "kebab",
    "mango",
    "arduino",
    "tigers",
    "rocket",
    "matcha",
    "ramen",
    "lighthouse",
    "library",
    "falcon",
    "quantum",
    "pickles",
    "banana",
]
SYMS = "!@#$%&*?"


def corpus() -> list[dict]:
    r = random.Random(SEED)

    def s(n, alpha=ALNUM):
        return "".join(r.choice(alpha) for _ in range(n))

    def hx(n):
        return s(n, HEX)

    def rb(n):
        return bytes(r.getrandbits(8) for _ in range(n))

    def b64(n):
        return base64.b64encode(rb(n)).decode()

    def b64url(data):
        return base64.urlsafe_b64encode(data).decode().rstrip("=")

    def human_pw():
        w = r.choice(WORDS)
        w = w.capitalize() if r.random() < 0.6 else w
        return w + str(r.randint(1, 2026)) + r.choice(SYMS)

    def gen_pw(n=16):
        return s(n, ALNUM + "!#%^*-_")

    def jwt(payload, siglen=43):
        h = b64url(json.dumps({"alg": "HS256", "typ": "JWT"}, separators=(",", ":")).encode())
        p = b64url(json.dumps(payload, separators=(",", ":")).encode())
        return h + "." + p + "." + s(siglen, URLSAFE)

    def supa_ref():
        return s(20, string.ascii_lowercase)

    def pem_body(nbytes):
        raw = base64.b64encode(rb(nbytes)).decode()
        return [raw[i : i + 64] for i in range(0, len(raw), 64)]

    def rsa_pem(sep="\n"):
        lines = [
            "-----BEGIN PRIVATE KEY-----",
            "MIIEv" + "QIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ"[:59],
        ]
        lines += pem_body(1170)
        lines.append("-----END PRIVATE KEY-----")
        return sep.join(lines) + sep

    def openssh_key():
        raw = (
            b"openssh-key-v1\x00\x00\x00\x00\x04none\x00\x00\x00\x04none\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x003\x00\x00\x00\x0bssh-ed25519\x00\x00\x00 "
            + rb(330)
        )
        enc = base64.b64encode(raw).decode()
        body = "\n".join(enc[i : i + 70] for i in range(0, len(enc), 70))
        return (
            "-----BEGIN OPENSSH PRIVATE KEY-----\n" + body + "\n-----END OPENSSH PRIVATE KEY-----"
        )

    def cert_pem():
        lines = ["-----BEGIN CERTIFICATE-----", "MIIDdzCCAl+gAwIBAgIU" + s(44, ALNUM + "+/")]
        lines += pem_body(720)
        lines.append("-----END CERTIFICATE-----")
        return "\n".join(lines)

    def snowflake():
        return str(r.randint(10**17, 1_400_000_000_000_000_000))

    def discord_token():
        uid = snowflake()
        return b64url(uid.encode()) + "." + s(6, URLSAFE) + "." + s(38, URLSAFE)

    def aws_akid(prefix="AKIA"):
        return prefix + s(16, B32)

    def aws_secret():
        return s(40, ALNUM + "/+")

    def google_key():
        return "AIza" + s(35, URLSAFE)

    def student_id():
        return (
            str(r.randint(2019, 2026) * 10000 + r.randint(0, 9999))
            if r.random() < 0.5
            else "s" + str(r.randint(1800000, 2599999))
        )

    rows = []

    def add(label, kind, gen, templates):
        for t in templates:
            v = gen()
            rows.append({"label": label, "kind": kind, "text": t.replace("{v}", v), "value": v})

    def addx(label, kind, gen, templates):
        # gen returns (value, mapping) for templates with extra random fields
        for t in templates:
            v, extra = gen()
            text = t.replace("{v}", v)
            for k, x in extra.items():
                text = text.replace("{" + k + "}", x)
            rows.append({"label": label, "kind": kind, "text": text, "value": v})

    S, B = "secret", "benign"

    # ------------------------------------------------------------------ secrets
    addx(
        S,
        "aws_secret_access_key",
        lambda: (aws_secret(), {"a": aws_akid()}),
        [
            "club AWS (the credits acct from the Educate thing): access key {a} secret {v} — pls dont commit it again",
            "[default]\naws_access_key_id = {a}\naws_secret_access_key = {v}\nregion = eu-west-2",
            "export AWS_ACCESS_KEY_ID={a}\nexport AWS_SECRET_ACCESS_KEY={v}",
            "| hackathon-s3 | {a} | {v} | owner: Priya |",
        ],
    )
    addx(
        S,
        "aws_academy_session_credentials",
        lambda: (b64(270).replace("\n", ""), {"a": aws_akid("ASIA"), "k": aws_secret()}),
        [
            "Learner Lab creds (expire in 4h, refresh from the AWS Details btn):\naws_access_key_id={a}\naws_secret_access_key={k}\naws_session_token={v}",
            "AWS_SESSION_TOKEN={v}",
            'pasted from vocareum: {"AccessKeyId": "{a}", "SecretAccessKey": "{k}", "SessionToken": "{v}"}',
        ],
    )
    add(
        S,
        "github_pat_classic",
        lambda: "ghp_" + s(36),
        [
            "PAT for the org bot (repo+workflow scopes): ghp_ token is {v}",
            "git clone https://{v}@github.com/uni-devclub/hackbot.git",
            "GH_TOKEN={v}",
            "mentor said use this one for the classroom autograder push: {v}",
        ],
    )
    add(
        S,
        "github_pat_fine_grained",
        lambda: "github_pat_" + s(22) + "_" + s(59),
        [
            "fine-grained token, only the 'infra' repo, expires feb: {v}",
            "echo {v} | gh auth login --with-token",
            "   token: {v}   # read:contents write:issues",
            "Token für das Club-Repo (nur lesen): {v}",
        ],
    )
    add(
        S,
        "github_oauth_token_gho",
        lambda: "gho_" + s(36),
        [
            "`gh auth token` on the lab mac printed {v} lol, its still logged in as me",
            "oauth_token: {v}\n    user: devclub-bot\n    git_protocol: https",
            "{v}",
        ],
    )
    add(
        S,
        "gitlab_pat",
        lambda: "glpat-" + s(20, URLSAFE),
        [
            "dept gitlab (gitlab.cs.uni) PAT for the runner: {v}",
            'curl --header "PRIVATE-TOKEN: {v}" https://gitlab.cs.example-uni.ac.uk/api/v4/projects',
            "GITLAB_TOKEN={v}",
        ],
    )
    add(
        S,
        "discord_bot_token",
        discord_token,
        [
            "bot token for ClubBot (reset it if it gets spammed again): {v}",
            "DISCORD_TOKEN={v}",
            "client.run('{v}')",
            "@here new token after the reset -> {v}",
            "token del bot de discord para el hackathon: {v}",
        ],
    )
    addx(
        S,
        "discord_webhook_url",
        lambda: (s(68, URLSAFE), {"i": snowflake()}),
        [
            "CI failure alerts post here: https://discord.com/api/webhooks/{i}/{v}",
            "WEBHOOK_URL=https://discordapp.com/api/webhooks/{i}/{v}",
            "curl -X POST -H 'Content-Type: application/json' -d '{\"content\":\"build ok\"}' https://discord.com/api/webhooks/{i}/{v}",
        ],
    )
    add(
        S,
        "discord_client_secret",
        lambda: s(32, URLSAFE),
        [
            "discord oauth2 for the login-with-discord page: client secret {v}",
            "DISCORD_CLIENT_SECRET={v}",
            "| oauth app | client secret | {v} |",
        ],
    )
    add(
        S,
        "telegram_bot_token",
        lambda: str(r.randint(5000000000, 7999999999)) + ":AA" + s(33, URLSAFE),
        [
            "telegram bot for the pi doorbell: {v}",
            "curl https://api.telegram.org/bot{v}/getUpdates",
            "TELEGRAM_BOT_TOKEN={v}",
            "botfather gave me {v} — use in notifier.py",
        ],
    )
    add(
        S,
        "slack_bot_token",
        lambda: (
            "xoxb-"
            + str(r.randint(10**11, 10**12 - 1))
            + "-"
            + str(r.randint(10**12, 10**13 - 1))
            + "-"
            + s(24)
        ),
        [
            "the research group slack bot (xoxb) {v}",
            "SLACK_BOT_TOKEN={v}",
            'slack_sdk.WebClient(token="{v}")',
        ],
    )
    addx(
        S,
        "firebase_service_account_private_key",
        lambda: (
            rsa_pem("\\n"),
            {
                "p": "hackmate-" + s(5, string.ascii_lowercase + string.digits),
                "i": hx(40),
                "c": str(r.randint(10**20, 10**21 - 1)),
            },
        ),
        [
            '{\n  "type": "service_account",\n  "project_id": "{p}",\n  "private_key_id": "{i}",\n  "private_key": "{v}",\n  "client_email": "firebase-adminsdk-x1y2z@{p}.iam.gserviceaccount.com",\n  "client_id": "{c}"\n}',
            'FIREBASE_PRIVATE_KEY="{v}"',
            "admin sdk key for {p} (only the private_key field, rest is in the repo): {v}",
        ],
    )
    add(
        S,
        "firebase_service_account_private_key",
        lambda: rsa_pem("\n"),
        [
            "serviceAccountKey.json private_key for the leaderboard backend, unescaped:\n{v}",
        ],
    )
    add(
        S,
        "google_oauth_client_secret",
        lambda: "GOCSPX-" + s(28, URLSAFE),
        [
            "google sign-in for the study planner: client secret {v}",
            "GOOGLE_CLIENT_SECRET={v}",
            '"client_secret":"{v}","redirect_uris":["http://localhost:3000/api/auth/callback/google"]',
        ],
    )
    add(
        S,
        "google_api_key_server",
        google_key,
        [
            "Gemini free tier key for the backend summariser (NOT the firebase one): {v}",
            "GEMINI_API_KEY={v}",
            'curl "https://generativelanguage.googleapis.com/v1beta/models/gemini-1.5-flash:generateContent?key={v}"',
            "server-side Maps Directions key, unrestricted (yes i know): {v}",
        ],
    )
    add(
        S,
        "supabase_service_role_jwt",
        lambda: jwt(
            {
                "iss": "supabase",
                "ref": supa_ref(),
                "role": "service_role",
                "iat": r.randint(1690000000, 1760000000),
                "exp": r.randint(2000000000, 2090000000),
            }
        ),
        [
            "supabase service_role (bypasses RLS, backend only!!): {v}",
            "SUPABASE_SERVICE_ROLE_KEY={v}",
            "createClient(url, '{v}')  // TODO move to edge fn",
            "service key do supabase pro script de seed: {v}",
        ],
    )
    addx(
        S,
        "supabase_db_password_uri",
        lambda: (gen_pw(18), {"r": supa_ref()}),
        [
            "DATABASE_URL=postgresql://postgres.{r}:{v}@aws-0-eu-central-1.pooler.supabase.com:6543/postgres",
            'psql "postgresql://postgres:{v}@db.{r}.supabase.co:5432/postgres"',
            "db pw for supabase project {r} is {v} (reset from dashboard if leaked)",
        ],
    )
    add(
        S,
        "supabase_secret_key",
        lambda: "sb_secret_" + s(31, URLSAFE),
        [
            "new style supabase secret key: {v}",
            "SUPABASE_SECRET_KEY={v}",
            "{v}",
        ],
    )
    add(
        S,
        "openai_api_key",
        lambda: "sk-proj-" + s(74, URLSAFE) + "T3BlbkFJ" + s(74, URLSAFE),
        [
            "openai key from the $25 student credits: {v}",
            "OPENAI_API_KEY={v}",
            'client = OpenAI(api_key="{v}")',
            '-H "Authorization: Bearer {v}"',
        ],
    )
    add(
        S,
        "anthropic_api_key",
        lambda: "sk-ant-api03-" + s(93, URLSAFE) + "AA",
        [
            "ANTHROPIC_API_KEY={v}",
            "claude key (hackathon sponsor credits, team 7): {v}",
            "x-api-key: {v}",
        ],
    )
    add(
        S,
        "huggingface_token",
        lambda: "hf_" + s(34, string.ascii_letters),
        [
            "HF write token for pushing the finetuned model: {v}",
            "huggingface-cli login --token {v}",
            "HF_TOKEN={v}",
        ],
    )
    add(
        S,
        "replicate_api_token",
        lambda: "r8_" + s(37),
        [
            "REPLICATE_API_TOKEN={v}",
            "replicate token (free credits, dont burn them): {v}",
            "token replicate pour la démo: {v}",
        ],
    )
    add(
        S,
        "groq_api_key",
        lambda: "gsk_" + s(52),
        [
            "groq free tier key: {v}",
            "GROQ_API_KEY={v}",
            'Groq(api_key="{v}")',
        ],
    )
    add(
        S,
        "mapbox_secret_token",
        lambda: "sk.eyJ1Ijoi" + s(20, ALNUM) + "IiwiYSI6I" + s(27, ALNUM) + "." + s(22, URLSAFE),
        [
            "mapbox SECRET token (downloads:read for the ios sdk): {v}",
            "MAPBOX_DOWNLOADS_TOKEN={v}",
            "machine api.mapbox.com login mapbox password {v}",
        ],
    )
    add(
        S,
        "openweathermap_appid",
        lambda: hx(32),
        [
            "openweathermap key for the weather station dashboard: {v}",
            "https://api.openweathermap.org/data/2.5/weather?q=Leeds&appid={v}&units=metric",
            "OWM_API_KEY={v}",
        ],
    )
    add(
        S,
        "canvas_access_token",
        lambda: str(r.randint(1000, 25000)) + "~" + s(64),
        [
            "canvas token (my account, for the deadline bot): {v}",
            'curl -H "Authorization: Bearer {v}" https://canvas.example.ac.uk/api/v1/courses',
            "CANVAS_API_TOKEN={v}",
            "Canvas-Zugangstoken für den Abgabe-Bot: {v}",
        ],
    )
    add(
        S,
        "moodle_ws_token",
        lambda: hx(32),
        [
            "moodle webservice token for the grade scraper: {v}",
            "https://moodle.example.edu/webservice/rest/server.php?wstoken={v}&wsfunction=core_course_get_contents&moodlewsrestformat=json",
            "MOODLE_TOKEN={v}",
        ],
    )
    add(
        S,
        "campus_sso_password",
        human_pw,
        [
            "my uni SSO is jdoe27 / {v} if you need to download the MATLAB licence",
            "login for the club's shared student account (devclub@): pw {v}",
            "UNI_PASSWORD={v}",
            "contraseña del campus virtual: {v}",
            "portal login: mkowalski / {v}",
        ],
    )
    add(
        S,
        "eduroam_password",
        human_pw,
        [
            "eduroam on the pi: identity=ab123@example.ac.uk password={v}",
            'network={\n    ssid="eduroam"\n    key_mgmt=WPA-EAP\n    eap=PEAP\n    identity="ab123@example.ac.uk"\n    password="{v}"\n    phase2="auth=MSCHAPV2"\n}',
            "eduroam passwort fürs Pi-Projekt: {v}",
        ],
    )
    add(
        S,
        "ldap_bind_password",
        lambda: gen_pw(14),
        [
            'ldapsearch -x -H ldaps://ldap.cs.example.edu -D "cn=devclub-svc,ou=services,dc=cs,dc=example,dc=edu" -w \'{v}\' "(uid=ab123)"',
            "LDAP_BIND_PASSWORD={v}",
            "bind dn cn=devclub-svc pw {v} (dept IT gave it for the room-booking bot)",
            '  bindPassword: "{v}"',
        ],
    )
    add(
        S,
        "hackathon_wifi_psk",
        human_pw,
        [
            "venue wifi HackNorth-Guest pw {v}",
            "WIFI: HackRoom / {v}",
            'wpa_passphrase="{v}"',
            "Le mot de passe du wifi de la salle: {v}",
        ],
    )
    add(
        S,
        "raspberry_pi_ssh_password",
        human_pw,
        [
            "ssh pi@10.42.0.17 pw {v}",
            "the greenhouse pi: user admin, pw {v}, port 2222",
            "sshpass -p '{v}' ssh admin@rpi-greenhouse.local",
        ],
    )
    add(
        S,
        "arduino_sketch_wifi_password",
        human_pw,
        [
            'const char* ssid = "DevClub-IoT";\nconst char* password = "{v}";',
            '#define WIFI_PASS "{v}"',
            "esp32 sensor node joins DevClub-IoT with {v}",
        ],
    )
    add(
        S,
        "mqtt_broker_password",
        lambda: gen_pw(12),
        [
            "mosquitto_pub -h broker.devclub.example -u sensors -P '{v}' -t lab/temp -m 21.5",
            "MQTT_URL=mqtt://sensors:{v}@broker.devclub.example:1883",
            "mqtt creds: sensors / {v}",
        ],
    )
    add(
        S,
        "blynk_auth_token",
        lambda: s(32, URLSAFE),
        [
            '#define BLYNK_AUTH_TOKEN "{v}"',
            "blynk device token for the plant waterer: {v}",
            'Blynk.begin("{v}", ssid, pass);',
        ],
    )
    addx(
        S,
        "mongodb_atlas_uri_password",
        lambda: (gen_pw(14).replace("#", "x").replace("^", "y"), {"c": s(5, LOWER_ALNUM)}),
        [
            "MONGO_URI=mongodb+srv://hackteam:{v}@cluster0.{c}.mongodb.net/?retryWrites=true&w=majority",
            "atlas free cluster: user hackteam pw {v}",
            "mongosh \"mongodb+srv://cluster0.{c}.mongodb.net/\" --username hackteam --password '{v}'",
        ],
    )
    add(
        S,
        "postgres_uri_password",
        lambda: gen_pw(16).replace("#", "q").replace("^", "z"),
        [
            "DATABASE_URL=postgres://club:{v}@db.devclub.example.edu:5432/events",
            "PGPASSWORD='{v}' psql -h db.devclub.example.edu -U club events",
            "db:\n  user: club\n  password: {v}\n  host: localhost",
            "postgres superuser on the club VPS: {v}",
        ],
    )
    addx(
        S,
        "azure_storage_account_key",
        lambda: (b64(64), {"n": "hackstor" + s(6, string.ascii_lowercase + string.digits)}),
        [
            "AZURE_STORAGE_CONNECTION_STRING=DefaultEndpointsProtocol=https;AccountName={n};AccountKey={v};EndpointSuffix=core.windows.net",
            "az storage blob upload --account-name {n} --account-key {v} -c uploads -f demo.mp4",
            "key1 for {n} (azure for students sub): {v}",
        ],
    )
    add(
        S,
        "azure_sas_signature",
        lambda: (
            base64.b64encode(rb(32))
            .decode()
            .replace("+", "%2B")
            .replace("/", "%2F")
            .replace("=", "%3D")
        ),
        [
            "SAS url for the dataset (write perms, expires end of term): https://hackstore01.blob.core.windows.net/data?sv=2022-11-02&ss=b&srt=co&sp=rwdlac&se=2027-06-30T00:00:00Z&st=2026-12-01T00:00:00Z&spr=https&sig={v}",
            "sig={v}",
            'azcopy copy ./frames "https://hackstore01.blob.core.windows.net/frames?sp=racwl&st=2026-12-05&se=2027-01-05&spr=https&sv=2022-11-02&sr=c&sig={v}" --recursive',
        ],
    )
    add(
        S,
        "digitalocean_token",
        lambda: "dop_v1_" + hx(64),
        [
            "DO token (github student pack credits): {v}",
            "doctl auth init -t {v}",
            "DIGITALOCEAN_TOKEN={v}",
        ],
    )
    add(
        S,
        "npm_token",
        lambda: "npm_" + s(36),
        [
            "//registry.npmjs.org/:_authToken={v}",
            "NPM_TOKEN={v}",
            "npm automation token for publishing @devclub/ui: {v}",
        ],
    )
    add(
        S,
        "pypi_token",
        lambda: "pypi-AgEIcHlwaS5vcmc" + s(140, URLSAFE),
        [
            "[pypi]\n  username = __token__\n  password = {v}",
            "twine upload -u __token__ -p {v} dist/*",
            "pypi token scoped to campus-utils: {v}",
        ],
    )
    add(
        S,
        "dockerhub_pat",
        lambda: "dckr_pat_" + s(27, URLSAFE),
        [
            "echo {v} | docker login -u devclub --password-stdin",
            "DOCKERHUB_TOKEN={v}",
            "docker hub PAT (read/write) {v}",
        ],
    )
    add(
        S,
        "ngrok_authtoken",
        lambda: "2" + s(26) + "_" + s(21),
        [
            "ngrok config add-authtoken {v}",
            "ngrok token for the demo tunnel: {v}",
            "authtoken: {v}",
        ],
    )
    add(
        S,
        "tailscale_auth_key",
        lambda: "tskey-auth-k" + s(16) + "CNTRL-" + s(33),
        [
            "sudo tailscale up --authkey={v}",
            "reusable tailscale key for the pi fleet: {v}",
            "TS_AUTHKEY={v}",
        ],
    )
    addx(
        S,
        "twilio_auth_token",
        lambda: (hx(32), {"a": "AC" + hx(32)}),
        [
            "twilio trial: SID {a} auth token {v}",
            "TWILIO_ACCOUNT_SID={a}\nTWILIO_AUTH_TOKEN={v}",
            "curl -u {a}:{v} https://api.twilio.com/2010-04-01/Accounts/{a}/Messages.json",
        ],
    )
    add(
        S,
        "sendgrid_api_key",
        lambda: "SG." + s(22, URLSAFE) + "." + s(43, URLSAFE),
        [
            "SENDGRID_API_KEY={v}",
            "sendgrid key for the signup confirmation mails: {v}",
            "Authorization: Bearer {v}",
        ],
    )
    add(
        S,
        "stripe_live_secret_key",
        lambda: "sk_live_51" + s(97),
        [
            "stripe LIVE secret for the ticket sales (club bank acct!!): {v}",
            "STRIPE_SECRET_KEY={v}",
            'stripe.api_key = "{v}"',
        ],
    )
    add(
        S,
        "app_signing_secret",
        lambda: r.choice([hx(64), b64(48), gen_pw(32)]),
        [
            "JWT_SECRET={v}",
            "app.config['SECRET_KEY'] = '{v}'",
            "NEXTAUTH_SECRET={v}",
            "session signing secret for prod api (rotate = everyone logged out): {v}",
        ],
    )
    add(
        S,
        "jupyter_token_url",
        lambda: hx(48),
        [
            "jupyter on the GPU box, open this: http://10.0.3.21:8888/lab?token={v}",
            "    http://127.0.0.1:8888/tree?token={v}",
            "c.ServerApp.token = '{v}'",
        ],
    )
    add(
        S,
        "ssh_private_key_openssh",
        openssh_key,
        [
            "deploy key for the club VPS (github actions uses it):\n{v}",
            "{v}",
            "pls dont judge, here is id_ed25519 for the pi so u can push:\n```\n{v}\n```",
        ],
    )
    add(
        S,
        "url_embedded_credentials",
        lambda: (
            human_pw()
            .replace("#", "1")
            .replace("?", "2")
            .replace("%", "3")
            .replace("@", "4")
            .replace("&", "5")
        ),
        [
            "git remote set-url origin https://alexm:{v}@git.devclub.example.edu/club/site.git",
            "grafana: https://admin:{v}@grafana.devclub.example.edu/",
            "redis://default:{v}@redis-14221.c1.eu-west-1.cloud.redislabs.example:14221",
            "ftp://club:{v}@ftp.students.example.edu/public_html",
        ],
    )
    add(
        S,
        "prose_password_no_keyword",
        human_pw,
        [
            "for the shared proton account it's club.exec@proton.me and {v}",
            "figma team login is our gmail + {v}",
            "told Sam the lab kiosk unlock is {v}, dont share outside exec",
            "Notion for the committee: devclub.committee@gmail.com\n{v}",
            "het wachtwoord van het clubaccount is {v}",
        ],
    )
    add(
        S,
        "vercel_token",
        lambda: s(24),
        [
            "VERCEL_TOKEN={v}",
            "vercel deploy --prod --token {v}",
            "vercel token for CI: {v}",
        ],
    )
    add(
        S,
        "cloudflare_api_token",
        lambda: s(40, URLSAFE),
        [
            "CLOUDFLARE_API_TOKEN={v}",
            "cf token w/ DNS edit on devclub.dev: {v}",
            'curl -H "Authorization: Bearer {v}" https://api.cloudflare.com/client/v4/user/tokens/verify',
        ],
    )
    addx(
        S,
        "spotify_client_secret",
        lambda: (hx(32), {"c": hx(32)}),
        [
            "spotify app for the jam bot: client id {c} / secret {v}",
            "SPOTIPY_CLIENT_ID={c}\nSPOTIPY_CLIENT_SECRET={v}",
            "| spotify | {c} | {v} |",
        ],
    )

    # ------------------------------------------------------------------ benign
    add(
        B,
        "student_id",
        student_id,
        [
            "Priya's student id is {v}, add her to the club roster",
            "| {v} | Alex M | BSc CS Y2 | paid |",
            "sid={v} (needed for room booking)",
            "Matrikelnummer: {v}",
        ],
    )
    add(
        B,
        "course_code",
        lambda: (
            r.choice(["COMP", "CSC", "INFR", "ELEC", "MATH", "CS"]) + str(r.randint(1000, 4999))
        ),
        [
            "hackathon clashes with the {v} deadline, move it a week",
            "course {v} uses GitHub Classroom now",
            "{v}: Software Engineering Group Project",
            "sem1 modules: {v}",
        ],
    )
    add(
        B,
        "git_commit_sha",
        lambda: hx(40),
        [
            "broke at {v}, revert that",
            "git checkout {v}",
            "last good deploy was {v}",
            "prod is pinned to {v} until after demo day",
        ],
    )
    add(
        B,
        "short_commit_sha",
        lambda: hx(7),
        [
            "fixed in {v}",
            "git cherry-pick {v}",
            "the autograder runs on {v}, rebuild",
            "merge {v} into main after review",
        ],
    )
    add(
        B,
        "uuid_identifier",
        lambda: "{}-{}-4{}-{}{}-{}".format(hx(8), hx(4), hx(3), r.choice("89ab"), hx(3), hx(12)),
        [
            "event id in the booking system: {v}",
            'room_id = "{v}"',
            "devpost submission {v}",
            "request_id {v} failed with 500",
        ],
    )
    addx(
        B,
        "firebase_web_config_public",
        lambda: (google_key(), {"p": "hackmate-" + s(5, LOWER_ALNUM)}),
        [
            'const firebaseConfig = {\n  apiKey: "{v}",\n  authDomain: "{p}.firebaseapp.com",\n  projectId: "{p}",\n  storageBucket: "{p}.appspot.com"\n};',
            "firebase web apiKey {v} is fine to ship in the client, security comes from the rules",
            "NEXT_PUBLIC_FIREBASE_API_KEY={v}",
            'frontend config (public) apiKey: "{v}"',
        ],
    )
    add(
        B,
        "firebase_app_id",
        lambda: "1:" + str(r.randint(10**11, 10**12 - 1)) + ":web:" + hx(22),
        [
            'appId: "{v}"',
            "firebase app id {v}",
            "NEXT_PUBLIC_FIREBASE_APP_ID={v}",
        ],
    )
    add(
        B,
        "supabase_anon_key_public",
        lambda: jwt(
            {
                "iss": "supabase",
                "ref": supa_ref(),
                "role": "anon",
                "iat": r.randint(1690000000, 1760000000),
                "exp": r.randint(2000000000, 2090000000),
            }
        ),
        [
            "anon key (public, RLS is on): {v}",
            "NEXT_PUBLIC_SUPABASE_ANON_KEY={v}",
            "createClient(SUPABASE_URL, '{v}') // anon, safe in browser",
            "chave anon pública do supabase: {v}",
        ],
    )
    add(
        B,
        "supabase_publishable_key",
        lambda: "sb_publishable_" + s(31, URLSAFE),
        [
            "publishable key for the web app: {v}",
            "NEXT_PUBLIC_SUPABASE_PUBLISHABLE_KEY={v}",
            "{v}  <- publishable, ok in frontend",
        ],
    )
    add(
        B,
        "supabase_project_url",
        lambda: "https://" + supa_ref() + ".supabase.co",
        [
            "SUPABASE_URL={v}",
            "project url {v}",
            "the REST endpoint is {v}/rest/v1/",
        ],
    )
    add(
        B,
        "stripe_publishable_key",
        lambda: "pk_test_51" + s(97),
        [
            "publishable test key for the checkout widget: {v}",
            "NEXT_PUBLIC_STRIPE_PUBLISHABLE_KEY={v}",
            "Stripe('{v}')",
        ],
    )
    add(
        B,
        "stripe_test_card_documented",
        lambda: "4242 4242 4242 4242",
        [
            "testing checkout use card {v}, any future date, any CVC",
            "stripe test card: {v}",
        ],
    )
    add(
        B,
        "mapbox_public_token",
        lambda: "pk.eyJ1Ijoi" + s(20) + "IiwiYSI6I" + s(27) + "." + s(22, URLSAFE),
        [
            "mapbox public token (url-restricted to devclub.dev): {v}",
            "mapboxgl.accessToken = '{v}';",
            "NEXT_PUBLIC_MAPBOX_TOKEN={v}",
        ],
    )
    add(
        B,
        "recaptcha_site_key",
        lambda: "6L" + s(38, URLSAFE),
        [
            "recaptcha site key (goes in the html): {v}",
            '<div class="g-recaptcha" data-sitekey="{v}"></div>',
            "RECAPTCHA_SITE_KEY={v}",
        ],
    )
    add(
        B,
        "google_oauth_client_id",
        lambda: (
            str(r.randint(10**11, 10**12 - 1))
            + "-"
            + s(32, LOWER_ALNUM)
            + ".apps.googleusercontent.com"
        ),
        [
            "GOOGLE_CLIENT_ID={v}",
            "client id for google sign-in: {v}",
            '<meta name="google-signin-client_id" content="{v}">',
        ],
    )
    add(
        B,
        "discord_snowflake_ids",
        snowflake,
        [
            "GUILD_ID={v}",
            "post announcements in channel {v}",
            "application id {v} (ClubBot)",
            "role id for @mentor is {v}",
        ],
    )
    add(
        B,
        "discord_invite_url",
        lambda: (
            "https://discord.com/oauth2/authorize?client_id="
            + snowflake()
            + "&permissions="
            + str(r.choice([8, 2048, 274877991936, 277025770560]))
            + "&scope=bot%20applications.commands"
        ),
        [
            "add the bot to your server: {v}",
            "invite link {v}",
            "{v}",
        ],
    )
    add(
        B,
        "discord_interactions_public_key",
        lambda: hx(64),
        [
            "DISCORD_PUBLIC_KEY={v}  # ed25519 verify key for interactions endpoint",
            "public key from dev portal (for signature check): {v}",
            'verify_key = VerifyKey(bytes.fromhex("{v}"))',
        ],
    )
    add(
        B,
        "ssh_public_key",
        lambda: (
            "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI"
            + s(43, ALNUM + "+/")
            + " "
            + r.choice(["alex@thinkpad", "pi@greenhouse", "ci@devclub"])
        ),
        [
            "add my key to the VPS authorized_keys pls: {v}",
            "{v}",
            "deploy key (public half) registered on the repo: {v}",
            "öffentlicher Schlüssel für den Pi: {v}",
        ],
    )
    add(
        B,
        "x509_certificate_pem",
        cert_pem,
        [
            "campus CA cert for eduroam (radius server cert chain), save as ca.pem:\n{v}",
            "{v}",
            "ca_cert for the mqtt broker TLS:\n{v}",
        ],
    )
    add(
        B,
        "gpg_fingerprint",
        lambda: " ".join(s(4, "0123456789ABCDEF") for _ in range(10)),
        [
            "sign release tags with key {v}",
            "my gpg fp: {v}",
            "Key fingerprint = {v}",
        ],
    )
    add(
        B,
        "ssh_host_key_fingerprint",
        lambda: "SHA256:" + b64(32).rstrip("="),
        [
            "if ssh asks, the VPS host key is ED25519 key fingerprint is {v}",
            "pi host key {v} — if it changed someone reflashed the card",
            "{v} (root@devclub-vps)",
        ],
    )
    add(
        B,
        "sha256_checksum",
        lambda: hx(64),
        [
            "sha256 of raspios-bookworm-arm64-lite.img.xz: {v}",
            "{v}  dataset_v2.tar.gz",
            "check the weights file: sha256sum model.pt should be {v}",
        ],
    )
    add(
        B,
        "docker_image_digest",
        lambda: "sha256:" + hx(64),
        [
            "image: ghcr.io/uni-devclub/api@{v}",
            "pinned python base to {v}",
            "Digest: {v}",
        ],
    )
    add(
        B,
        "npm_integrity_hash",
        lambda: "sha512-" + b64(64),
        [
            '"integrity": "{v}"',
            "lockfile conflict on integrity {v}, just regen",
            "npm ERR! Integrity check failed: wanted {v}",
        ],
    )
    add(
        B,
        "git_lfs_oid",
        lambda: hx(64),
        [
            "version https://git-lfs.github.com/spec/v1\noid sha256:{v}\nsize " + "48211093",
            "lfs pointer for demo.mp4 oid {v}",
            "git lfs ls-files --long shows {v} * weights/yolo.pt",
        ],
    )
    add(
        B,
        "placeholder_angle_brackets",
        lambda: r.choice(
            ["<your-token>", "<DISCORD_BOT_TOKEN>", "<paste key here>", "<api-key>", "<password>"]
        ),
        [
            "README: set DISCORD_TOKEN={v} in .env before running",
            'curl -H "Authorization: Bearer {v}" https://api.devclub.dev/v1/events',
            "OPENAI_API_KEY={v}",
            "git clone https://{v}@github.com/uni-devclub/hackbot.git",
        ],
    )
    add(
        B,
        "placeholder_changeme",
        lambda: r.choice(
            [
                "changeme",
                "xxxxxxxx",
                "password123-CHANGE-ME",
                "TODO",
                "xxxx-xxxx-xxxx",
                "hunter2 (example)",
            ]
        ),
        [
            ".env.example: DB_PASSWORD={v}",
            "POSTGRES_PASSWORD={v}   # change before deploying",
            "  password: {v}",
            'const char* password = "{v}"; // fill in locally',
        ],
    )
    add(
        B,
        "env_var_reference",
        lambda: r.choice(
            [
                "${SUPABASE_SERVICE_ROLE_KEY}",
                "$DISCORD_TOKEN",
                "${OPENAI_API_KEY}",
                "process.env.STRIPE_SECRET_KEY",
                'os.environ["CANVAS_API_TOKEN"]',
                "%GH_TOKEN%",
            ]
        ),
        [
            "token = {v}",
            "DATABASE_URL=postgres://club:${DB_PASSWORD}@db:5432/events and key {v}",
            "the bot reads {v} at startup, never hardcode",
            "docker run -e TOKEN={v} ghcr.io/uni-devclub/bot",
        ],
    )
    add(
        B,
        "ci_secrets_reference",
        lambda: (
            "${{ secrets."
            + r.choice(
                [
                    "DISCORD_TOKEN",
                    "FIREBASE_SERVICE_ACCOUNT",
                    "SUPABASE_ACCESS_TOKEN",
                    "DOCKERHUB_TOKEN",
                    "VERCEL_TOKEN",
                ]
            )
            + " }}"
        ),
        [
            "      env:\n        TOKEN: {v}",
            "in the workflow use {v}, added it under repo Settings > Secrets",
            "with:\n  firebaseServiceAccount: '{v}'",
        ],
    )
    add(
        B,
        "redacted_masked_value",
        lambda: r.choice(
            [
                "sk-proj-" + "*" * 20 + s(4),
                "ghp_" + "•" * 12 + s(4),
                "[REDACTED]",
                "*" * 12,
                "AKIA" + "X" * 12 + s(4, B32),
                "xoxb-…" + s(4),
            ]
        ),
        [
            "the leaked key was {v}, already rotated",
            "log shows Authorization: Bearer {v}",
            "gitguardian alert for {v} in hackbot/config.py",
            "OPENAI_API_KEY={v}",
        ],
    )
    add(
        B,
        "aws_documented_example_key",
        lambda: r.choice(["AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"]),
        [
            "the workshop slides use {v} (that's the AWS docs example)",
            "aws_access_key_id = {v}  # example from docs, replace",
            "moto tests: fake creds {v}",
        ],
    )
    add(
        B,
        "supabase_local_demo_key_documented",
        lambda: (
            "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZS1kZW1vIiwicm9sZSI6ImFub24iLCJleHAiOjE5ODM4MTI5OTZ9.CRXP1A7WOeoJeXxjNni43kdQwgnWNReilDMblYTn_I0"
        ),
        [
            "`supabase start` prints the local anon key, it's the same for everyone: {v}",
            "local dev only (supabase-demo): SUPABASE_ANON_KEY={v}",
        ],
    )
    add(
        B,
        "revoked_discord_token_said_revoked",
        discord_token,
        [
            "old bot token {v} — REVOKED after it leaked in #general, new one is in the vault",
            "discord auto-reset this one when it hit github: {v} (dead)",
            "token invalidé (régénéré hier): {v}",
        ],
    )
    add(
        B,
        "revoked_github_pat_said_revoked",
        lambda: "ghp_" + s(36),
        [
            "deleted the PAT {v} from settings, it was in the README for 2 days",
            "revoked: {v} (secret scanning caught it)",
            "token {v} ya está revocado, no sirve",
        ],
    )
    add(
        B,
        "password_policy_text",
        lambda: str(r.randint(10, 16)) + " characters",
        [
            "uni IT policy: SSO passwords must be at least {v}, no reuse of last 5",
            "club rule: shared account passwords are min {v} and live in Bitwarden, never in discord",
            "password requirements for the signup form: {v}, one number, one symbol",
            "Regel: Passwörter mindestens {v}, nie im Chat posten",
        ],
    )
    add(
        B,
        "bcrypt_hash_seed",
        lambda: "$2b$12$" + s(53, ALNUM + "./"),
        [
            "seed.sql: insert into users (email, password_hash) values ('demo@devclub.dev', '{v}');",
            "password_hash: {v}",
            "bcrypt output looks like {v}, store that not the plaintext",
        ],
    )
    add(
        B,
        "raspberry_pi_serial",
        lambda: "10000000" + hx(8),
        [
            "Serial\t\t: {v}",
            "pi #3 (serial {v}) is the one with the broken HDMI",
            "| greenhouse-pi | {v} | Pi 4 4GB |",
        ],
    )
    add(
        B,
        "mac_address",
        lambda: ":".join(hx(2) for _ in range(6)),
        [
            "register the pi's MAC {v} with campus IT for the IoT vlan",
            "esp32 mac {v}",
            "dhcp reservation {v} -> 10.42.0.17",
        ],
    )
    add(
        B,
        "aws_account_id",
        lambda: str(r.randint(10**11, 10**12 - 1)),
        [
            "club AWS account id {v}",
            "arn:aws:iam::{v}:role/GitHubActionsDeploy",
            "console: https://{v}.signin.aws.amazon.com/console",
        ],
    )
    add(
        B,
        "gcp_project_id_number",
        lambda: "hackmate-" + str(r.randint(100000, 999999)),
        [
            "gcloud config set project {v}",
            "GCP project {v} has the $300 trial credits",
            '"projectId": "{v}"',
        ],
    )
    add(
        B,
        "gcp_billing_account_id",
        lambda: "-".join(s(6, "0123456789ABCDEF") for _ in range(3)),
        [
            "education credits billing account {v}",
            "gcloud billing projects link hackmate --billing-account={v}",
            "billing acct: {v}",
        ],
    )
    add(
        B,
        "github_classroom_invite_link",
        lambda: "https://classroom.github.com/a/" + s(8, URLSAFE),
        [
            "assignment link for the workshop: {v}",
            "{v}",
            "accept {v} then clone your repo",
        ],
    )
    add(
        B,
        "canvas_lms_ids",
        lambda: str(r.randint(10000, 99999)),
        [
            "https://canvas.example.ac.uk/courses/{v}/assignments/412233",
            "course_id={v}",
            "the hackathon page is canvas course {v}",
        ],
    )
    add(
        B,
        "zoom_meeting_id",
        lambda: "%03d %04d %04d" % (r.randint(800, 999), r.randint(0, 9999), r.randint(0, 9999)),
        [
            "weekly sync zoom ID {v} (waiting room on, host admits)",
            "Meeting ID: {v}",
            "ID de reunión: {v} (sin código, sala de espera activada)",
        ],
    )
    add(
        B,
        "orcid_id",
        lambda: "-".join("%04d" % r.randint(0, 9999) for _ in range(4)),
        [
            "supervisor ORCID {v}",
            "https://orcid.org/{v}",
            "| Dr. Okafor | {v} | advisor |",
        ],
    )
    add(
        B,
        "ml_model_dataset_slug",
        lambda: (
            r.choice(["distilbert/", "openai/", "sentence-transformers/", "uni-devclub/"])
            + r.choice(["whisper-", "bert-", "all-MiniLM-", "campus-"])
            + s(6, LOWER_ALNUM)
        ),
        [
            'from_pretrained("{v}")',
            "model on HF: {v}",
            "kaggle datasets download -d {v}",
        ],
    )
    add(
        B,
        "vault_path_reference",
        lambda: (
            r.choice(["op://DevClub/", "bw://devclub/", "vault kv get secret/devclub/"])
            + r.choice(["discord-bot", "supabase", "aws-credits", "stripe"])
            + "/"
            + s(6, LOWER_ALNUM)
        ),
        [
            "the token lives at {v}, ask an exec for access",
            'OPENAI_API_KEY="{v}"  # resolved by op run',
            "see {v} for the db password",
        ],
    )
    add(
        B,
        "wifi_ssid_only",
        lambda: r.choice(["DevClub-IoT-", "HackNorth-Guest-", "LabNet-"]) + s(4, UPPER_ALNUM),
        [
            "pi should join {v}, password is with the lab tech",
            'ssid="{v}"',
            "eduroam is blocked for the esp32 so we use {v}",
        ],
    )
    add(
        B,
        "twilio_account_sid",
        lambda: "AC" + hx(32),
        [
            "Twilio account SID {v} (auth token is in the vault)",
            "TWILIO_ACCOUNT_SID={v}",
            "sid {v} is just the account id, not secret",
        ],
    )
    add(
        B,
        "arduino_chip_id",
        lambda: hx(12).upper(),
        [
            "ESP.getEfuseMac() -> {v}",
            "board {v} is the one on the weather station",
            "chip id {v}",
        ],
    )
    add(
        B,
        "pi_default_credentials_advice",
        lambda: "raspberry",
        [
            "old images defaulted to pi / {v}, new imager makes you set a user — do that",
            "workshop slide: never leave the default password '{v}' on a networked pi",
        ],
    )
    add(
        B,
        "google_analytics_measurement_id",
        lambda: "G-" + s(10, UPPER_ALNUM),
        [
            "gtag('config', '{v}');",
            "GA id for the club site {v}",
            "NEXT_PUBLIC_GA_ID={v}",
        ],
    )
    add(
        B,
        "sentry_dsn_client_public",
        lambda: (
            "https://"
            + hx(32)
            + "@o"
            + str(r.randint(100000, 4999999))
            + ".ingest.sentry.io/"
            + str(r.randint(1000000, 4999999))
        ),
        [
            'Sentry.init({ dsn: "{v}" }) // DSN is fine in the frontend bundle',
            "SENTRY_DSN={v}",
            "frontend dsn {v}",
        ],
    )
    add(
        B,
        "algolia_search_only_key",
        lambda: hx(32),
        [
            "algolia search-only key for the docs search box (public): {v}",
            "algoliasearch('" + "Q8XK2M1LZP" + "', '{v}') // search-only",
            "NEXT_PUBLIC_ALGOLIA_SEARCH_KEY={v}",
        ],
    )
    add(
        B,
        "web_push_vapid_public_key",
        lambda: "B" + s(86, URLSAFE),
        [
            "applicationServerKey: urlBase64ToUint8Array('{v}')",
            "VAPID public key {v} (private one is on the server only)",
            "NEXT_PUBLIC_VAPID_PUBLIC_KEY={v}",
        ],
    )
    add(
        B,
        "posthog_project_key",
        lambda: "phc_" + s(43),
        [
            "posthog.init('{v}', { api_host: 'https://eu.posthog.com' })",
            "posthog project api key (write-only, public): {v}",
        ],
    )
    add(
        B,
        "ip_address_host",
        lambda: "10.%d.%d.%d" % (r.randint(0, 255), r.randint(0, 255), r.randint(2, 254)),
        [
            "GPU box is at {v} on the lab vlan",
            "ssh admin@{v} -p 2222   (password in bitwarden)",
            "| pi-doorbell | {v} | static |",
        ],
    )
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

# ruff: noqa: E501, SIM115
"""Blind secret-detector corpus 91: home-care nursing provider.

Brief: notes kept by the team (and its AI coding agents) of a home-care nursing
provider running care scheduling and visit apps, electronic health records,
medication dispensers, staff phones and key safes at clients' homes, payroll and
telephony. Rows are prose notes, handover lines, chat messages, commands, config
and .env lines, YAML, JSON, URLs, tables and log lines in English, Finnish,
Estonian and Romanian. "secret" rows hold a live credential; "benign" rows hold
look-alikes a careful reader would keep (ids, serials, hashes, public keys,
placeholders, masked or revoked values, references, the field's own codes).

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Run: python blind_secrets_91.py [out.jsonl]

Kinds, secret: aws_secret_access_key, github_pat, github_fine_grained_pat,
gitlab_pat, slack_webhook_url, slack_bot_token, teams_webhook_url,
stripe_secret_key, stripe_webhook_secret, twilio_auth_token, sendgrid_api_key,
postgres_url, sqlserver_conn_string, redis_url, private_key_pem,
azure_storage_conn_string, azure_ad_client_secret, google_maps_api_key,
jwt_access_token, openai_api_key, anthropic_api_key, npm_token,
docker_hub_pat, vault_token, key_safe_code, door_entry_code, sim_pin_puk,
phone_unlock_pin, dispenser_admin_pin, ehr_password, wifi_psk,
payroll_password, sip_password, voicemail_pin, recovery_codes, totp_secret,
smtp_password, url_basic_auth, ldap_bind_password, smartcard_pin,
care_app_shared_login, azure_devops_pat, datadog_api_key, fcm_server_key,
telegram_bot_token, alarm_code, mailgun_api_key, paytrail_merchant_secret,
smart_lock_admin_password.

Kinds, benign: aws_documented_example, twilio_account_sid,
stripe_publishable_key, recaptcha_site_key, firebase_web_api_key,
git_commit_sha, sha256_digest, container_image_digest, visit_uuid,
azure_tenant_id, oauth_client_id, key_safe_model_serial, dispenser_serial,
imei, iccid, phone_number, iban, fi_business_id, ee_registry_code, ro_cui,
placeholder, env_var_reference, ci_secret_reference, vault_path,
masked_value, revoked_key, ssh_public_key, cert_fingerprint,
pem_certificate, public_key_pem, ticket_reference, booking_reference,
build_version, atc_code, icd10_code, kanta_oid, fhir_resource_id,
medication_batch, employee_number, cost_center, password_policy_text,
documented_test_key, jwt_example, mac_address, ip_address, sip_extension,
aws_arn, s3_bucket, trace_id, slack_channel_id, k8s_secret_ref,
gpg_fingerprint, fi_reference_number, invoice_number, vehicle_registration,
professional_reg_number, bcrypt_hash, npm_integrity.
"""

import base64
import json
import random
import string
import sys

SEED = 9191
rnd = random.Random(SEED)

UP = string.ascii_uppercase + string.digits
AN = string.ascii_letters + string.digits
LO = string.ascii_lowercase + string.digits
HX = "0123456789abcdef"
B64 = AN + "+/"
URL = AN + "-_"
B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"


def s(chars, n):
    return "".join(rnd.choice(chars) for _ in range(n))


def digits(n):
    return "".join(rnd.choice(string.digits) for _ in range(n))


def guid():
    return f"{s(HX, 8)}-{s(HX, 4)}-4{s(HX, 3)}-{rnd.choice('89ab')}{s(HX, 3)}-{s(HX, 12)}"


# --- generators -------------------------------------------------------------


def aws_secret():
    return s(AN + "+/", 40)


def akia():
    return "AKIA" + s(string.ascii_uppercase + "234567", 16)


def ghp():
    return "ghp_" + s(AN, 36)


def gh_fine():
    return "github_pat_11" + s(UP, 20) + "_" + s(AN, 59)


def glpat():
    return "glpat-" + s(URL, 20)


def slack_hook():
    return f"https://hooks.slack.com/services/T0{s(UP, 8)}/B0{s(UP, 9)}/{s(AN, 24)}"


def xoxb():
    return f"xoxb-{digits(12)}-{digits(13)}-{s(AN, 24)}"


def teams_hook_new():
    return (
        f"https://prod-{rnd.randint(10, 250)}.westeurope.logic.azure.com:443/workflows/{s(HX, 32)}"
        f"/triggers/manual/paths/invoke?api-version=2016-06-01&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig={s(URL, 43)}"
    )


def teams_hook_old(tenant):
    return (
        f"https://{tenant}.webhook.office.com/webhookb2/{guid()}@{guid()}/IncomingWebhook/"
        f"{s(HX, 32)}/{guid()}/V2{s(URL, 43)}"
    )


def sk_live(n=24):
    return "sk_live_" + s(AN, n)


def rk_live():
    return "rk_live_51" + s(AN, 97)


def whsec():
    return "whsec_" + s(AN, 32)


def sg():
    return "SG." + s(URL, 22) + "." + s(URL, 43)


def azure_key():
    return s(B64, 86) + "=="


def azure_cs():
    return s(AN, 3) + rnd.choice(string.digits) + "Q~" + s(AN + "_.~-", 34)


def aiza():
    return "AIza" + s(URL, 35)


def b64url(obj):
    return (
        base64.urlsafe_b64encode(json.dumps(obj, separators=(",", ":")).encode())
        .decode()
        .rstrip("=")
    )


def jwt(claims):
    return (
        b64url({"alg": "RS256", "typ": "JWT", "kid": s(AN, 12)})
        + "."
        + b64url(claims)
        + "."
        + s(URL, 342)
    )


def openai_proj():
    return "sk-proj-" + s(URL, 74) + "T3BlbkFJ" + s(URL, 74)


def openai_legacy():
    return "sk-" + s(AN, 20) + "T3BlbkFJ" + s(AN, 20)


def ant():
    return "sk-ant-api03-" + s(URL, 93) + "AA"


def npm():
    return "npm_" + s(AN, 36)


def dckr():
    return "dckr_pat_" + s(URL, 27)


def hvs():
    return "hvs." + s(AN, 24)


def ado():
    return s("abcdefghijklmnopqrstuvwxyz234567", 52)


def fcm():
    return "AAAA" + s(URL, 7) + ":APA91b" + s(URL, 134)


def tg():
    return f"{rnd.randint(5000000000, 7999999999)}:AA" + s(URL, 33)


def pem(kind, head):
    body = head + s(B64, 64 * 6 - len(head))
    lines = [body[i : i + 64] for i in range(0, len(body), 64)] + [s(B64, 40) + "=="]
    return f"-----BEGIN {kind}-----\n" + "\n".join(lines) + f"\n-----END {kind}-----"


def b32(n=32):
    return s(B32, n)


PASSWORDS = [
    "Kotihoito2026!",
    "Syksy#Lumi88",
    "Koduode_2025",
    "Ingrijire!Acasa7",
    "Mustikka-Kissa-44",
    "Tallinn#Kevad19",
    "Bucuresti_2026$",
    "Hoitaja!Kesa24",
    "Vanaema.Kook91",
    "Sauna&Pulla2027",
    "Pegasos-Vantaa3",
    "Marjatta1962!",
    "Kiisu_Miisu_12",
    "Parola.Noua2026",
    "Lumiukko#77",
    "Pirkko-Hoito!5",
    "Tartu2024Sygis",
    "Ciresica#31",
    "Kanelipulla!9",
    "Hilkka_Espoo21",
    "Dispenser#2026",
    "Palkka!Marras11",
    "Kuuseke.Vihm8",
    "Sibiu!Iarna2025",
    "Voikukka_Tie14",
    "Aino&Eino1958",
    "Haapsalu!Meri6",
    "Mamaia#Vara22",
    "Kevatuuli-2026",
    "Helmi.Koira!3",
    "Suvi2026Lepp!",
    "Brasov_Munte44",
    "Kaamos#Pimea1",
    "Rukkilill!2025",
    "Timisoara.7Parc",
    "Pullapitko99!",
    "Jouluaatto#24",
    "Kohvipaus_15",
    "Cozonac!Mama6",
    "Lapinlahti-1985",
]
_pw = iter(PASSWORDS)


def pw():
    return next(_pw)


def pin(n=4):
    p = digits(n)
    while len(set(p)) < 2:
        p = digits(n)
    return p


ROWS = []


def add(label, kind, pairs):
    for text, value in pairs:
        ROWS.append(
            {"label": label, "kind": kind, "text": text.replace("{v}", value), "value": value}
        )


def secrets():
    S = "secret"
    add(
        S,
        "aws_secret_access_key",
        [
            (
                f"aws configure for the dispenser telemetry export: key id {akia()}, secret {{v}}, region eu-north-1",
                aws_secret(),
            ),
            (f"AWS_ACCESS_KEY_ID={akia()}\nAWS_SECRET_ACCESS_KEY={{v}}", aws_secret()),
            (
                "[homecare-backup]\naws_access_key_id = "
                + akia()
                + "\naws_secret_access_key = {v}",
                aws_secret(),
            ),
            (
                "S3 varmuuskopioiden avain (ei saa laittaa Teamsiin!): salainen avain {v}",
                aws_secret(),
            ),
        ],
    )
    add(
        S,
        "github_pat",
        [
            ("git clone https://{v}@github.com/kotihoito-oy/visit-app.git", ghp()),
            ("Agent memory: GH token for the rota-sync repo is {v} (expires Feb).", ghp()),
            ("GITHUB_TOKEN={v}", ghp()),
            ("Tokenul GitHub pentru pipeline-ul de salarizare: {v} - nu-l pune în README", ghp()),
        ],
    )
    add(
        S,
        "github_fine_grained_pat",
        [
            ("gh auth login --with-token <<< {v}", gh_fine()),
            ("Fine-grained PAT for ehr-adapter (contents:read, issues:write): {v}", gh_fine()),
            ("export GH_PAT='{v}'", gh_fine()),
        ],
    )
    add(
        S,
        "gitlab_pat",
        [
            ("Estonian team's GitLab: token {v} (scope api, owner Kadri)", glpat()),
            (
                'curl --header "PRIVATE-TOKEN: {v}" https://gitlab.koduode.ee/api/v4/projects',
                glpat(),
            ),
            ("GitLab token CI-lle: {v} – vaihda kun Mikko lähtee", glpat()),
            ("gitlab:\n  url: https://gitlab.koduode.ee\n  token: {v}", glpat()),
        ],
    )
    add(
        S,
        "slack_webhook_url",
        [
            ("Missed-visit alerts go to #kotihoito-valvonta via {v}", slack_hook()),
            ("SLACK_WEBHOOK_URL={v}", slack_hook()),
            (
                "curl -X POST -H 'Content-type: application/json' --data '{\"text\":\"Evondos offline\"}' {v}",
                slack_hook(),
            ),
            ("webhook pentru alertele de dozator: {v}", slack_hook()),
        ],
    )
    add(
        S,
        "slack_bot_token",
        [
            ("rota-bot token: {v}", xoxb()),
            ('SLACK_BOT_TOKEN="{v}"', xoxb()),
            ("Botti joka postaa vuorolistan maanantaisin käyttää tokenia {v}", xoxb()),
        ],
    )
    add(
        S,
        "teams_webhook_url",
        [
            ("Teams workflow for 'Lääkeannostelija hälyttää' channel: {v}", teams_hook_new()),
            ('teams:\n  incident_webhook: "{v}"', teams_hook_new()),
            ("Vana Teamsi webhook (töötab veel!): {v}", teams_hook_old("koduodeou")),
            (
                "Invoke-RestMethod -Method Post -Uri '{v}' -Body $json",
                teams_hook_old("kotihoitooy"),
            ),
        ],
    )
    add(
        S,
        "stripe_secret_key",
        [
            ("STRIPE_SECRET_KEY={v}", sk_live(24)),
            ("Private-pay clients are billed through Stripe; live secret key: {v}", sk_live(99)),
            ('stripe.api_key = "{v}"  # TODO move to vault', rk_live()),
            ("Cheia Stripe live pentru facturarea clienților privați: {v}", sk_live(24)),
        ],
    )
    add(
        S,
        "stripe_webhook_secret",
        [
            ("Signing secret for the /billing/stripe endpoint: {v}", whsec()),
            ("STRIPE_WEBHOOK_SECRET={v}", whsec()),
            ("stripe listen -> prod endpoint secret {v} (copied from dashboard)", whsec()),
        ],
    )
    add(
        S,
        "twilio_auth_token",
        [
            (f"Twilio SMS reminders: account AC{s(HX, 32)}, auth token {{v}}", s(HX, 32)),
            ("TWILIO_AUTH_TOKEN={v}", s(HX, 32)),
            (f"client = Client('AC{s(HX, 32)}', '{{v}}')", s(HX, 32)),
            ("Twilio auth token (tekstiviestimuistutukset omaisille): {v}", s(HX, 32)),
        ],
    )
    add(
        S,
        "sendgrid_api_key",
        [
            ("SENDGRID_API_KEY={v}", sg()),
            ("Visit reports are emailed with SendGrid, key {v}", sg()),
            ("sendgrid:\n  api_key: {v}\n  from: raportit@kotihoito.fi", sg()),
        ],
    )
    add(
        S,
        "postgres_url",
        [
            (
                "DATABASE_URL={v}",
                f"postgres://rota_app:{pw()}@db-prod.kotihoito.internal:5432/rota",
            ),
            (
                "psql \"{v}\" -c 'select count(*) from visits'",
                f"postgresql://analyst:{pw()}@10.20.4.15:5432/ehr_mirror?sslmode=require",
            ),
            (
                "Andmebaasi ühendus (visiitide ajalugu): {v}",
                f"postgres://koduode:{pw()}@pg.koduode.ee/visiidid",
            ),
            (
                "SQLALCHEMY_DATABASE_URI = '{v}'",
                f"postgresql+psycopg2://payroll:{pw()}@payroll-db:5432/palkka",
            ),
        ],
    )
    add(
        S,
        "sqlserver_conn_string",
        [
            (
                '"ConnectionStrings": { "Hilkka": "{v}" }',
                f"Server=tcp:hilkka-sql.database.windows.net,1433;Initial Catalog=hilkka;User ID=hilkka_svc;Password={pw()};Encrypt=True;",
            ),
            (
                "EHR export job connection: {v}",
                f"Data Source=SQL02\\EHR;Initial Catalog=Asiakastiedot;User Id=export;Password={pw()};",
            ),
            (
                "Șir de conexiune pentru raportarea CNAS: {v}",
                f"Server=10.1.0.8;Database=Pacienti;User Id=sa;Password={pw()};TrustServerCertificate=True",
            ),
        ],
    )
    add(
        S,
        "redis_url",
        [
            ("REDIS_URL={v}", f"redis://:{s(AN, 32)}@redis.rota.internal:6379/0"),
            (
                "Session cache for the visit app: {v}",
                f"rediss://default:{s(AN, 28)}@cache-ee.koduode.ee:6380",
            ),
            ("celery broker = {v}", f"redis://worker:{pw()}@10.20.4.30:6379/2"),
        ],
    )
    add(
        S,
        "private_key_pem",
        [
            (
                "Deploy key for the mobile build box:\n{v}",
                pem(
                    "OPENSSH PRIVATE KEY",
                    "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZWQyNTUxOQAAACA",
                ),
            ),
            (
                "Kanta-palvelun TLS-asiakasvarmenteen yksityinen avain (palvelin kanta-gw01):\n{v}",
                pem("RSA PRIVATE KEY", "MIIEowIBAAKCAQEA"),
            ),
            (
                "X-tee turvaserveri allkirjavõti, ajutiselt siin:\n{v}",
                pem("EC PRIVATE KEY", "MHcCAQEEI"),
            ),
            (
                '"private_key": "{v}"',
                pem("PRIVATE KEY", "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC").replace(
                    "\n", "\\n"
                ),
            ),
        ],
    )
    add(
        S,
        "azure_storage_conn_string",
        [
            (
                'AZURE_STORAGE_CONNECTION_STRING="{v}"',
                f"DefaultEndpointsProtocol=https;AccountName=kotihoitodocs;AccountKey={azure_key()};EndpointSuffix=core.windows.net",
            ),
            (
                "Visit photos (wound care) land in blob storage: {v}",
                f"DefaultEndpointsProtocol=https;AccountName=woundphotos;AccountKey={azure_key()};EndpointSuffix=core.windows.net",
            ),
            ("storage account key1 for payslips container: {v}", azure_key()),
        ],
    )
    add(
        S,
        "azure_ad_client_secret",
        [
            ("App registration 'rota-graph-sync' client secret: {v}", azure_cs()),
            ("AZURE_CLIENT_SECRET={v}", azure_cs()),
            ("Intune Graph API salaisuus (voimassa 2027-06 asti): {v}", azure_cs()),
            ('"clientSecret": "{v}",', azure_cs()),
        ],
    )
    add(
        S,
        "google_maps_api_key",
        [
            ("Route optimisation for nurses' driving lists uses Maps key {v}", aiza()),
            ("GOOGLE_MAPS_SERVER_KEY={v}", aiza()),
            (
                "https://maps.googleapis.com/maps/api/distancematrix/json?origins=Tartu&destinations=Elva&key={v}",
                aiza(),
            ),
            ("Cheie Google Directions (server, nerestricționată!): {v}", aiza()),
        ],
    )
    add(
        S,
        "jwt_access_token",
        [
            (
                "curl -H 'Authorization: Bearer {v}' https://api.nursebuddy.example/v2/visits",
                jwt({"sub": "svc-rota", "tenant": "kotihoito-vantaa", "exp": 1796000000}),
            ),
            (
                "Token from the EHR sandbox login that still works in prod: {v}",
                jwt({"sub": "hoitaja.virtanen", "roles": ["nurse"], "exp": 1795000000}),
            ),
            (
                "AUTH_TOKEN={v}",
                jwt({"sub": "payroll-export", "scope": "palk.read", "exp": 1797000000}),
            ),
        ],
    )
    add(
        S,
        "openai_api_key",
        [
            ("OPENAI_API_KEY={v}", openai_proj()),
            ("Visit-note summariser uses {v} (project 'handover-ai')", openai_proj()),
            ("old key still in the dictation script: openai.api_key = '{v}'", openai_legacy()),
        ],
    )
    add(
        S,
        "anthropic_api_key",
        [
            ("ANTHROPIC_API_KEY={v}", ant()),
            ("Key for the coding agent working on the rota repo: {v}", ant()),
            ("Cheia pentru asistentul care traduce notele de vizită: {v}", ant()),
        ],
    )
    add(
        S,
        "npm_token",
        [
            ("//registry.npmjs.org/:_authToken={v}", npm()),
            ("NPM_TOKEN={v} (publishes @kotihoito/ui-kit)", npm()),
            ("npm token visit-appi privaatpakettide jaoks: {v}", npm()),
        ],
    )
    add(
        S,
        "docker_hub_pat",
        [
            ("echo {v} | docker login -u kotihoitoci --password-stdin", dckr()),
            ("DOCKERHUB_TOKEN={v}", dckr()),
            ("Docker Hub access token for the dispenser-gateway image: {v}", dckr()),
        ],
    )
    add(
        S,
        "vault_token",
        [
            ("VAULT_TOKEN={v} vault kv get secret/homecare/ehr", hvs()),
            ("root token after the unseal on Tuesday: {v}", hvs()),
            ("Vaultin token agentille (ttl 768h): {v}", hvs()),
        ],
    )
    add(
        S,
        "key_safe_code",
        [
            ("Key safe by the back door, code {v}. Turn the wheel back to 0000 after.", pin()),
            (
                "Avainsäilö ulko-oven vieressä, koodi {v} – muista sekoittaa numerot käynnin jälkeen.",
                pin(),
            ),
            ("Võtmekapp garaaži seinal, kood {v}, võti punasel võtmehoidjal.", pin()),
            ("Cutia cu chei e lângă cutia poștală, codul {v}.", pin()),
            ("| Virtanen A. | Kivikatu 4 B 12 | avainsäilö | {v} |", pin()),
        ],
    )
    add(
        S,
        "door_entry_code",
        [
            ("Stairwell door code for the Hakaniemi client: {v}#", pin()),
            ("Rappukäytävän ovikoodi {v} (toimii klo 7–21)", pin(5)),
            ("Trepikoja uksekood: {v}, kell ei tööta.", pin()),
            ("Interfon: apăsați {v} apoi cheia.", pin()),
        ],
    )
    add(
        S,
        "sim_pin_puk",
        [
            ("New work phone SIM for Liisa: PIN {v}, PUK in the envelope", pin()),
            ("SIM PUK-koodi (puhelin 14, lukittu): {v}", digits(8)),
            ("Töötelefoni SIM-kaardi PIN1 on {v}", pin()),
            ("PIN card SIM telefon de serviciu tura de noapte: {v}", pin()),
        ],
    )
    add(
        S,
        "phone_unlock_pin",
        [
            ("Shared night-shift phone (Samsung A35) unlock PIN: {v}", pin(6)),
            ("Yövuoron puhelimen näytön lukitus {v}", pin(6)),
            ("Öise valve telefoni ekraanilukk: {v}", pin(6)),
            ("Codul de deblocare al telefonului de gardă: {v}", pin(6)),
        ],
    )
    add(
        S,
        "dispenser_admin_pin",
        [
            ("Evondos nurse PIN for re-filling rolls at client 1042: {v}", pin(6)),
            ("Lääkeannostelijan huolto-PIN {v}, älä kerro asiakkaalle tai omaisille", pin(4)),
            ("Ravimidosaatori hoolduskood: {v}", pin(6)),
            ("dispenser.admin_pin={v}", pin(6)),
        ],
    )
    add(
        S,
        "ehr_password",
        [
            ("Pegasos login for the temp nurse: user SIJ_TEMP2, password {v}", pw()),
            ("Potilastietojärjestelmän salasana (yhteinen vuorotunnus): {v}", pw()),
            ("Tervise infosüsteemi testikasutaja parool: {v}", pw()),
            ("Parola pentru fișa electronică a pacientului, cont asistentă: {v}", pw()),
        ],
    )
    add(
        S,
        "wifi_psk",
        [
            ("Office wifi KOTIHOITO-STAFF, password {v}", "kotihoito-vantaa-2026"),
            ("Asiakkaan reititin (Evondos käyttää tätä): WPA2-avain {v}", s(UP, 10)),
            ("WiFi kontoris: Koduode_Personal / {v}", pw()),
            ('network={\n  ssid="Dozator-Gateway"\n  psk="{v}"\n}', pw()),
        ],
    )
    add(
        S,
        "payroll_password",
        [
            ("Netvisor payroll admin: palkat@kotihoito.fi / {v}", pw()),
            ("Palgaarvestuse süsteemi parool (Merit Palk, raamatupidaja): {v}", pw()),
            ("Parola pentru aplicația de salarizare: {v} (cont HR)", pw()),
        ],
    )
    add(
        S,
        "sip_password",
        [
            ("SIP trunk registration: user 358931234567, secret {v}", s(AN, 16)),
            ("[ext201]\ntype=friend\nsecret={v}\nhost=dynamic", s(AN, 12)),
            ("Vaihteen SIP-tunnus 3001, salasana {v}", pw()),
            ("3CX extensia 115 (dispecerat): parola SIP {v}", s(AN, 14)),
        ],
    )
    add(
        S,
        "voicemail_pin",
        [
            ("On-call voicemail PIN: {v}", pin()),
            ("Päivystysnumeron vastaajan PIN on {v}", pin()),
            ("Kõnepostkasti PIN: {v}", pin()),
        ],
    )
    add(
        S,
        "recovery_codes",
        [
            (
                "Backup codes for admin@kotihoito.fi Microsoft account: {v}",
                " ".join(f"{digits(4)}-{digits(4)}" for _ in range(5)),
            ),
            (
                "GitHub recovery codes (org owner):\n{v}",
                "\n".join(f"{s(HX, 5)}-{s(HX, 5)}" for _ in range(4)),
            ),
            ("Netvisorin varakoodi: {v}", f"{s(UP, 4)}-{s(UP, 4)}-{s(UP, 4)}"),
        ],
    )
    add(
        S,
        "totp_secret",
        [
            ("otpauth://totp/Nursebuddy:admin?secret={v}&issuer=Nursebuddy", b32()),
            (
                "2FA seed for the shared payroll admin account: {v}",
                " ".join(b32(4) for _ in range(8)),
            ),
            ("TOTP salaisuus yhteiselle vaihdetunnukselle: {v}", b32(16)),
        ],
    )
    add(
        S,
        "smtp_password",
        [
            ("SMTP_PASSWORD={v}", pw()),
            (
                'smtp:\n  host: smtp.office365.com\n  user: noreply@kotihoito.fi\n  password: "{v}"',
                pw(),
            ),
            (
                "Serverul SMTP pentru rapoartele de vizită: user rapoarte@ingrijire.ro parola {v}",
                pw(),
            ),
        ],
    )
    add(
        S,
        "url_basic_auth",
        [
            (
                "Dispenser gateway status page: {v}",
                f"https://admin:{pw()}@gw.evondos-hub.kotihoito.internal/status",
            ),
            ("curl {v}/api/v1/alarms", f"http://service:{s(AN, 14)}@10.30.0.21:8080"),
            (
                "Prometheus scrape target: {v}",
                f"https://metrics:{s(AN, 20)}@rota.koduode.ee/metrics",
            ),
        ],
    )
    add(
        S,
        "ldap_bind_password",
        [
            (
                "LDAP_BIND_DN=cn=rota-sync,ou=svc,dc=kotihoito,dc=local\nLDAP_BIND_PASSWORD={v}",
                pw(),
            ),
            ("AD-palvelutili svc_hilkka, salasana {v}", pw()),
            ("ldapsearch -x -D 'svc-ehr@koduode.local' -w '{v}' -H ldaps://dc01", pw()),
        ],
    )
    add(
        S,
        "smartcard_pin",
        [
            ("Ammattikortin PIN1 (Kanta-allekirjoitus, lähihoitaja Niemi): {v}", pin()),
            ("ID-kaardi PIN2 digiallkirja jaoks (õde Tamm): {v}", pin(5)),
            ("Healthcare professional card PIN for the signing workstation: {v}", pin(6)),
        ],
    )
    add(
        S,
        "care_app_shared_login",
        [
            ("Nursebuddy shared tablet login: vantaa.ilta / {v}", pw()),
            ("Hilkka-mobiilin yhteistunnus tiimi3, salasana {v}", pw()),
            ("Aplicația de programare vizite - cont comun echipa Sibiu, parola {v}", pw()),
            ("Visiidiäpi ühine kasutaja: tartu_ohtu, salasõna {v}", pw()),
        ],
    )
    add(
        S,
        "azure_devops_pat",
        [
            ("AZURE_DEVOPS_EXT_PAT={v}", ado()),
            (
                "git remote set-url origin https://build:{v}@dev.azure.com/kotihoito/rota/_git/rota",
                ado(),
            ),
            ("ADO PAT for the release pipeline (Code R/W): {v}", ado()),
        ],
    )
    add(
        S,
        "datadog_api_key",
        [
            ("DD_API_KEY={v}", s(HX, 32)),
            ("datadog agent on the SIP gateways, api_key: {v}", s(HX, 32)),
            ("Datadogi rakenduse võti (app key): {v}", s(HX, 40)),
        ],
    )
    add(
        S,
        "fcm_server_key",
        [
            ("FCM legacy server key for visit-app push: {v}", fcm()),
            ("Authorization: key={v}", fcm()),
            ("Push-ilmoitusten palvelinavain: {v}", fcm()),
        ],
    )
    add(
        S,
        "telegram_bot_token",
        [
            ("Night alarm bot token: {v}", tg()),
            (
                "curl https://api.telegram.org/bot{v}/sendMessage -d chat_id=-100123 -d text=alarm",
                tg(),
            ),
            ("Botul de Telegram pentru alertele de dozator: {v}", tg()),
        ],
    )
    add(
        S,
        "alarm_code",
        [
            ("Office burglar alarm disarm code: {v}", pin()),
            ("Toimiston hälytyskoodi {v} – ensimmäinen sisään tuleva purkaa.", pin()),
            ("Kliendi kodu valvesüsteemi kood {v}, kui alarm käivitub helista G4S-i.", pin()),
            ("Codul alarmei la sediul din Cluj: {v}", pin()),
        ],
    )
    add(
        S,
        "mailgun_api_key",
        [
            ("MAILGUN_API_KEY=key-{v}", s(HX, 32)),
            ("mailgun private key for invoices: key-{v}", s(HX, 32)),
        ],
    )
    add(
        S,
        "paytrail_merchant_secret",
        [
            ("Paytrail live: merchant 695874, secret key {v}", s(AN, 40)),
            ("PAYTRAIL_SECRET={v}", s(AN, 40)),
            ("Paytrailin tuotantoavain asiakaslaskutukseen: {v}", s(AN, 40)),
        ],
    )
    add(
        S,
        "smart_lock_admin_password",
        [
            ("Phoniro admin portal for the digital locks: admin.vantaa / {v}", pw()),
            ("Älylukkojen hallintaportaalin salasana {v}", pw()),
            ("Nutilukkude halduskonto parool: {v}", pw()),
        ],
    )


def benign():
    B = "benign"
    add(
        B,
        "aws_documented_example",
        [
            ("From the AWS docs, example key id {v} - do not use.", "AKIAIOSFODNN7EXAMPLE"),
            (
                "aws_secret_access_key = {v}  # sample from the boto3 docs",
                "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            ),
            (
                "Test fixture uses AWS_ACCESS_KEY_ID={v} (documented placeholder)",
                "AKIAIOSFODNN7EXAMPLE",
            ),
        ],
    )
    add(
        B,
        "twilio_account_sid",
        [
            ("Twilio account SID for SMS reminders: {v}", "AC" + s(HX, 32)),
            ("Messaging service id {v} (not secret, shown in console)", "MG" + s(HX, 32)),
            ("TWILIO_ACCOUNT_SID={v}", "AC" + s(HX, 32)),
        ],
    )
    add(
        B,
        "stripe_publishable_key",
        [
            ("Checkout page uses publishable key {v}", "pk_live_" + s(AN, 24)),
            ("STRIPE_PUBLISHABLE_KEY={v}", "pk_live_51" + s(AN, 97)),
            ("Cheia publică Stripe pentru formularul de plată: {v}", "pk_live_" + s(AN, 24)),
        ],
    )
    add(
        B,
        "recaptcha_site_key",
        [
            ("reCAPTCHA site key on the contact form: {v}", "6L" + s(URL, 38)),
            ('<div class="g-recaptcha" data-sitekey="{v}"></div>', "6L" + s(URL, 38)),
            ("Lomakkeen reCAPTCHA-sivustoavain (julkinen): {v}", "6L" + s(URL, 38)),
        ],
    )
    add(
        B,
        "firebase_web_api_key",
        [
            (
                'firebaseConfig = { apiKey: "{v}", projectId: "visit-app-prod" } (public web config, restricted by referrer)',
                aiza(),
            ),
            ("Firebase web apiKey is public by design, it is in the bundle anyway: {v}", aiza()),
        ],
    )
    add(
        B,
        "git_commit_sha",
        [
            ("Hotfix for the double-booked visits is in commit {v}", s(HX, 40)),
            ("Rollback rota-service to {v} if the night run fails.", s(HX, 40)),
            ("Paranduse commit: {v}", s(HX, 7)),
            ("Versiunea din producție: {v}", s(HX, 12)),
        ],
    )
    add(
        B,
        "sha256_digest",
        [
            ("visit-app-4.12.3.apk sha256: {v}", s(HX, 64)),
            ("sha256sum payroll_export_2026-11.csv\n{v}  payroll_export_2026-11.csv", s(HX, 64)),
            ("Annostelijan firmware-tiedoston tarkiste {v}", s(HX, 64)),
        ],
    )
    add(
        B,
        "container_image_digest",
        [
            ("image: registry.kotihoito.fi/rota@{v}", "sha256:" + s(HX, 64)),
            ("Pinned the dispenser-gateway image to {v}", "sha256:" + s(HX, 64)),
            ("docker pull ghcr.io/koduode/visiit@{v}", "sha256:" + s(HX, 64)),
        ],
    )
    add(
        B,
        "visit_uuid",
        [
            ("Visit {v} was marked done twice; check the sync log.", guid()),
            ("Käynti-id {v} puuttuu palkkaraportista", guid()),
            ("Visiidi ID {v} – hooldaja ei jõudnud kohale, märkisin tühistatuks.", guid()),
            ('{"visitId": "{v}", "status": "MISSED"}', guid()),
        ],
    )
    add(
        B,
        "azure_tenant_id",
        [
            ("AZURE_TENANT_ID={v}", guid()),
            ("Tenant id for kotihoito.fi is {v}", guid()),
            ("Entra ID tenant (Koduõde OÜ): {v}", guid()),
        ],
    )
    add(
        B,
        "oauth_client_id",
        [
            ("AZURE_CLIENT_ID={v}", guid()),
            (
                "Google OAuth client id for staff SSO: {v}",
                f"{digits(12)}-{s(LO, 32)}.apps.googleusercontent.com",
            ),
            ("client_id={v}&response_type=code", guid()),
        ],
    )
    add(
        B,
        "key_safe_model_serial",
        [
            (
                "Key safe model Supra C500 Pro, serial {v}, installed 2026-03-02",
                "C500-" + digits(7),
            ),
            ("Avainsäilö KS-{v} asennettu asiakkaalle (koodi Hilkassa, ei tässä)", digits(4)),
            ("Võtmekapi seerianumber {v}", "MLK5401-" + digits(6)),
        ],
    )
    add(
        B,
        "dispenser_serial",
        [
            ("Evondos unit {v} reports low battery.", "E300-" + digits(6)),
            ("Lääkeannostelija, sarjanumero {v}, siirretty asiakkaalle 2211", "EV" + digits(8)),
            ("Dozator nr. serie {v} returnat la furnizor.", "MD-" + s(UP, 4) + "-" + digits(5)),
        ],
    )
    add(
        B,
        "imei",
        [
            ("Lost phone IMEI {v} reported to Elisa", "35" + digits(13)),
            ("Puhelin 12: IMEI {v}", "35" + digits(13)),
            ("Telefoni IMEI: {v}, lisatud MDM-i", "86" + digits(13)),
        ],
    )
    add(
        B,
        "iccid",
        [
            ("New SIM ICCID {v} for night phone", "89358" + digits(14)),
            ("SIM-kaardi ICCID {v}", "89372" + digits(14)),
            ("ICCID cartelă {v} (Orange)", "89400" + digits(14)),
        ],
    )
    add(
        B,
        "phone_number",
        [
            ("On-call nurse number: {v}", "+358 40 " + digits(3) + " " + digits(4)),
            ("Valvetelefon: {v}", "+372 5" + digits(3) + " " + digits(4)),
            ("Dispecerat: {v}", "+40 7" + digits(2) + " " + digits(3) + " " + digits(3)),
        ],
    )
    add(
        B,
        "iban",
        [
            (
                "Payroll account {v} (Nordea)",
                "FI"
                + digits(2)
                + " "
                + digits(4)
                + " "
                + digits(4)
                + " "
                + digits(4)
                + " "
                + digits(2),
            ),
            ("Arveldusarve: {v}", "EE" + digits(18)),
            ("Cont IBAN pentru plata facturilor: {v}", "RO" + digits(2) + "BTRL" + s(UP, 16)),
        ],
    )
    add(
        B,
        "fi_business_id",
        [
            ("Kotihoito Oy, Y-tunnus {v}", digits(7) + "-" + digits(1)),
            ("Business ID on the Paytrail contract: {v}", digits(7) + "-" + digits(1)),
        ],
    )
    add(
        B,
        "ee_registry_code",
        [
            ("Koduõde OÜ registrikood {v}", digits(8)),
            ("Estonian subsidiary, registry code {v}", digits(8)),
        ],
    )
    add(
        B,
        "ro_cui",
        [
            ("CUI societate: {v}", "RO" + digits(8)),
            ("Romanian entity VAT id {v}", "RO" + digits(8)),
        ],
    )
    add(
        B,
        "placeholder",
        [
            ("STRIPE_SECRET_KEY={v}", "<your-stripe-secret-key>"),
            ('password: "{v}"  # fill in locally', "CHANGE_ME_IN_ENV"),
            ("Avainsäilön koodi: {v} (katso Hilkasta)", "XXXX"),
            ("SIP secret = {v}", "REPLACE_WITH_TRUNK_SECRET"),
        ],
    )
    add(
        B,
        "env_var_reference",
        [
            ("DATABASE_URL=postgres://rota_app:{v}@db-prod:5432/rota", "${DB_PASSWORD}"),
            (
                "client = Client(os.environ['TWILIO_ACCOUNT_SID'], {v})",
                "os.environ['TWILIO_AUTH_TOKEN']",
            ),
            ("smtp.password: {v}", "%SMTP_PASSWORD%"),
        ],
    )
    add(
        B,
        "ci_secret_reference",
        [
            ("env:\n  DOCKERHUB_TOKEN: {v}", "${{ secrets.DOCKERHUB_TOKEN }}"),
            ("- script: ./deploy.sh --pat {v}", "$(AZURE_DEVOPS_PAT)"),
            ("variables:\n  NPM_TOKEN: {v}", "$CI_NPM_TOKEN"),
        ],
    )
    add(
        B,
        "vault_path",
        [
            ("Key safe codes live in {v}, not in this repo.", "secret/data/homecare/keysafes"),
            ("vault kv get {v}", "kv/koduode/ehr/service-account"),
            ("Palkanlaskennan tunnukset: {v}", "secret/payroll/netvisor"),
        ],
    )
    add(
        B,
        "masked_value",
        [
            ("Stripe key in use: {v}", "sk_live_••••••••••••3kQ9"),
            ("Log: auth ok for twilio token {v}", "****************a91f"),
            ("Avainsäilön koodi: {v} (näkyy vain hoitajalle)", "••••"),
            ("DB password: {v}", "[REDACTED]"),
        ],
    )
    add(
        B,
        "revoked_key",
        [
            ("Revoked 2026-11-28 after it leaked in a screenshot, no longer valid: {v}", ghp()),
            (
                "Old SendGrid key {v} was deleted in the console; kept here only for the incident report.",
                sg(),
            ),
            ("Tühistatud võti (enam ei tööta): {v}", glpat()),
        ],
    )
    add(
        B,
        "ssh_public_key",
        [
            (
                "Add to authorized_keys on gw01: {v}",
                "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + s(B64, 43) + " mikko@rota",
            ),
            (
                "Deploy public key: {v}",
                "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ" + s(B64, 340) + " ci@koduode",
            ),
            (
                "Cheia publică a colegului: {v}",
                "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + s(B64, 43) + " ana@laptop",
            ),
        ],
    )
    add(
        B,
        "cert_fingerprint",
        [
            (
                "Kanta client cert SHA-1 fingerprint {v}",
                ":".join(s("0123456789ABCDEF", 2) for _ in range(20)),
            ),
            (
                "Pin the X-Road server cert: SHA256 {v}",
                ":".join(s("0123456789ABCDEF", 2) for _ in range(32)),
            ),
            ("Sertifikaadi sõrmejälg: {v}", s(HX, 40)),
        ],
    )
    add(
        B,
        "pem_certificate",
        [
            (
                "Public CA cert of the dispenser gateway:\n{v}",
                pem("CERTIFICATE", "MIIDdzCCAl+gAwIBAgIE"),
            ),
            (
                "Kanta-testiympäristön juurivarmenne:\n{v}",
                pem("CERTIFICATE", "MIIFazCCA1OgAwIBAgIU"),
            ),
        ],
    )
    add(
        B,
        "public_key_pem",
        [
            (
                "JWT verification key for the visit API:\n{v}",
                pem("PUBLIC KEY", "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA"),
            ),
            (
                "Avalik võti allkirjade kontrolliks:\n{v}",
                pem("PUBLIC KEY", "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE"),
            ),
        ],
    )
    add(
        B,
        "ticket_reference",
        [
            ("See {v} for the key safe audit.", "HC-" + digits(4)),
            ("Evondos tukipyyntö {v} avattu", "INC" + digits(7)),
            ("Tichet {v} - telefonul de gardă nu primește SMS-uri", "SD-" + digits(5)),
        ],
    )
    add(
        B,
        "booking_reference",
        [
            ("Training room booked for the EHR course, ref {v}", s(UP, 6)),
            ("Hotellivaraus Oulun koulutukseen: {v}", "FIN" + digits(7)),
            ("Rezervare sală instruire: {v}", "RZ-" + digits(6)),
        ],
    )
    add(
        B,
        "build_version",
        [
            ("Visit app {v} released to the Play Store", "4.12.3 (build 20261130)"),
            ("Hilkka-mobiili versio {v}", "2026.11.2"),
            ("Dispenser firmware {v} fixes the alarm loop", "v3.8.1-rc2"),
        ],
    )
    add(
        B,
        "atc_code",
        [
            ("Paracetamol ATC {v} added to the dispenser roll template", "N02BE01"),
            ("Metformiini ({v}) annostelijaan maanantaista alkaen", "A10BA02"),
            ("Varfariin, ATC {v} – INR kontroll neljapäeval", "B01AA03"),
            ("Apixaban {v}, doza de seară", "B01AF02"),
        ],
    )
    add(
        B,
        "icd10_code",
        [
            ("Diagnosis {v} noted in the care plan", "E11.9"),
            ("Asiakkaan päädiagnoosi {v}", "I50.0"),
            ("Diagnoos {v}, haavahooldus 2x nädalas", "L89.1"),
        ],
    )
    add(
        B,
        "kanta_oid",
        [
            ("Kanta organisation OID: {v}", "1.2.246.10." + digits(8) + ".10.0"),
            ("Palveluyksikön OID {v} lisätty konfiguraatioon", "1.2.246.10." + digits(8) + ".10.3"),
            ('<id root="{v}" extension="' + digits(6) + '"/>', "1.2.246.537.6." + digits(5)),
        ],
    )
    add(
        B,
        "fhir_resource_id",
        [
            ("GET /fhir/MedicationRequest/{v}", s(LO, 8) + "-" + s(LO, 4)),
            ("Patient resource {v} missing address", "pat-" + digits(7)),
            ("FHIR Observation/{v} (vererõhk)", digits(9)),
        ],
    )
    add(
        B,
        "medication_batch",
        [
            ("Returned blister rolls, batch {v}", "LOT " + s(UP, 2) + digits(6)),
            ("Eränumero {v}, vanhenee 04/2027", digits(6) + s(UP, 1)),
            ("Lot {v} - rechemat de producător", "R" + digits(7)),
        ],
    )
    add(
        B,
        "employee_number",
        [
            ("Nurse employee no. {v} missing from payroll export", "E" + digits(5)),
            ("Henkilönumero {v}, tuntipalkka muuttuu 1.1.", digits(6)),
            ("Töötaja nr {v}", "KO-" + digits(4)),
        ],
    )
    add(
        B,
        "cost_center",
        [
            ("Charge the key safe purchases to cost center {v}", "CC-4310"),
            ("Kustannuspaikka {v} (Vantaa itä)", "7820"),
            ("Centru de cost {v}", "RO-SB-110"),
        ],
    )
    add(
        B,
        "password_policy_text",
        [
            (
                "Policy: {v}.",
                "EHR passwords at least 14 characters, changed every 180 days, no reuse of the last 10",
            ),
            (
                "Tietoturvaohje: {v}",
                "Salasanan on oltava vähintään 12 merkkiä pitkä eikä sitä saa kirjoittaa asiakkaan kansioon.",
            ),
            (
                "Key safe rule from the handbook: {v}",
                "codes are rotated after every staff change and never written in visit notes",
            ),
            ("Regulă: {v}", "parola se schimbă la 90 de zile și nu se trimite pe WhatsApp"),
        ],
    )
    add(
        B,
        "documented_test_key",
        [
            ("Stripe docs test key for local dev: {v}", "sk_test_4eC39HqLyjWDarjtT1zdp7dc"),
            (
                "Paytrail test credentials: merchant 375917, secret {v} (public, from their docs)",
                "SAIPPUAKAUPPIAS",
            ),
            (
                "Test card for staging checkout: {v}, any future date, any CVC",
                "4242 4242 4242 4242",
            ),
        ],
    )
    add(
        B,
        "jwt_example",
        [
            (
                "Example token from jwt.io for the API docs: {v}",
                "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
            ),
            ("Decoded header only: {v}", "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9"),
        ],
    )
    add(
        B,
        "mac_address",
        [
            (
                "Dispenser gateway MAC {v} allowed on the staff VLAN",
                ":".join(s("0123456789ABCDEF", 2) for _ in range(6)),
            ),
            ("DHCP-varaus: {v} -> 10.20.5.40", ":".join(s(HX, 2) for _ in range(6))),
            ("Adresa MAC a telefonului: {v}", "-".join(s("0123456789ABCDEF", 2) for _ in range(6))),
        ],
    )
    add(
        B,
        "ip_address",
        [
            (
                "SIP trunk peer {v}",
                f"185.{rnd.randint(1, 254)}.{rnd.randint(1, 254)}.{rnd.randint(1, 254)}",
            ),
            ("EHR replica at {v}", "10.20.4.15"),
            (
                "Tulemüüri reegel: luba {v}/32",
                f"194.{rnd.randint(1, 254)}.{rnd.randint(1, 254)}.{rnd.randint(1, 254)}",
            ),
        ],
    )
    add(
        B,
        "sip_extension",
        [
            ("Dispatch queue is extension {v}", "6000"),
            ("Vaihteen jono {v}: yöpäivystys", "3100"),
            ("Interior {v} - asistenta coordonatoare", "115"),
        ],
    )
    add(
        B,
        "aws_arn",
        [
            ("Lambda role: {v}", f"arn:aws:iam::{digits(12)}:role/dispenser-telemetry-export"),
            (
                "SNS topic for missed visits: {v}",
                f"arn:aws:sns:eu-north-1:{digits(12)}:missed-visits",
            ),
        ],
    )
    add(
        B,
        "s3_bucket",
        [
            ("Backups go to s3://{v}/daily/", "kotihoito-ehr-backup-prod"),
            ("Bucket {v} has versioning on", "koduode-visit-photos"),
        ],
    )
    add(
        B,
        "trace_id",
        [
            ("Failed sync, trace id {v}", s(HX, 32)),
            ("2026-12-01T06:14:22Z ERROR rota.sync request_id={v} timeout", guid()),
            ("traceparent: 00-{v}-" + s(HX, 16) + "-01", s(HX, 32)),
        ],
    )
    add(
        B,
        "slack_channel_id",
        [
            ("Post handover summaries to channel {v}", "C0" + s(UP, 9)),
            ("Bot user id {v}", "U0" + s(UP, 9)),
        ],
    )
    add(
        B,
        "k8s_secret_ref",
        [
            ("valueFrom:\n  secretKeyRef:\n    name: {v}\n    key: password", "ehr-db-credentials"),
            ("kubectl get secret {v} -n rota -o yaml | head", "twilio-auth"),
        ],
    )
    add(
        B,
        "gpg_fingerprint",
        [
            (
                "Payroll files to the bank are encrypted to {v}",
                " ".join(s("0123456789ABCDEF", 4) for _ in range(10)),
            ),
            ("GPG key id {v}", "0x" + s("0123456789ABCDEF", 16)),
        ],
    )
    add(
        B,
        "fi_reference_number",
        [
            ("Lasku maksetaan viitteellä {v}", digits(4) + " " + digits(5)),
            (
                "Payment reference for the key safe order: {v}",
                "RF" + digits(2) + " " + digits(4) + " " + digits(4),
            ),
        ],
    )
    add(
        B,
        "invoice_number",
        [
            ("Evondos invoice {v} disputed", "INV-2026-" + digits(5)),
            ("Factura nr. {v} din 03.11.2026", "SB" + digits(6)),
            ("Arve nr {v}", digits(7)),
        ],
    )
    add(
        B,
        "vehicle_registration",
        [
            ("Care car {v} due for tyre change", s(string.ascii_uppercase, 3) + "-" + digits(3)),
            ("Auto {v} on Tartu meeskonnas", digits(3) + " " + s(string.ascii_uppercase, 3)),
            ("Mașina de serviciu {v}", "SB " + digits(2) + " " + s(string.ascii_uppercase, 3)),
        ],
    )
    add(
        B,
        "professional_reg_number",
        [
            ("New nurse's Terhikki registration number {v} checked", "1" + digits(10)),
            ("Tervishoiutöötaja registrikood {v}", "N" + digits(5)),
            ("Cod parafă medic coordonator: {v}", s(UP, 1) + digits(5)),
        ],
    )
    add(
        B,
        "bcrypt_hash",
        [
            ("Seed user row: password_hash = '{v}'", "$2b$12$" + s(AN + "./", 53)),
            ("Salasanan tiiviste testikannassa {v}", "$2y$10$" + s(AN + "./", 53)),
            (
                "argon2 hash in users table: {v}",
                "$argon2id$v=19$m=65536,t=3,p=4$" + s(B64, 22) + "$" + s(B64, 43),
            ),
        ],
    )
    add(
        B,
        "npm_integrity",
        [
            ('"integrity": "{v}"', "sha512-" + s(B64, 86) + "=="),
            ("lockfile integrity for @kotihoito/ui-kit: {v}", "sha512-" + s(B64, 86) + "=="),
        ],
    )


def more_secrets():
    S = "secret"
    add(
        S,
        "mailgun_api_key",
        [
            ("mailgun:\n  domain: mg.kotihoito.fi\n  api_key: key-{v}", s(HX, 32)),
        ],
    )
    add(
        S,
        "stripe_webhook_secret",
        [
            ("Webhook-ul Stripe pentru plăți are secretul {v}", whsec()),
        ],
    )
    add(
        S,
        "voicemail_pin",
        [
            ("Romanian on-call line: mesageria vocală, PIN {v}, schimbă-l după concediu", pin()),
        ],
    )
    add(
        S,
        "smartcard_pin",
        [
            ("Cardul de sănătate al asistentei (semnătură SIUI), PIN {v}", pin()),
        ],
    )
    add(
        S,
        "recovery_codes",
        [
            ("Taastekoodid (Google admin konto): {v}", ", ".join(digits(8) for _ in range(4))),
        ],
    )
    add(
        S,
        "totp_secret",
        [
            (
                "MFA secret for the Evondos portal admin, paste into the authenticator: {v}",
                b32(32).lower(),
            ),
        ],
    )
    add(
        S,
        "github_fine_grained_pat",
        [
            ("Tokenul fine-grained pentru repo-ul de salarizare: {v}", gh_fine()),
        ],
    )
    add(
        S,
        "slack_bot_token",
        [
            ("slack:\n  bot_token: {v}\n  channel: C0" + s(UP, 9), xoxb()),
        ],
    )
    add(
        S,
        "npm_token",
        [
            ("NODE_AUTH_TOKEN={v} npm ci", npm()),
        ],
    )
    add(
        S,
        "docker_hub_pat",
        [
            ("Docker Hubi juurdepääsutõend (loe+kirjuta): {v}", dckr()),
        ],
    )
    add(
        S,
        "vault_token",
        [
            ("export VAULT_ADDR=https://vault.koduode.ee VAULT_TOKEN={v}", hvs()),
        ],
    )
    add(
        S,
        "telegram_bot_token",
        [
            ("TELEGRAM_BOT_TOKEN={v}", tg()),
        ],
    )
    add(
        S,
        "fcm_server_key",
        [
            ('"fcm": {"serverKey": "{v}"}', fcm()),
        ],
    )


def more_benign():
    B = "benign"
    add(
        B,
        "firebase_web_api_key",
        [
            (
                "google-services.json current_key {v} – Android client key, restricted to the app's SHA-1",
                aiza(),
            ),
        ],
    )
    add(
        B,
        "fi_business_id",
        [
            ("Alihankkija (fysioterapia), Y-tunnus {v}", digits(7) + "-" + digits(1)),
        ],
    )
    add(
        B,
        "ee_registry_code",
        [
            ("Tarnija registrikood {v} (ravimidosaatorite hooldus)", digits(8)),
        ],
    )
    add(
        B,
        "ro_cui",
        [
            ("Furnizor telefonie, CIF {v}", digits(8)),
        ],
    )
    add(
        B,
        "pem_certificate",
        [
            ('"ca_cert": "{v}"', pem("CERTIFICATE", "MIIDXTCCAkWgAwIBAgIJA").replace("\n", "\\n")),
        ],
    )
    add(
        B,
        "public_key_pem",
        [
            (
                "Payroll SFTP host public key (from the bank):\n{v}",
                pem("RSA PUBLIC KEY", "MIIBCgKCAQEA"),
            ),
        ],
    )
    add(
        B,
        "jwt_example",
        [
            ("Docs snippet: Authorization: Bearer {v}", "<JWT>"),
        ],
    )
    add(
        B,
        "aws_arn",
        [
            (
                "Secrets Manager entry (value not here): {v}",
                f"arn:aws:secretsmanager:eu-north-1:{digits(12)}:secret:prod/twilio-{s(AN, 6)}",
            ),
        ],
    )
    add(
        B,
        "s3_bucket",
        [
            ("aws s3 ls s3://{v}/2026/11/", "kotihoito-payroll-exports"),
        ],
    )
    add(
        B,
        "slack_channel_id",
        [
            ("Kanal #valve-alarmid id on {v}", "C0" + s(UP, 9)),
        ],
    )
    add(
        B,
        "k8s_secret_ref",
        [
            ("envFrom:\n  - secretRef:\n      name: {v}", "paytrail-merchant"),
        ],
    )
    add(
        B,
        "gpg_fingerprint",
        [
            (
                "Julkinen avain, sormenjälki {v}",
                " ".join(s("0123456789ABCDEF", 4) for _ in range(10)),
            ),
        ],
    )
    add(
        B,
        "fi_reference_number",
        [
            (
                "Viitenumero {v} kotihoidon asiakasmaksulle",
                digits(3) + " " + digits(5) + " " + digits(2),
            ),
        ],
    )
    add(
        B,
        "npm_integrity",
        [
            ("sri hash for the CDN script: {v}", "sha384-" + s(B64, 64)),
        ],
    )
    add(
        B,
        "env_var_reference",
        [
            ("Codul seifului de chei se citește din {v}", "process.env.KEYSAFE_CODE"),
        ],
    )
    add(
        B,
        "ci_secret_reference",
        [
            ("Azure Pipelines: sendgridKey: {v}", "$(SendGridApiKey)"),
        ],
    )
    add(
        B,
        "vault_path",
        [
            ("Võtmekappide koodid on Vaultis: {v}", "kv/data/koduode/votmekapid"),
        ],
    )
    add(
        B,
        "revoked_key",
        [
            ("Stripe key {v} rolled on Monday; Stripe shows it as expired.", sk_live(24)),
        ],
    )
    add(
        B,
        "documented_test_key",
        [
            ("Twilio test credentials use magic number {v} as the From number", "+15005550006"),
        ],
    )
    add(
        B,
        "booking_reference",
        [
            ("Broneeringu number {v} (koolitus Tallinnas)", s(UP, 6)),
        ],
    )
    add(
        B,
        "build_version",
        [
            ("Versiunea aplicației de vizite: {v}", "4.13.0+412"),
        ],
    )
    add(
        B,
        "ticket_reference",
        [
            ("Pilet {v}: dosaatori alarm ei jõua valvesse", "KO-" + digits(4)),
        ],
    )
    add(
        B,
        "icd10_code",
        [
            ("Diagnostic principal {v}", "F03"),
        ],
    )
    add(
        B,
        "mac_address",
        [
            ("Evondos base station BSSID {v}", ":".join(s(HX, 2) for _ in range(6))),
        ],
    )
    add(
        B,
        "ip_address",
        [
            ("Key safe ordering portal whitelisted from {v}", "2001:db8:4a1::15"),
        ],
    )
    add(
        B,
        "employee_number",
        [
            ("Marca angajat {v}", "RO-" + digits(5)),
        ],
    )


def corpus() -> list[dict]:
    ROWS.clear()
    global _pw, rnd
    rnd = random.Random(SEED)
    _pw = iter(PASSWORDS)
    secrets()
    more_secrets()
    benign()
    more_benign()
    for r in ROWS:
        assert r["value"] and r["value"] in r["text"], r
        assert r["label"] in ("secret", "benign")
    return list(ROWS)


def main():
    rows = corpus()
    out = open(sys.argv[1], "w", encoding="utf-8") if len(sys.argv) > 1 else sys.stdout
    for r in rows:
        out.write(json.dumps(r, ensure_ascii=False) + "\n")
    if out is not sys.stdout:
        out.close()


if __name__ == "__main__":
    main()

# ruff: noqa: E501, SIM115
"""Blind secret-detector corpus 117: a chain of veterinary clinics with an animal hospital.

Brief: a vet group (clinics in Lyon, Torino, Kraków and Warszawa plus a 24h animal hospital) runs a
practice management system (PMS), in-house lab analysers, digital X-ray with a PACS, a controlled-drugs
cabinet and pharmacy, pet insurance and card/Przelewy24 payment portals, online booking with reminder
SMS, microchip registries (I-CAD, anagrafe canina, SAFE-ANIMAL), clinic door and alarm codes, and a
generic web/cloud stack. Vets, nurses, receptionists, practice managers, IT and their AI agents write notes.
Languages: English, French, Italian, Polish.

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Run: python blind_secrets_117.py [out.jsonl]

Kinds, secret: door_access_code, alarm_code, cd_safe_combination, cd_cabinet_pin, gate_code, wifi_password, pms_password, lab_analyser_password, xray_console_password, pacs_connection_string, postgres_url, mysql_password, mongodb_uri, redis_url, aws_access_key, aws_secret_key, github_token, gitlab_token, slack_bot_token, slack_webhook, teams_webhook, discord_webhook, stripe_secret_key, stripe_webhook_secret, twilio_auth_token, sendgrid_api_key, sms_gateway_token, google_api_key, openai_api_key, npm_token, rsa_private_key, ssh_private_key, jwt_signing_secret, session_cookie, basic_auth_url, insurance_portal_password, payment_terminal_pin, microchip_registry_api_key, recovery_codes, master_passphrase, bitlocker_recovery_key, vpn_preshared_key, sftp_password, smtp_password, azure_storage_connection_string, gcp_service_account_key, datadog_api_key, mailgun_api_key, przelewy24_crc_key, telegram_bot_token, docker_hub_token, phone_voicemail_pin, email_password, vault_token, totp_seed.

Kinds, benign: microchip_number, invoice_number, ticket_number, booking_reference, insurance_claim_number, insurance_policy_number, lab_sample_id, drug_batch_number, product_code, error_code, git_commit_sha, sha256_checksum, docker_image_digest, uuid, aws_example_key, stripe_publishable_key, recaptcha_site_key, ssh_public_key, public_key_pem, pgp_fingerprint, masked_secret, vault_reference, password_manager_reference, password_policy, placeholder_value, revoked_token, kms_key_arn, twilio_account_sid, oauth_client_id, analytics_id, device_serial_number, mac_address, ip_address, phone_extension, pet_passport_number, vet_registration_number, cd_register_entry, dicom_uid, order_number, tracking_number, vat_number, env_var_reference, key_rotation_note, kennel_number, version_string, test_card_number, integrity_hash, trace_id, slack_channel_id, webhook_endpoint_no_token, wifi_ssid, asset_tag, postal_code, atc_vet_code, vaccine_lot_number.
"""

import json
import random
import string
import sys

SEED = 892314


def corpus():
    """Every row: {"text": ..., "label": "secret" | "benign", "kind": ...}."""
    rng = random.Random(SEED)
    rows = []

    D = string.digits
    H = "0123456789abcdef"
    U = string.ascii_uppercase
    L = string.ascii_lowercase
    A = string.ascii_letters + D
    B64 = A + "+/"
    B64U = A + "-_"
    B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"

    def r(alpha, n):
        return "".join(rng.choice(alpha) for _ in range(n))

    def dg(n):
        return r(D, n)

    def hx(n):
        return r(H, n)

    def an(n):
        return r(A, n)

    def uid():
        return f"{hx(8)}-{hx(4)}-4{hx(3)}-{rng.choice('89ab')}{hx(3)}-{hx(12)}"

    words = [
        "Harbour",
        "Kotek",
        "Gattino",
        "Chiot",
        "Mruczek",
        "Biscotto",
        "Fido",
        "Stetoskop",
        "Vaccino",
        "Azor",
        "Burek",
        "Minou",
        "Pistache",
        "Cavallo",
        "Lapin",
        "Zebra",
        "Pralka",
        "Girasole",
        "Tulipe",
        "Wiewiorka",
        "Koala",
        "Ramen",
        "Rosmarino",
        "Bouledogue",
    ]
    seps = "!#.$@*%&"

    def pw():
        w = rng.choice(words)
        s = rng.randrange(5)
        if s == 0:
            return f"{w}{rng.choice(seps)}{dg(4)}"
        if s == 1:
            return f"{w.lower()}.{rng.choice(words)}{dg(2)}"
        if s == 2:
            return f"{w}{dg(2)}{rng.choice(seps)}"
        if s == 3:
            return f"{rng.choice(seps)}{w}_{rng.choice(words).lower()}{dg(3)}"
        return f"{w[:3].upper()}{w[3:].lower()}{dg(3)}{rng.choice(seps)}x"

    def phrase():
        ws = [
            "tortue",
            "giallo",
            "szafa",
            "marmotta",
            "pluie",
            "ogórek",
            "bicicletta",
            "lampion",
            "fromage",
            "kawa",
            "nuvola",
            "sowa",
            "cerise",
            "tamburo",
            "jodła",
            "ombrello",
        ]
        return "-".join(rng.choice(ws) for _ in range(4)) + dg(2)

    def S(kind, text):
        rows.append({"text": text, "label": "secret", "kind": kind})

    def B(kind, text):
        rows.append({"text": text, "label": "benign", "kind": kind})

    # ------------------------------------------------------------------ secrets
    S(
        "door_access_code",
        f"Lyon clinic back door (staff entrance by the kennels): code {dg(6)} then #",
    )
    S(
        "door_access_code",
        f"Code porte de service Villeurbanne changé ce matin -> {dg(4)}*, prévenir les ASV de nuit",
    )
    S(
        "door_access_code",
        f"Torino, ingresso personale: il codice della porta ora è {dg(5)} (vecchio disattivato)",
    )
    S("door_access_code", f"Kraków - kod do drzwi od zaplecza: {dg(4)}#. Nie dawać klientom!!")
    S(
        "door_access_code",
        f"handover: locum Dr Ferrand starts Monday, door keypad {dg(6)}, alarm see below",
    )

    S(
        "alarm_code",
        f"Alarm Warszawa Mokotów: rozbrojenie {dg(4)} + OFF, uzbrojenie przy wyjściu {dg(4)} + ON",
    )
    S(
        "alarm_code",
        f"Code alarme Lyon 7e : {dg(4)} (désarmer dans les 30 s sinon Verisure appelle)",
    )
    S(
        "alarm_code",
        f'codice allarme clinica Torino Crocetta {dg(4)}, il mot de passe per la vigilanza è "{rng.choice(words).lower()}"',
    )
    S("alarm_code", f"| Site | Alarm code |\n| Hospital 24h | {dg(6)} |")

    S(
        "cd_safe_combination",
        f"Controlled drugs safe (ketamine, methadone, butorphanol) combination: {dg(2)}-{dg(2)}-{dg(2)}",
    )
    S(
        "cd_safe_combination",
        f"Coffre stupéfiants bloc B, combinaison {dg(6)} – ne jamais l'écrire sur le registre",
    )
    S(
        "cd_safe_combination",
        f"cassaforte stupefacenti: combinazione {dg(2)}/{dg(2)}/{dg(2)}, chiave fisica nel cassetto del DS",
    )
    S(
        "cd_safe_combination",
        f"Sejf z lekami odurzającymi (gabinet 2) – szyfr {dg(6)}, zmieniony po odejściu Kasi",
    )

    S("cd_cabinet_pin", f"Vetcabinet pharmacy PIN for night nurses: {dg(4)}")
    S("cd_cabinet_pin", f"PIN armoire pharmacie (distributeur auto) pour Dr Morel = {dg(6)}")
    S("cd_cabinet_pin", f"PIN armadio farmaci reparto degenza {dg(4)}; se blocca chiamare Marco")
    S("cd_cabinet_pin", f"apteczka/szafka leków – PIN {dg(4)} (tylko lekarze dyżurni)")

    S(
        "gate_code",
        f"Car park gate at the hospital: dial {dg(4)} on the intercom, then press the bell icon",
    )
    S("gate_code", f"Portail parking clinique Bron : code {dg(4)}B")
    S("gate_code", f"cancello carraio Moncalieri, codice {dg(5)} (per le ambulanze veterinarie)")
    S("gate_code", f"brama wjazdowa od ul. Lipowej: kod {dg(4)}, pilot u recepcji")

    S("wifi_password", f"WiFi staff: SSID VetNova-Staff / pass {pw()}")
    S("wifi_password", f"Mot de passe wifi bureau (pas le guest) : {pw()}")
    S("wifi_password", f'wifi sala operatoria -> rete "OSP-CHIR", password: {pw()}')
    S("wifi_password", f"hasło do wifi dla personelu (Kraków): {pw()}")
    S("wifi_password", f"nmcli dev wifi connect VetNova-Lab password '{pw()}'")

    S("pms_password", f"PMS login for reception Lyon: user accueil.lyon, pw {pw()}")
    S("pms_password", f"Provet: compte admin clinique -> admin@vetnova.fr / {pw()}")
    S("pms_password", f"Credenziali gestionale ambulatorio: utente segreteria.to  password {pw()}")
    S("pms_password", f"login do systemu gabinetu: rejestracja.krk\nhasło: {pw()}")

    S(
        "lab_analyser_password",
        f"IDEXX VetLab Station admin password is {pw()} – needed to add a new analyser",
    )
    S(
        "lab_analyser_password",
        f"Analyseur biochimie : mot de passe technicien {pw()} (pas celui de l'ASV)",
    )
    S("lab_analyser_password", f"analizzatore emocromo, account service: tecnico / {pw()}")
    S("lab_analyser_password", f"hasło serwisowe analizatora hematologicznego: {pw()}")

    S("xray_console_password", f"DR console (X-ray room 1) Windows login: rx-user / {pw()}")
    S("xray_console_password", f"Poste radio numérique : session 'radio', mdp {pw()}")
    S(
        "xray_console_password",
        f"Console RX digitale – password amministratore {pw()}, non cambiarla senza il tecnico",
    )
    S("xray_console_password", f"stacja RTG, konto admin, hasło {pw()}")

    S(
        "pacs_connection_string",
        f"PACS_DB=postgresql://orthanc:{pw()}@pacs-db.vetnova.internal:5432/orthanc",
    )
    S(
        "pacs_connection_string",
        f'Orthanc config: "RegisteredUsers" : {{ "radiologue" : "{pw()}" }}',
    )
    S(
        "pacs_connection_string",
        f"Server=pacs-sql01;Database=ImagingVet;User Id=pacs_app;Password={pw()};",
    )

    S(
        "postgres_url",
        f"DATABASE_URL=postgres://booking:{an(20)}@db-booking.eu-west-3.rds.amazonaws.com:5432/booking",
    )
    S(
        "postgres_url",
        f"psql \"postgresql://pms_ro:{pw()}@10.20.1.15/pms\" -c 'select count(*) from appointments'",
    )
    S(
        "postgres_url",
        f"connstr della replica: postgresql://report:{an(18)}@replica-to.vetnova.it/pms_it",
    )
    S(
        "postgres_url",
        f"Nowy URL bazy przypomnień SMS: postgres://reminders:{an(22)}@pg-pl.internal/reminders",
    )

    S("mysql_password", f"mysql -h wp-db -u wordpress -p'{pw()}' vetnova_site")
    S("mysql_password", f"MYSQL_ROOT_PASSWORD={an(24)}  # prod, do not commit")
    S("mysql_password", f"Mot de passe root MariaDB du site de prise de RDV : {pw()}")

    S(
        "mongodb_uri",
        f"MONGO_URI=mongodb+srv://telemed:{an(16)}@cluster0.{r(L + D, 5)}.mongodb.net/teleconsult",
    )
    S(
        "mongodb_uri",
        f"connection string per i log degli analizzatori: mongodb://labsync:{pw()}@mongo-lab:27017/labsync?authSource=admin",
    )
    S(
        "mongodb_uri",
        f"mongodb://admin:{an(20)}@10.30.0.8:27017 <- Atlas is gone, this is the self-hosted one",
    )

    S("redis_url", f"REDIS_URL=redis://:{an(32)}@redis-queue.vetnova.internal:6379/0")
    S("redis_url", f"cache sessions booking: rediss://default:{an(28)}@eu1-redis.upstash.io:6379")
    S("redis_url", f"redis-cli -a {an(24)} -h sms-queue FLUSHDB  (kolejka SMS zablokowana)")

    S("aws_access_key", f"aws_access_key_id = AKIA{r(U + D, 16)}")
    S(
        "aws_access_key",
        f"Backup X-ray bucket creds from Julien: AKIA{r(U + D, 16)} (secret in next msg)",
    )
    S("aws_access_key", f"export AWS_ACCESS_KEY_ID=AKIA{r(U + D, 16)}")
    S("aws_secret_key", f"aws_secret_access_key = {r(B64, 40)}")
    S("aws_secret_key", f'export AWS_SECRET_ACCESS_KEY="{r(B64, 40)}"')
    S("aws_secret_key", f"klucz tajny do S3 z kopią zdjęć RTG: {r(B64, 40)}")
    S(
        "aws_secret_key",
        f"AccessKey AKIA{r(U + D, 16)} / Secret {r(B64, 40)} – compte pour les exports PMS",
    )

    S("github_token", f"git clone https://ghp_{an(36)}@github.com/vetnova/booking-widget.git")
    S("github_token", f"GH_TOKEN=ghp_{an(36)}")
    S("github_token", f"token per la CI del repo reminders: github_pat_{an(22)}_{an(59)}")
    S("github_token", f"Agent note: used ghp_{an(36)} to open the PR on vetnova/pms-sync")

    S("gitlab_token", f"GITLAB_TOKEN=glpat-{r(B64U, 20)}")
    S("gitlab_token", f"token d'accès gitlab (runner labo) : glpat-{r(B64U, 20)}")
    S(
        "gitlab_token",
        f'curl --header "PRIVATE-TOKEN: glpat-{r(B64U, 20)}" https://gitlab.vetnova.eu/api/v4/projects',
    )

    S("slack_bot_token", f"SLACK_BOT_TOKEN=xoxb-{dg(12)}-{dg(13)}-{an(24)}")
    S("slack_bot_token", f"bot #urgences-nuit token: xoxb-{dg(11)}-{dg(13)}-{an(24)}")
    S("slack_bot_token", f"user token del bot turni: xoxp-{dg(12)}-{dg(12)}-{dg(13)}-{hx(32)}")

    S(
        "slack_webhook",
        f"Webhook for #lab-results alerts: https://hooks.slack.com/services/T{r(U + D, 10)}/B{r(U + D, 10)}/{an(24)}",
    )
    S(
        "slack_webhook",
        f"SLACK_WEBHOOK_URL=https://hooks.slack.com/services/T{r(U + D, 8)}/B{r(U + D, 10)}/{an(24)}",
    )
    S(
        "slack_webhook",
        f"powiadomienia o brakach w aptece idą na https://hooks.slack.com/services/T{r(U + D, 10)}/B{r(U + D, 11)}/{an(24)}",
    )

    S(
        "teams_webhook",
        f"Teams connector (canal Pharmacie): https://vetnova.webhook.office.com/webhookb2/{uid()}@{uid()}/IncomingWebhook/{hx(32)}/{uid()}/V2{r(B64U, 43)}",
    )
    S(
        "teams_webhook",
        f"webhook Teams per allarmi frigo vaccini: https://vetnovait.webhook.office.com/webhookb2/{uid()}@{uid()}/IncomingWebhook/{hx(32)}/{uid()}",
    )
    S(
        "teams_webhook",
        f"TEAMS_HOOK=https://vetnova.webhook.office.com/webhookb2/{uid()}@{uid()}/IncomingWebhook/{hx(32)}/{uid()}/V2{r(B64U, 43)}",
    )

    S(
        "discord_webhook",
        f"Discord webhook for the students' on-call server: https://discord.com/api/webhooks/{dg(19)}/{r(B64U, 68)}",
    )
    S(
        "discord_webhook",
        f"webhook discord (stagiaires) https://discordapp.com/api/webhooks/{dg(18)}/{r(B64U, 68)}",
    )
    S("discord_webhook", f"DISCORD_URL=https://discord.com/api/webhooks/{dg(19)}/{r(B64U, 68)}")

    S("stripe_secret_key", f"STRIPE_SECRET_KEY=sk_live_51{an(22)}{an(74)}")
    S(
        "stripe_secret_key",
        f"Clé Stripe live pour le paiement en ligne des acomptes : sk_live_{an(24)}",
    )
    S("stripe_secret_key", f"restricted key solo lettura per report incassi: rk_live_51{an(96)}")
    S("stripe_secret_key", f'stripe.api_key = "sk_live_{an(99)}"')

    S("stripe_webhook_secret", f"STRIPE_WEBHOOK_SECRET=whsec_{an(32)}")
    S("stripe_webhook_secret", f"signing secret de l'endpoint /webhooks/stripe : whsec_{an(32)}")
    S("stripe_webhook_secret", f"sekret webhooka Stripe (środowisko prod PL) whsec_{an(32)}")

    S("twilio_auth_token", f"TWILIO_ACCOUNT_SID=AC{hx(32)}\nTWILIO_AUTH_TOKEN={hx(32)}")
    S("twilio_auth_token", f"auth token Twilio per SMS promemoria vaccini: {hx(32)}")
    S("twilio_auth_token", f"Twilio API key SK{hx(32)} secret {an(32)}")

    S("sendgrid_api_key", f"SENDGRID_API_KEY=SG.{r(B64U, 22)}.{r(B64U, 43)}")
    S(
        "sendgrid_api_key",
        f"clé sendgrid pour les rappels vaccins par mail : SG.{r(B64U, 22)}.{r(B64U, 43)}",
    )
    S(
        "sendgrid_api_key",
        f"nowy klucz SendGrid (stary wyciekł w logach): SG.{r(B64U, 22)}.{r(B64U, 43)}",
    )

    S("sms_gateway_token", f"SMSAPI token (przypomnienia o wizytach): {an(40)}")
    S(
        "sms_gateway_token",
        f'curl -H "Authorization: Bearer {an(40)}" https://api.smsapi.pl/sms.do -d to=48{dg(9)}',
    )
    S("sms_gateway_token", f"OVH SMS: application secret {an(32)}, consumer key {an(32)}")
    S("sms_gateway_token", f"Skebby/gateway SMS: password API {pw()} per l'utente vetnova_it")

    S("google_api_key", f"GOOGLE_MAPS_SERVER_KEY=AIza{r(B64U, 35)}")
    S("google_api_key", f"clé Google (Places, côté serveur, non restreinte!) AIza{r(B64U, 35)}")
    S("google_api_key", f"chiave API Google Calendar per sync agenda chirurghi: AIza{r(B64U, 35)}")

    S("openai_api_key", f"OPENAI_API_KEY=sk-proj-{r(B64U, 48)}T3BlbkFJ{r(B64U, 48)}")
    S(
        "openai_api_key",
        f"klucz do OpenAI dla bota recepcji: sk-proj-{r(B64U, 48)}T3BlbkFJ{r(B64U, 48)}",
    )
    S(
        "openai_api_key",
        f"chiave per il riassunto delle cartelle cliniche: sk-{an(20)}T3BlbkFJ{an(20)}",
    )

    S("npm_token", f"//registry.npmjs.org/:_authToken=npm_{an(36)}")
    S("npm_token", f"NPM_TOKEN=npm_{an(36)} (publish @vetnova/booking-ui)")
    S("npm_token", f"token npm pour le paquet des composants de réservation : npm_{an(36)}")

    S(
        "rsa_private_key",
        f"-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA{r(B64, 48)}\n{r(B64, 64)}",
    )
    S(
        "rsa_private_key",
        f"clé privée du certificat booking.vetnova.fr:\n-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC{r(B64, 48)}",
    )
    S(
        "rsa_private_key",
        f"chiave privata firma fatture elettroniche: -----BEGIN EC PRIVATE KEY----- MHcCAQEEI{r(B64, 56)}",
    )

    S(
        "ssh_private_key",
        f"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n{r(B64, 70)}",
    )
    S(
        "ssh_private_key",
        f"klucz do serwera PACS (id_ed25519): -----BEGIN OPENSSH PRIVATE KEY----- b3BlbnNzaC1rZXktdjEAAAAA{r(B64, 60)}",
    )
    S(
        "ssh_private_key",
        f"deploy key labsync (privée) :\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA{r(B64, 66)}",
    )

    S("jwt_signing_secret", f"JWT_SECRET={hx(64)}")
    S("jwt_signing_secret", f"secret de signature des tokens de l'app propriétaires : {an(48)}")
    S("jwt_signing_secret", f"app.config['SECRET_KEY'] = '{r(A + '!@#$%^&*(-_=+)', 50)}'")

    S("session_cookie", f"Cookie: sessionid={r(L + D, 32)}; csrftoken={an(32)}")
    S(
        "session_cookie",
        f"copied my PMS session to test the bug: connect.sid=s%3A{an(32)}.{r(B64, 43)}",
    )
    S(
        "session_cookie",
        f"PHPSESSID={r(L + D, 26)} (sessione admin portale assicurazioni, ancora valida)",
    )

    S("basic_auth_url", f"webhook CRM: https://sync:{pw()}@crm.vetnova.eu/api/hooks/appointments")
    S("basic_auth_url", f"curl -u api:{an(32)} https://lab-gateway.vetnova.internal/v1/results")
    S(
        "basic_auth_url",
        f"repo apt interno: deb https://apt:{an(20)}@repo.vetnova.it/debian stable main",
    )

    S(
        "insurance_portal_password",
        f"Portail assureur (SantéVet pro) : identifiant clinique {dg(6)}, mdp {pw()}",
    )
    S("insurance_portal_password", f"Petplan vet portal login: claims@vetnova.co / {pw()}")
    S("insurance_portal_password", f"portale assicurazioni animali: utente vetnova_to pw: {pw()}")
    S(
        "insurance_portal_password",
        f"Portal ubezpieczyciela (zgłaszanie szkód): login recepcja, hasło {pw()}",
    )

    S(
        "payment_terminal_pin",
        f"Card terminal (Ingenico) merchant/manager password: {dg(6)}, needed for refunds",
    )
    S("payment_terminal_pin", f"TPE accueil : code commerçant pour annulation {dg(4)}")
    S("payment_terminal_pin", f"POS reception, PIN supervisore per gli storni {dg(5)}")
    S("payment_terminal_pin", f"terminal płatniczy – PIN kierownika do zwrotów: {dg(4)}")

    S("microchip_registry_api_key", f"I-CAD pro API key (déclarations d'identification): {hx(40)}")
    S(
        "microchip_registry_api_key",
        f"Anagrafe canina regionale – credenziali veterinario: codice {dg(6)} password {pw()}",
    )
    S("microchip_registry_api_key", f"SAFE-ANIMAL API key do rejestracji czipów: {an(32)}")
    S(
        "microchip_registry_api_key",
        f'CHIP_REGISTRY_API_KEY="{r(U + D, 8)}-{r(U + D, 8)}-{r(U + D, 8)}"',
    )

    S(
        "recovery_codes",
        "Backup codes for the admin Google account:\n"
        + " ".join(f"{dg(4)} {dg(4)}" for _ in range(5)),
    )
    S(
        "recovery_codes",
        "codes de récupération 2FA (compte Stripe) : "
        + ", ".join(f"{r(L + D, 5)}-{r(L + D, 5)}" for _ in range(4)),
    )
    S(
        "recovery_codes",
        "kody zapasowe GitHub org vetnova: " + " ".join(f"{hx(5)}-{hx(5)}" for _ in range(6)),
    )

    S(
        "master_passphrase",
        f"Bitwarden master passphrase for the practice manager vault: {phrase()}",
    )
    S("master_passphrase", f'passphrase du coffre KeePass de la clinique : "{phrase()}"')
    S("master_passphrase", f"passphrase della chiave GPG per i backup: {phrase()}")

    S(
        "bitlocker_recovery_key",
        "BitLocker recovery key, reception PC LYO-REC-02: " + "-".join(dg(6) for _ in range(8)),
    )
    S(
        "bitlocker_recovery_key",
        "clé de récupération BitLocker portable Dr Rossi :\n" + "-".join(dg(6) for _ in range(8)),
    )
    S(
        "bitlocker_recovery_key",
        "klucz odzyskiwania BitLocker (laptop RTG) " + "-".join(dg(6) for _ in range(8)),
    )

    S("vpn_preshared_key", f"IPsec PSK site-to-site Lyon<->hospital: {an(32)}")
    S("vpn_preshared_key", f"WireGuard [Peer] clinica Torino\nPresharedKey = {r(B64, 43)}=")
    S("vpn_preshared_key", f"clé partagée VPN FortiGate (accès télé-radiologue) : {pw()}")
    S("vpn_preshared_key", f"[Interface]\nPrivateKey = {r(B64, 43)}=")

    S(
        "sftp_password",
        f"SFTP external lab (histopath results): host sftp.labo-partner.fr user vetnova pass {pw()}",
    )
    S("sftp_password", f"sshpass -p '{pw()}' sftp referti@ftp.laboratorio-partner.it")
    S("sftp_password", f"FTP do wyników z laboratorium zewnętrznego – hasło: {pw()}")

    S("smtp_password", f"SMTP_PASSWORD={an(16)}")
    S(
        "smtp_password",
        f"Serveur mail pour les rappels : smtp.office365.com:587, rappels@vetnova.fr / {pw()}",
    )
    S(
        "smtp_password",
        f"app password Gmail per l'invio ricette: {r(L, 4)} {r(L, 4)} {r(L, 4)} {r(L, 4)}",
    )

    S(
        "azure_storage_connection_string",
        f"DefaultEndpointsProtocol=https;AccountName=vetnovaimaging;AccountKey={r(B64, 86)}==;EndpointSuffix=core.windows.net",
    )
    S(
        "azure_storage_connection_string",
        f'AZURE_STORAGE_CONNECTION_STRING="DefaultEndpointsProtocol=https;AccountName=vnbackups;AccountKey={r(B64, 86)}=="',
    )
    S(
        "azure_storage_connection_string",
        f"SAS per caricare i DICOM: https://vnimg.blob.core.windows.net/dicom?sv=2022-11-02&ss=b&srt=co&sp=rwl&se=2027-01-31&sig={r(B64U, 43)}%3D",
    )

    S(
        "gcp_service_account_key",
        f'{{"type": "service_account", "project_id": "vetnova-booking", "private_key_id": "{hx(40)}", "private_key": "-----BEGIN PRIVATE KEY-----\\nMIIEvgIBADANBgkqhkiG9w0BAQEFAASC{r(B64, 40)}',
    )
    S(
        "gcp_service_account_key",
        f'service account sa-sms@vetnova-prod json, private_key: "-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBg{r(B64, 50)}\\n"',
    )
    S(
        "gcp_service_account_key",
        f'GOOGLE_CREDENTIALS=\'{{"private_key":"-----BEGIN PRIVATE KEY-----\\nMIIEvAIBADAN{r(B64, 44)}","client_email":"calendar-sync@vetnova.iam.gserviceaccount.com"}}\'',
    )

    S("datadog_api_key", f"DD_API_KEY={hx(32)}")
    S("datadog_api_key", f"datadog agent on pacs-01: api_key: {hx(32)}  app_key: {hx(40)}")
    S("datadog_api_key", f"clé API Datadog (monitoring frigo vaccins) {hx(32)}")

    S("mailgun_api_key", f"MAILGUN_API_KEY=key-{hx(32)}")
    S("mailgun_api_key", f"mailgun per le newsletter cliniche: api:key-{hx(32)}")
    S("mailgun_api_key", f"Mailgun private key for mg.vetnova.pl: {hx(32)}-{hx(8)}-{hx(8)}")

    S("przelewy24_crc_key", f"Przelewy24: merchant id {dg(6)}, CRC {hx(16)}, klucz API {hx(32)}")
    S("przelewy24_crc_key", f"P24_CRC={hx(16)}\nP24_API_KEY={hx(32)}")
    S(
        "przelewy24_crc_key",
        f"klucz do raportów Przelewy24 (panel → Moje dane → klucz CRC): {hx(16)}",
    )

    S("telegram_bot_token", f"bot Telegram per notifiche turni notturni: {dg(10)}:AA{r(B64U, 33)}")
    S("telegram_bot_token", f"TELEGRAM_TOKEN={dg(10)}:AA{r(B64U, 33)}")
    S(
        "telegram_bot_token",
        f"token bota (powiadomienia o pacjentach w szpitalu) {dg(9)}:AA{r(B64U, 33)}",
    )

    S("docker_hub_token", f"docker login -u vetnovaci -p dckr_pat_{r(B64U, 27)}")
    S("docker_hub_token", f"DOCKERHUB_TOKEN=dckr_pat_{r(B64U, 27)}")
    S("docker_hub_token", f"registry Harbor interne : robot$ci / {an(32)}")

    S("phone_voicemail_pin", f"Voicemail PIN for the out-of-hours line: {dg(4)}")
    S(
        "phone_voicemail_pin",
        f"messagerie standard clinique : code {dg(4)} pour écouter les messages",
    )
    S("phone_voicemail_pin", f"segreteria telefonica reperibilità, PIN {dg(5)}")

    S("email_password", f"Reception mailbox recepcja@vetnova.pl hasło: {pw()}")
    S("email_password", f"mdp de la boîte contact@ (Outlook) : {pw()} – changé après le phishing")
    S("email_password", f"info@vetnova.it -> {pw()}")
    S(
        "email_password",
        f'handover for Anna: shared inbox hospital-er@vetnova.eu pw "{pw()}", 2FA on my phone',
    )

    S("vault_token", f"VAULT_TOKEN=hvs.{an(24)}")
    S("vault_token", f"root token Vault (temporaire, à révoquer après l'install) : hvs.{an(90)}")
    S("vault_token", f"vault login hvs.{an(24)}")

    S("totp_seed", f"TOTP secret for the shared Stripe admin account: {r(B32, 32)}")
    S("totp_seed", f"otpauth://totp/Provet:admin@vetnova.fr?secret={r(B32, 32)}&issuer=Provet")
    S("totp_seed", f"seed 2FA portale fornitore farmaci: {r(B32, 16)}")

    # ------------------------------------------------------------------ benign
    B(
        "microchip_number",
        f"Microchip read at triage: 250{dg(12)} – matches I-CAD record, owner contacted",
    )
    B("microchip_number", f"n° transpondeur {'250' + dg(12)} enregistré chez I-CAD le 03/12")
    B(
        "microchip_number",
        f"microchip {'380' + dg(12)} iscritto in anagrafe, proprietario trasferito a Milano",
    )
    B("microchip_number", f"czip: 616{dg(12)} (SAFE-ANIMAL ok)")

    B(
        "invoice_number",
        f"Facture FAC-2026-{dg(5)} envoyée à l'assurance, en attente de remboursement",
    )
    B("invoice_number", f"FV/2026/11/{dg(4)} – korekta do faktury za szczepienie")
    B("invoice_number", f"Fattura n. {dg(4)}/2026 emessa per TAC + anestesia")
    B("invoice_number", f"Invoice INV-{dg(6)} was double charged, refund issued")

    B("ticket_number", f"IT ticket #{dg(5)}: X-ray console won't export DICOM to PACS")
    B("ticket_number", f"JIRA VN-{dg(4)} – le rappel SMS part deux fois")
    B("ticket_number", f"ticket supporto IDEXX {dg(8)}, il tecnico passa giovedì")
    B("ticket_number", f"zgłoszenie HD-{dg(6)} zamknięte, drukarka etykiet działa")

    B("booking_reference", f"Online booking ref {r(U + D, 8)} – cat spay, Tue 9:00, Dr Nowak")
    B("booking_reference", f"RDV n° {r(U, 2)}{dg(6)} annulé par le propriétaire")
    B("booking_reference", f"prenotazione web codice {r(U + D, 6)}: vaccino + microchip")
    B("booking_reference", f"rezerwacja {r(U + D, 7)} przeniesiona na piątek")

    B(
        "insurance_claim_number",
        f"Claim {r(U, 3)}-{dg(8)} submitted for cruciate surgery, awaiting pre-auth",
    )
    B(
        "insurance_claim_number",
        f"dossier sinistre assureur n° {dg(10)} – refus pour maladie préexistante",
    )
    B("insurance_claim_number", f"numero sinistro {dg(9)} liquidato")

    B("insurance_policy_number", f"Policy no. {r(U, 2)}{dg(9)} (Petplan), lifetime cover")
    B("insurance_policy_number", f"polisa nr {dg(12)} – pies Fado, limit 10 000 zł")
    B("insurance_policy_number", f"contrat d'assurance {r(U, 3)}{dg(7)} valide jusqu'au 31/03")

    B("lab_sample_id", f"Sample ID {dg(9)} (CBC + chem 17) rerun – lipemic")
    B("lab_sample_id", f"prélèvement {r(U, 2)}-{dg(7)} envoyé au labo externe, résultats J+2")
    B("lab_sample_id", f"campione istologico {r(U, 1)}{dg(2)}/{dg(5)} in refertazione")
    B("lab_sample_id", f"próbka {dg(8)} – hemoliza, pobrać ponownie")

    B(
        "drug_batch_number",
        f"Methadone 10 mg/ml batch {r(U, 2)}{dg(5)} exp 2027-04 received into CD register",
    )
    B("drug_batch_number", f"lot {dg(6)}{r(U, 1)} de médétomidine rappelé par le fabricant")
    B("drug_batch_number", f"lotto {r(U + D, 7)} ketamina, scadenza 09/2027")

    B("product_code", f"Reorder code {dg(6)} – Hill's k/d 12 kg (SKU on the supplier portal)")
    B("product_code", f"réf. produit {r(U, 3)}-{dg(5)} : cathéters 22G")
    B("product_code", f"codice articolo {dg(8)} (cartucce ematologia), ordinarne 3")
    B("product_code", f"EAN {dg(13)} – karma weterynaryjna, brak na stanie")

    B("error_code", f"Analyser shows error E{dg(3)} after the QC run, tried reboot")
    B("error_code", f"erreur {dg(4)} sur le capteur plan, code fabricant, voir manuel p. 112")
    B("error_code", f"terminale POS: codice errore {dg(2)}-{dg(3)}, transazione rifiutata")
    B("error_code", f"HTTP 502 z bramki SMS, kod błędu {dg(4)} w logach")

    B("git_commit_sha", f"Reminder fix deployed in {hx(40)}")
    B("git_commit_sha", f"revert de {hx(7)} (régression sur le calcul de TVA)")
    B("git_commit_sha", f"commit {hx(40)} introduce la nuova API anagrafe")

    B("sha256_checksum", f"SHA256 of the PMS installer: {hx(64)}")
    B("sha256_checksum", f"sha256sum firmware_console_dr.bin -> {hx(64)} ✔ matches vendor")
    B("sha256_checksum", f"suma kontrolna backupu: {hx(64)}")

    B("docker_image_digest", f"pinned image ghcr.io/vetnova/booking@sha256:{hx(64)}")
    B("docker_image_digest", f"digest de l'image orthanc en prod : sha256:{hx(64)}")
    B("docker_image_digest", f"image: registry.vetnova.eu/sms-worker@sha256:{hx(64)}")

    B("uuid", f"patient uuid {uid()} merged with duplicate record")
    B("uuid", f"request_id={uid()} appointment.created")
    B("uuid", f"id clinica in configurazione: {uid()}")
    B("uuid", f"ID klienta w systemie: {uid()}")

    B(
        "aws_example_key",
        "From the AWS docs: AKIAIOSFODNN7EXAMPLE / wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY – use these in the README",
    )
    B("aws_example_key", "exemple de config (doc AWS) : aws_access_key_id = AKIAIOSFODNN7EXAMPLE")
    B(
        "aws_example_key",
        "esempio: AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY (valore fittizio della documentazione)",
    )

    B(
        "stripe_publishable_key",
        f"Publishable key for the booking widget (safe in frontend): pk_live_51{an(96)}",
    )
    B("stripe_publishable_key", f"clé publique Stripe : pk_live_{an(24)}")
    B("stripe_publishable_key", f"STRIPE_PUBLISHABLE_KEY=pk_live_51{an(96)}")

    B("recaptcha_site_key", f"reCAPTCHA site key on the contact form: 6L{r(B64U, 38)}")
    B("recaptcha_site_key", f'data-sitekey="6L{r(B64U, 38)}"')
    B("recaptcha_site_key", f"klucz witryny reCAPTCHA (publiczny): 6L{r(B64U, 38)}")

    B(
        "ssh_public_key",
        f"Add this to authorized_keys on pacs-01: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{r(B64, 43)} julien@vetnova",
    )
    B(
        "ssh_public_key",
        f"clé publique du radiologue : ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ{r(B64, 60)} teleradio@laptop",
    )
    B(
        "ssh_public_key",
        f"deploy key (pubblica) ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{r(B64, 43)} ci@gitlab",
    )

    B(
        "public_key_pem",
        f"Insurer's public key to verify callbacks:\n-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA{r(B64, 40)}",
    )
    B(
        "public_key_pem",
        f"certificat public booking.vetnova.fr : -----BEGIN CERTIFICATE----- MIIF{r(B64, 56)}",
    )
    B(
        "public_key_pem",
        f"klucz publiczny do weryfikacji podpisu JWT: -----BEGIN PUBLIC KEY----- MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE{r(B64, 40)}",
    )

    B(
        "pgp_fingerprint",
        "PGP fingerprint for backup encryption: "
        + " ".join(r("0123456789ABCDEF", 4) for _ in range(10)),
    )
    B("pgp_fingerprint", "empreinte de la clé GPG du NAS : " + r("0123456789ABCDEF", 40))
    B(
        "pgp_fingerprint",
        "key ID " + r("0123456789ABCDEF", 16) + " (solo l'impronta, la chiave sta nel vault)",
    )

    B(
        "masked_secret",
        f"Stripe key in the dashboard shows sk_live_****{an(4)}, full value only in 1Password",
    )
    B("masked_secret", "mot de passe : ******** (masqué dans le PMS)")
    B("masked_secret", f"token SMS: xxxxxxxx{an(4)} (ultimi 4 caratteri per riconoscerlo)")
    B("masked_secret", f"karta klienta **** **** **** {dg(4)}, płatność odrzucona")

    B("vault_reference", "DB creds are at vault kv/prod/pms/db – don't paste them here")
    B("vault_reference", "mot de passe du PACS : voir secret/imaging/orthanc dans Vault")
    B("vault_reference", "password: {{ vault('secret/data/sms/twilio#auth_token') }}")
    B(
        "vault_reference",
        f"AWS_SECRET_ACCESS_KEY pobierany z Secrets Manager arn:aws:secretsmanager:eu-central-1:{dg(12)}:secret:prod/backup-{an(6)}",
    )

    B(
        "password_manager_reference",
        "Alarm and door codes for all sites are in Bitwarden → collection 'Sites'",
    )
    B(
        "password_manager_reference",
        "le code du coffre stupéfiants est dans 1Password (coffre 'Pharmacie'), demander à la DS",
    )
    B(
        "password_manager_reference",
        "la password del wifi ospiti è nel KeePass della reception, voce 'WiFi Torino'",
    )
    B(
        "password_manager_reference",
        "hasło do portalu ubezpieczyciela – w menedżerze haseł, folder Recepcja",
    )

    B(
        "password_policy",
        "Policy: PMS passwords min 12 chars, rotated every 90 days, no reuse of last 5",
    )
    B(
        "password_policy",
        "Rappel : le code de la porte change tous les mois, ne jamais le noter sur un post-it",
    )
    B(
        "password_policy",
        "le password degli analizzatori devono avere almeno 10 caratteri e un simbolo",
    )
    B("password_policy", "PIN do szafki z lekami: 6 cyfr, zmiana po każdym odejściu pracownika")

    B(
        "placeholder_value",
        "STRIPE_SECRET_KEY=sk_live_xxxxxxxxxxxxxxxxxxxxxxxx  # replace in .env.local",
    )
    B("placeholder_value", "DATABASE_URL=postgres://user:<password>@localhost:5432/pms")
    B("placeholder_value", "password: CHANGEME (template Ansible, remplacé au déploiement)")
    B("placeholder_value", "SMSAPI_TOKEN=your-token-here")

    B("revoked_token", f"Revoked today after it leaked in a screenshot, do not use: ghp_{an(36)}")
    B(
        "revoked_token",
        f"clé sendgrid SG.{r(B64U, 22)}.{r(B64U, 43)} RÉVOQUÉE le 02/12 (remplacée, nouvelle dans Vault)",
    )
    B(
        "revoked_token",
        f"vecchio token Slack xoxb-{dg(12)}-{dg(13)}-{an(24)} revocato, app reinstallata",
    )

    B(
        "kms_key_arn",
        f"X-ray backups encrypted with KMS key arn:aws:kms:eu-west-3:{dg(12)}:key/{uid()}",
    )
    B("kms_key_arn", f"key id KMS : {uid()} (alias/pacs-backups)")
    B("kms_key_arn", f"SSEKMSKeyId: arn:aws:kms:eu-central-1:{dg(12)}:key/{uid()}")

    B("twilio_account_sid", f"Twilio Account SID AC{hx(32)} (the token lives in Vault)")
    B("twilio_account_sid", f"Messaging Service SID MG{hx(32)} pour les rappels FR")
    B("twilio_account_sid", f"SID account Twilio Italia: AC{hx(32)}")

    B(
        "oauth_client_id",
        f"Google OAuth client ID for staff SSO: {dg(12)}-{r(L + D, 32)}.apps.googleusercontent.com",
    )
    B("oauth_client_id", f"client_id Azure AD (portail propriétaires) : {uid()}")
    B(
        "oauth_client_id",
        f"identyfikator klienta OAuth: {dg(12)}-{r(L + D, 32)}.apps.googleusercontent.com",
    )

    B("analytics_id", f"GA4 measurement id G-{r(U + D, 10)} on the booking site")
    B("analytics_id", f"Tag Manager GTM-{r(U + D, 7)} installé sur le site Lyon")
    B("analytics_id", f"pixel Meta id {dg(15)} per campagna vaccini")

    B(
        "device_serial_number",
        f"DR detector serial S/N {r(U, 2)}{dg(8)} – under warranty until 2028",
    )
    B("device_serial_number", f"numéro de série analyseur : {r(U, 3)}{dg(7)}")
    B("device_serial_number", f"matricola ecografo {dg(4)}-{r(U, 2)}-{dg(5)}")
    B("device_serial_number", f"nr seryjny autoklawu {r(U + D, 10)}")

    B(
        "mac_address",
        "MAC of the lab analyser for DHCP reservation: " + ":".join(hx(2) for _ in range(6)),
    )
    B("mac_address", "adresse MAC console RX " + "-".join(hx(2).upper() for _ in range(6)))
    B("mac_address", "indirizzo MAC stampante etichette " + ":".join(hx(2) for _ in range(6)))

    B(
        "ip_address",
        f"PACS is at 10.{rng.randrange(256)}.{rng.randrange(256)}.{rng.randrange(1, 255)}, port 4242 (DICOM)",
    )
    B(
        "ip_address",
        f"IP fixe de l'analyseur : 192.168.{rng.randrange(256)}.{rng.randrange(2, 250)}",
    )
    B(
        "ip_address",
        f"adres IP terminala płatniczego 172.16.{rng.randrange(256)}.{rng.randrange(2, 250)}",
    )

    B("phone_extension", f"Hospital ICU extension {dg(3)}, pharmacy {dg(3)}")
    B("phone_extension", f"poste de l'accueil Bron : {dg(4)}")
    B("phone_extension", f"interno sala chirurgica {dg(3)}")

    B("pet_passport_number", f"EU pet passport FR{dg(10)} – rabies vaccine stamped")
    B("pet_passport_number", f"paszport PL{dg(2)}{r(U, 2)}{dg(6)} wydany dla kota Mruczek")
    B("pet_passport_number", f"passaporto IT{dg(3)}{r(U, 2)}{dg(7)} rinnovato")

    B("vet_registration_number", f"Dr Lemaire n° ordinal {dg(5)}")
    B("vet_registration_number", f"lek. wet. Nowak, numer PWZ {dg(4)}")
    B("vet_registration_number", f"iscrizione Ordine dei Medici Veterinari di Torino n. {dg(4)}")

    B(
        "cd_register_entry",
        f"CD register page {dg(3)}, entry {dg(2)}: methadone 0.{dg(1)} ml wasted, witnessed by RVN",
    )
    B(
        "cd_register_entry",
        f"registre stupéfiants p. {dg(2)} ligne {dg(1)} – écart de 0,2 ml corrigé",
    )
    B(
        "cd_register_entry",
        f"registro carico/scarico stupefacenti, pagina {dg(3)} movimento {dg(4)}",
    )

    B("dicom_uid", f"StudyInstanceUID 1.2.826.0.1.{dg(7)}.{dg(4)}.{dg(5)}.{dg(10)} failed to send")
    B("dicom_uid", f"SeriesUID 1.2.392.200036.9125.{dg(1)}.{dg(12)}.{dg(8)} manquante dans le PACS")
    B("dicom_uid", f"accession number {r(U, 2)}{dg(8)} (RX torace)")

    B("order_number", f"Supplier order PO-{dg(6)} (vaccines) delayed, cold chain box")
    B("order_number", f"commande grossiste n° {dg(9)} livrée incomplète")
    B("order_number", f"zamówienie ZAM/{dg(4)}/2026 do hurtowni")

    B("tracking_number", f"Histopath sample shipped, tracking 1Z{r(U + D, 16)}")
    B("tracking_number", f"colis Chronopost {r(U, 2)}{dg(9)}FR")
    B("tracking_number", f"spedizione BRT n. {dg(12)}")

    B("vat_number", f"Billing entity VAT FR{dg(11)}")
    B("vat_number", f"Partita IVA IT{dg(11)}")
    B("vat_number", f"NIP {dg(3)}-{dg(3)}-{dg(2)}-{dg(2)}")

    B(
        "env_var_reference",
        "Set STRIPE_SECRET_KEY and TWILIO_AUTH_TOKEN in the GitHub Actions secrets, not in the repo",
    )
    B("env_var_reference", "password: ${PACS_DB_PASSWORD}")
    B("env_var_reference", 'api_key = os.environ["SENDGRID_API_KEY"]  # lu depuis l\'env')
    B("env_var_reference", "token: ${{ secrets.SMSAPI_TOKEN }}")

    B(
        "key_rotation_note",
        "Rotated the Stripe live secret key this morning; webhook secret unchanged. New key only in Vault.",
    )
    B(
        "key_rotation_note",
        "codes des portes changés sur tous les sites le 1er décembre – nouveaux codes communiqués oralement",
    )
    B(
        "key_rotation_note",
        "cambiata la password del PACS dopo l'uscita del tecnico, nuova nel KeePass",
    )
    B("key_rotation_note", "zmieniłem klucz API do SMSAPI, stary usunięty")

    B("kennel_number", f"Dog in kennel {dg(2)}B, post-op, check every 2h")
    B("kennel_number", f"chat en cage {dg(1)} (isolement), ne pas ouvrir sans blouse")
    B("kennel_number", f"box degenza {dg(2)}: gatto FIV+")

    B(
        "version_string",
        f"PMS updated to {rng.randrange(3, 9)}.{rng.randrange(0, 20)}.{rng.randrange(0, 40)}, reminders OK",
    )
    B("version_string", f"firmware console DR v{rng.randrange(1, 5)}.{dg(2)}.{dg(4)}")
    B(
        "version_string",
        f"wersja aplikacji rezerwacji {rng.randrange(1, 4)}.{rng.randrange(0, 30)}.{rng.randrange(0, 9)}-rc{rng.randrange(1, 5)}",
    )

    B(
        "test_card_number",
        "Use Stripe test card 4242 4242 4242 4242, any future date, any CVC, on staging",
    )
    B("test_card_number", "carte de test 4000 0000 0000 3220 pour tester le 3DS")
    B("test_card_number", "carta di test Nexi 4349 9401 9900 4549 (ambiente sandbox)")

    B("integrity_hash", f'"integrity": "sha512-{r(B64, 86)}=="')
    B("integrity_hash", f'<script src="/widget.js" integrity="sha384-{r(B64, 64)}">')
    B("integrity_hash", f"hash MD5 del file DICOM: {hx(32)}")

    B("trace_id", f"trace_id={hx(32)} span_id={hx(16)} booking timeout")
    B("trace_id", f"Sentry event {hx(32)}: NullReference in ReminderJob")
    B("trace_id", f"correlation id {uid()} nei log del gateway SMS")

    B("slack_channel_id", f"Post lab alerts to channel C{r(U + D, 10)} (#lab-results)")
    B("slack_channel_id", f"user id Slack de la DS : U{r(U + D, 10)}")
    B("slack_channel_id", f"team id T{r(U + D, 8)}, workspace VetNova")

    B(
        "webhook_endpoint_no_token",
        "Stripe sends events to https://api.vetnova.eu/webhooks/stripe (signature checked server-side)",
    )
    B(
        "webhook_endpoint_no_token",
        "URL de callback assurance : https://portal.vetnova.fr/api/insurer/callback",
    )
    B(
        "webhook_endpoint_no_token",
        "endpoint per i referti: POST https://lab-gateway.vetnova.internal/v1/results",
    )

    B("wifi_ssid", "Guest WiFi is 'VetNova-Clients', the password is on the poster at reception")
    B("wifi_ssid", "réseau wifi du bloc : SSID VN-BLOC-5G (mdp dans Bitwarden)")
    B("wifi_ssid", "sieć dla klientów: VetNova-Gosc, hasło w menedżerze")

    B("asset_tag", f"Laptop asset tag VN-{dg(5)} assigned to Dr Bianchi")
    B("asset_tag", f"étiquette inventaire INV-LYO-{dg(4)} (moniteur anesthésie)")
    B("asset_tag", f"nr inwentarzowy ST-{dg(4)}/KRK – pompa infuzyjna")

    B("postal_code", f"new clinic address: 69{dg(3)} Lyon, parking at the back")
    B("postal_code", f"CAP 101{dg(2)} Torino, citofono Clinica")
    B("postal_code", f"kod pocztowy 30-{dg(3)} Kraków")

    B("atc_vet_code", "ATCvet QN02AA01 (morphine) – stock low at the hospital pharmacy")
    B("atc_vet_code", "code ATCvet QJ01CA04 amoxicilline, posologie 10 mg/kg")
    B(
        "atc_vet_code",
        "AIC n. 10" + dg(4) + dg(3) + " (codice ministeriale del farmaco veterinario)",
    )

    B("vaccine_lot_number", f"Rabies vaccine lot {r(U, 1)}{dg(6)} – given 12/11, next due 2027")
    B(
        "vaccine_lot_number",
        f"vaccin CHPPiL lot n° {dg(3)}{r(U, 2)}{dg(2)}, étiquette collée dans le carnet",
    )
    B("vaccine_lot_number", f"szczepionka, seria {r(U + D, 8)}, ważna do 05/2027")

    S(
        "door_access_code",
        f"nota per il turno di notte: porta retro ospedale {dg(4)}#, poi spingere forte",
    )
    S("wifi_password", f"WPA2 key for the hospital IoT network (fridge sensors): {an(20)}")
    S(
        "email_password",
        f"Mot de passe Gmail du compte rappels : {pw()} (ne pas le changer, lié au PMS)",
    )
    S("alarm_code", f"alarm ospedale: codice utente Giulia {dg(4)}, codice coercizione {dg(4)}")
    B("microchip_number", f"Found stray, chip 941{dg(12)} not registered in any EU database")
    B("invoice_number", f"avoir n° AV-{dg(5)} sur facture client (erreur de TVA)")
    B("error_code", f"Provet sync failed with code SYNC-{dg(3)}, retry at 02:00")
    B("booking_reference", f"Booking #{dg(7)} confirmed via SMS, owner replied OK")
    B("uuid", f"clinic_id: {uid()}  # Kraków, not secret")
    return rows


def main():
    rows = corpus()
    out = open(sys.argv[1], "w", encoding="utf-8") if len(sys.argv) > 1 else sys.stdout
    for row in rows:
        out.write(json.dumps(row, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()

# ruff: noqa: E501, SIM115
"""Blind secret-detector corpus 95: solar mini-grid operator with PAYG metering and mobile money (West and East Africa).

Brief: a labelled corpus of notes kept by the engineering, field and finance
teams (and their AI coding agents) of a solar mini-grid operator that sells
pay-as-you-go electricity through smart meters and mobile money in Nigeria,
Niger, Senegal, Kenya and Tanzania: M-Pesa Daraja, MTN MoMo, Orange Money,
Wave, Flutterwave, Paystack, CinetPay, PayDunya, SMS gateways (Africa's
Talking, Twilio, Infobip, Termii, SMPP), metering platforms (SparkMeter,
SteamaCo, Angaza, OpenPAYGO Token, STS), plant SCADA, inverters, 4G routers,
LoRaWAN meters, field agents' phones and the usual developer stack. Rows are
prose notes, handovers, chat lines, commands, .env, YAML, JSON, URLs, tables
and log lines in English, French and Hausa.

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Run: python blind_secrets_95.py [out.jsonl]

Kinds, secret: mpesa_consumer_secret, mpesa_lnm_passkey, mpesa_initiator_password,
mtn_momo_api_key, mtn_momo_subscription_key, orange_money_basic_auth,
orange_api_client_secret, wave_api_key, flutterwave_secret_key,
paystack_secret_key, cinetpay_api_key, paydunya_private_key,
africastalking_api_key, twilio_auth_token, infobip_api_key, termii_api_key,
smpp_bind_password, steamaco_api_token, sparkmeter_api_secret,
angaza_api_password, openpaygo_secret_key, sts_vending_key, lorawan_app_key,
mqtt_broker_password, victron_vrm_token, inverter_installer_password,
scada_hmi_password, router_admin_password, wifi_passphrase,
field_phone_unlock_pin, mobile_money_agent_pin, wireguard_private_key,
ssh_private_key, aws_secret_access_key, github_pat, gitlab_pat,
slack_webhook_url, telegram_bot_token, whatsapp_cloud_token,
postgres_url_password, mongodb_uri_password, redis_url_password,
fcm_server_key, azure_storage_account_key, gcp_service_account_key,
jwt_signing_secret, django_secret_key, sendgrid_api_key, openai_api_key,
anthropic_api_key, vault_token, odk_app_user_token, erpnext_api_secret,
mfa_recovery_codes, http_basic_auth_url, grafana_service_token,
docker_hub_pat, npm_token.

Kinds, benign: meter_serial, sts_meter_number, customer_account_id,
mpesa_receipt_code, momo_reference_uuid, paybill_till_number,
daraja_sandbox_passkey, flutterwave_public_key, paystack_public_key,
twilio_account_sid, aws_documented_example_key, git_commit_sha,
firmware_sha256, container_image_digest, wireguard_public_key,
ssh_public_key, ssh_host_fingerprint, x509_certificate, env_var_reference,
vault_path, placeholder_value, masked_secret, revoked_key, ticket_reference,
firmware_version, field_phone_imei, sim_iccid, lorawan_dev_eui,
modbus_register, gps_coordinates, site_code, invoice_number,
bank_account_number, sts_supply_group_code, recaptcha_site_key,
mapbox_public_token, password_policy_text, bcrypt_hash, cron_schedule,
slack_channel_id, telegram_chat_id, flight_booking_ref, k8s_secret_ref,
infobip_base_url, cinetpay_site_id, mtn_momo_api_user, sms_sender_id,
smpp_system_id, mac_address, ip_subnet, purchase_order, kms_key_arn,
npm_integrity_hash, test_card_number, trace_id, mobile_money_agent_code,
ussd_short_code, payg_device_serial, gpg_key_fingerprint, tariff_code.
"""

import base64
import json
import random
import re
import string
import sys

SEED = 9595

HEX = "0123456789abcdef"
UHEX = "0123456789ABCDEF"
DIG = string.digits
LOW = string.ascii_lowercase
UP = string.ascii_uppercase
ALNUM = string.ascii_letters + string.digits
LOWNUM = string.ascii_lowercase + string.digits
UPNUM = string.ascii_uppercase + string.digits
B64 = string.ascii_letters + string.digits + "+/"
B64URL = string.ascii_letters + string.digits + "-_"


def corpus() -> list[dict]:
    r = random.Random(SEED)
    rows: list[dict] = []

    def s(alpha, n):
        return "".join(r.choice(alpha) for _ in range(n))

    def rb(n):
        return bytes(r.getrandbits(8) for _ in range(n))

    def b64(n):
        return base64.b64encode(rb(n)).decode()

    def uuid():
        h = s(HEX, 32)
        return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{r.choice('89ab')}{h[17:20]}-{h[20:]}"

    def luhn(body):
        total = 0
        for i, ch in enumerate(reversed(body)):
            d = int(ch)
            if i % 2 == 0:
                d *= 2
                if d > 9:
                    d -= 9
            total += d
        return body + str((10 - total % 10) % 10)

    def human():
        base = r.choice(
            [
                "Haske",
                "Kwano",
                "Maradi",
                "Zinder",
                "Kibwezi",
                "Dutse",
                "Tsanyawa",
                "Rana",
                "Sabuwa",
                "Wutar",
                "Soleil",
                "Tabaski",
                "Arewa",
                "Mitanmu",
            ]
        )
        sep = r.choice(["@", "#", "!", "_", "$", "*", "."])
        tail = r.choice(
            [str(r.randint(10, 99)), str(r.randint(2019, 2026)), str(r.randint(100, 9999))]
        )
        end = r.choice(["", "!", "#", "x", "Ng", "Ke"])
        return base + sep + tail + end

    def pem(label, nbytes, first=""):
        body = first + base64.b64encode(rb(nbytes)).decode()
        lines = [body[i : i + 64] for i in range(0, len(body), 64)]
        return f"-----BEGIN {label}-----\n" + "\n".join(lines) + f"\n-----END {label}-----"

    fillers = {
        "UUID": lambda n: uuid(),
        "HEX": lambda n: s(HEX, n),
        "AN": lambda n: s(ALNUM, n),
        "N": lambda n: s(DIG, n),
        "UP": lambda n: s(UPNUM, n),
    }

    def fill(t):
        return re.sub(
            r"\{(UUID|HEX|AN|N|UP)(\d*)\}", lambda m: fillers[m.group(1)](int(m.group(2) or 0)), t
        )

    def K(label, kind, gen, templates):
        for t in templates:
            v = gen()
            text = fill(t.replace("{v}", v))
            assert v in text, (kind, t)
            rows.append({"label": label, "kind": kind, "text": text, "value": v})

    S = "secret"
    B = "benign"

    # ------------------------------------------------------------------ secrets
    K(
        S,
        "mpesa_consumer_secret",
        lambda: s(ALNUM, 64),
        [
            "MPESA_CONSUMER_KEY={AN48}\nMPESA_CONSUMER_SECRET={v}",
            "Daraja prod app 'haske-c2b' (Kibwezi + Makueni paybill): consumer secret is {v} — rotate after the Safaricom go-live review.",
            'curl -s -u "{AN48}:{v}" "https://api.safaricom.co.ke/oauth/v1/generate?grant_type=client_credentials"',
            'mpesa:\n  env: production\n  consumer_key: {AN48}\n  consumer_secret: "{v}"',
        ],
    )
    K(
        S,
        "mpesa_lnm_passkey",
        lambda: s(HEX, 64),
        [
            "LNM_PASSKEY={v}",
            "STK push kept failing with 'Invalid Credentials' because the sandbox passkey was still in prod. Live passkey for shortcode 4127093: {v}",
            'password = base64(shortcode + "{v}" + timestamp)  # live passkey from Safaricom email of 14 Nov',
            '{"BusinessShortCode": "4127093", "Passkey": "{v}", "CallBackURL": "https://pay.haske-grid.com/mpesa/stk/cb"}',
        ],
    )
    K(
        S,
        "mpesa_initiator_password",
        human,
        [
            "B2C refunds: initiator name haske_api_b2c, initiator password {v} (set on the M-Pesa org portal by Wanjiru).",
            "Handover — M-Pesa org portal, business manager login for paybill 4127093: user mwangi.ops / {v}",
            "MPESA_INITIATOR_NAME=haske_api_b2c\nMPESA_INITIATOR_PASSWORD={v}",
        ],
    )
    K(
        S,
        "mtn_momo_api_key",
        lambda: s(HEX, 32),
        [
            "MoMo collection API user {UUID} — apiKey {v} (generated with POST /v1_0/apiuser/{id}/apikey, only shown once!)",
            "MTN_MOMO_API_KEY={v}",
            "Clé API MoMo (collection, Côte d'Ivoire) : {v} — ne pas la coller dans le ticket.",
            "momo:\n  target_environment: mtnnigeria\n  api_user: {UUID}\n  api_key: {v}",
        ],
    )
    K(
        S,
        "mtn_momo_subscription_key",
        lambda: s(HEX, 32),
        [
            'curl -X POST https://proxy.momoapi.mtn.com/collection/token/ -H "Ocp-Apim-Subscription-Key: {v}" -u "$MOMO_USER:$MOMO_KEY"',
            "MoMo developer portal, product Collections, primary key: {v}",
            "Kalmar shiga ta MTN MoMo (Ocp-Apim-Subscription-Key) ta sabon asusu: {v} — kada a tura ta WhatsApp.",
        ],
    )
    K(
        S,
        "orange_money_basic_auth",
        lambda: base64.b64encode((s(ALNUM, 32) + ":" + s(ALNUM, 16)).encode()).decode(),
        [
            'curl -X POST https://api.orange.com/oauth/v3/token -H "Authorization: Basic {v}" -d grant_type=client_credentials',
            "En-tête d'autorisation Orange Money (Sénégal, prod) : Authorization: Basic {v}",
            'ORANGE_AUTH_HEADER="Basic {v}"',
        ],
    )
    K(
        S,
        "orange_api_client_secret",
        lambda: s(ALNUM, 16),
        [
            "Orange Developer, appli « haske-om-niger » : client_id {AN32}, client_secret {v}",
            "ORANGE_CLIENT_ID={AN32}\nORANGE_CLIENT_SECRET={v}",
            "OM Niger go-live: secret client régénéré ce matin = {v}. Mettre à jour le worker avant 18h.",
        ],
    )
    K(
        S,
        "wave_api_key",
        lambda: "wave_sn_prod_" + s(B64URL, 44),
        [
            "WAVE_API_KEY={v}",
            "Wave Business (Dakar) checkout key for the Keur Massar sites: {v}",
            'curl https://api.wave.com/v1/checkout/sessions -H "Authorization: Bearer {v}" -d amount=5000 -d currency=XOF',
            "Nouvelle clé API Wave créée par Awa (droits : checkout + balance) : {v}",
        ],
    )
    K(
        S,
        "flutterwave_secret_key",
        lambda: "FLWSECK-" + s(HEX, 32) + "-X",
        [
            "FLW_SECRET_KEY={v}",
            "Flutterwave live secret key (NG merchant 'Haske Power Ltd'): {v}",
            'headers = {"Authorization": "Bearer {v}", "Content-Type": "application/json"}',
            "Ga sabon maɓallin sirri na Flutterwave: {v} — an canza tsohon jiya.",
        ],
    )
    K(
        S,
        "paystack_secret_key",
        lambda: "sk_live_" + s(HEX, 40),
        [
            "PAYSTACK_SECRET_KEY={v}",
            "webhook signature check uses HMAC-SHA512 with the secret key {v} (live)",
            "paystack:\n  public_key: pk_live_{HEX40}\n  secret_key: {v}",
            'curl https://api.paystack.co/transaction/verify/HSK-TOPUP-88213 -H "Authorization: Bearer {v}"',
        ],
    )
    K(
        S,
        "cinetpay_api_key",
        lambda: s(DIG, 12) + s(HEX, 12) + "." + s(DIG, 8),
        [
            "CINETPAY_APIKEY={v}\nCINETPAY_SITE_ID={N6}",
            "CinetPay (Bouaké) : apikey {v}, site_id {N6}. Ne pas committer.",
            '{"apikey": "{v}", "site_id": "{N6}", "transaction_id": "HSK{N8}", "amount": 2500, "currency": "XOF"}',
        ],
    )
    K(
        S,
        "paydunya_private_key",
        lambda: "live_private_" + s(ALNUM, 27),
        [
            "PAYDUNYA-PRIVATE-KEY: {v}",
            "PayDunya prod : master key {AN8}-{AN4}-{AN4}-{AN4}-{AN12}, clé privée {v}",
            "PAYDUNYA_PRIVATE_KEY={v}",
        ],
    )
    K(
        S,
        "africastalking_api_key",
        lambda: "atsk_" + s(HEX, 64),
        [
            "AT_USERNAME=haskepower\nAT_API_KEY={v}",
            "Africa's Talking live key (bulk SMS for token delivery, KE + NG): {v}",
            "africastalking.initialize(username='haskepower', api_key='{v}')",
            "Mabuɗin API na Africa's Talking (don aika token ta SMS): {v}",
        ],
    )
    K(
        S,
        "twilio_auth_token",
        lambda: s(HEX, 32),
        [
            "TWILIO_ACCOUNT_SID=AC{HEX32}\nTWILIO_AUTH_TOKEN={v}",
            "Twilio fallback SMS route: auth token {v} (primary, not the secondary one).",
            "curl -X POST https://api.twilio.com/2010-04-01/Accounts/AC{HEX32}/Messages.json -u AC{HEX32}:{v} --data-urlencode 'Body=Your token: 4821 0093 7714'",
            "Jeton d'authentification Twilio pour l'envoi des codes PAYG : {v}",
        ],
    )
    K(
        S,
        "infobip_api_key",
        lambda: s(HEX, 32) + "-" + uuid(),
        [
            "INFOBIP_API_KEY={v}",
            "Authorization: App {v}",
            "Infobip (Niger + Nigeria SMS) API key created for the token-delivery service: {v}",
            "infobip:\n  base_url: https://{AN6}.api.infobip.com\n  api_key: {v}",
        ],
    )
    K(
        S,
        "termii_api_key",
        lambda: "TL" + s(ALNUM, 60),
        [
            "TERMII_API_KEY={v}",
            '{"to": "2348031234567", "from": "HASKE", "sms": "Token: 1182 9930 1182", "type": "plain", "channel": "dnd", "api_key": "{v}"}',
            "Termii key (DND route, Kano customers): {v}",
        ],
    )
    K(
        S,
        "smpp_bind_password",
        lambda: s(ALNUM, 8),
        [
            "SMPP bind to the aggregator: host smpp.gw-ng.example.net:2775, system_id HASKE01, password {v}",
            'smpp:\n  system_id: HASKETX\n  password: "{v}"\n  system_type: PAYG',
            "Kalmar SMPP (bind transceiver) ta Airtel: {v}",
        ],
    )
    K(
        S,
        "steamaco_api_token",
        lambda: s(HEX, 40),
        [
            "STEAMA_TOKEN={v}",
            'curl -H "Authorization: Token {v}" https://api.steama.co/customers/?site=112',
            "SteamaCo API token for the Tsanyawa and Dutsen Wai sites (user api@haske): {v}",
            "Jeton API SteamaCo (sites de Maradi) : {v}",
        ],
    )
    K(
        S,
        "sparkmeter_api_secret",
        lambda: s(ALNUM, 32),
        [
            "SPARKMETER_API_KEY={AN32}\nSPARKMETER_API_SECRET={v}",
            "Koios API call: -H 'X-API-KEY: {AN32}' -H 'X-API-SECRET: {v}'",
            "SparkMeter cloud (Kibwezi grid) API secret regenerated after Kevin left: {v}",
        ],
    )
    K(
        S,
        "angaza_api_password",
        human,
        [
            "Angaza Connect API user haske-integration@angaza / password {v}",
            "ANGAZA_USERNAME=haske_api\nANGAZA_PASSWORD={v}",
            "Mot de passe de l'utilisateur API Angaza (lampes SHS Zinder) : {v}",
        ],
    )
    K(
        S,
        "openpaygo_secret_key",
        lambda: s(HEX, 32),
        [
            "OpenPAYGO Token device HSK-SHS-0048213: secret_key={v}, starting_code=516959010",
            '{"serial": "HSK-SHS-0051177", "key": "{v}", "starting_code": 839201744, "restricted_digit_set": false}',
            "Mabuɗin sirri na na'ura (OpenPAYGO) don HSK-SHS-0049900: {v}",
            "payg_devices.csv row: HSK-SHS-0050003,{v},123456789,2024-08-12",
        ],
    )
    K(
        S,
        "sts_vending_key",
        lambda: s(UHEX, 16),
        [
            "STS vending key (VK, SGC 600727, KRN 1) loaded on the CIVS HSM: {v}",
            "Clé de vente STS (SGC 600727) : {v} — à garder hors du dépôt.",
            'sts:\n  supply_group_code: "600727"\n  key_revision: 1\n  vending_key_hex: {v}',
        ],
    )
    K(
        S,
        "lorawan_app_key",
        lambda: s(UHEX, 32),
        [
            "LoRa meter HSK-LM-0231 OTAA: DevEUI 70B3D57ED005{UP4}, AppEUI 0000000000000000, AppKey {v}",
            "chirpstack device-keys set --dev-eui 70b3d57ed0051a2f --nwk-key {v}",
            "AppKey na mitar LoRa (Gidan Kwano, layi 3): {v}",
        ],
    )
    K(
        S,
        "mqtt_broker_password",
        lambda: s(ALNUM, 20),
        [
            "MQTT_HOST=mqtt.haske-grid.com\nMQTT_USER=meter-gw\nMQTT_PASSWORD={v}",
            "mosquitto_sub -h mqtt.haske-grid.com -p 8883 -u scada-reader -P '{v}' -t 'site/+/meters/#'",
            "Mot de passe du broker MQTT (passerelle compteurs Dosso) : {v}",
            "mqtt:\n  username: gw-kibwezi\n  password: {v}\n  tls: true",
        ],
    )
    K(
        S,
        "victron_vrm_token",
        lambda: s(HEX, 64),
        [
            "VRM_TOKEN={v}",
            'curl -H "X-Authorization: Token {v}" https://vrmapi.victronenergy.com/v2/installations/21844/stats',
            "Victron VRM access token (installer account, all 14 sites): {v}",
        ],
    )
    K(
        S,
        "inverter_installer_password",
        human,
        [
            "SMA Sunny Island cluster at Dutsen Wai — installer password: {v}",
            "Mot de passe installateur onduleur (Maradi PV 2) : {v}. Ne pas le donner à l'équipe O&M locale.",
            "Kalmar sirrin injiniya ta inverter a tashar Tsanyawa: {v}",
        ],
    )
    K(
        S,
        "scada_hmi_password",
        human,
        [
            "SCADA HMI at Gidan Kwano plant, admin / {v}",
            "Ignition gateway (scada.haske-grid.com:8088) admin password reset to {v} after the lockout.",
            "Accès IHM SCADA Dan Issa : opérateur = {v}",
            "Handover: PLC web server user 'engineer', pwd {v} — genset autostart logic lives there.",
        ],
    )
    K(
        S,
        "router_admin_password",
        human,
        [
            "Teltonika RUT955 (Kibwezi site router) WebUI admin password: {v}",
            "4G router at Tsanyawa: 192.168.1.1, admin / {v}",
            "Routeur Huawei du site Bouza : identifiant admin, mot de passe {v}",
            "Kalmar router na tashar Gidan Kwano ita ce {v}",
        ],
    )
    K(
        S,
        "wifi_passphrase",
        human,
        [
            "Site office Wi-Fi SSID HASKE-OPS, WPA2 key {v}",
            "Wi-Fi na ofishin Kano: sunan HaskeStaff, kalmar sirri {v}",
            "Wi-Fi salle de contrôle (Zinder) : mot de passe {v}",
        ],
    )
    K(
        S,
        "field_phone_unlock_pin",
        lambda: s(DIG, r.choice([4, 6])),
        [
            "Field phone FA-KN-017 (Tecno Spark 10) unlock PIN {v} — Musa's handset, returned to stores.",
            "Lambar buɗe wayar wakili Aminu: {v}",
            "Code de déverrouillage du téléphone terrain FA-NE-004 : {v}",
            "MDM note: shared tablet at Kibwezi depot, screen PIN {v}",
        ],
    )
    K(
        S,
        "mobile_money_agent_pin",
        lambda: s(DIG, r.choice([4, 5])),
        [
            "M-Pesa agent till 5512093 operator PIN: {v}",
            "Lambar sirrin wakilin kuɗi (MoMo agent) na Tsanyawa: {v}. Kada ka faɗa wa kowa.",
            "Code secret du compte agent Orange Money (kiosque Bouza) : {v}",
            "Float top-up today: Airtel Money agent PIN {v}, agent code 88213",
        ],
    )
    K(
        S,
        "wireguard_private_key",
        lambda: b64(32),
        [
            "[Interface]\nPrivateKey = {v}\nAddress = 10.66.0.14/32\n\n[Peer]\nPublicKey = {AN43}=\nEndpoint = vpn.haske-grid.com:51820",
            "wg set wg0 private-key <(echo {v})",
            "WireGuard private key for the Dosso site gateway: {v}",
        ],
    )
    K(
        S,
        "ssh_private_key",
        lambda: pem(
            "OPENSSH PRIVATE KEY",
            300,
            "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZWQyNTUxOQAAACB",
        ),
        [
            "Deploy key for the meter-gateway fleet (Raspberry Pis), paste into ~/.ssh/id_ed25519:\n{v}",
            "Clé SSH du serveur SCADA (ne pas partager) :\n{v}",
            "cat > /root/.ssh/haske_gw <<'KEY'\n{v}\nKEY",
        ],
    )
    K(
        S,
        "aws_secret_access_key",
        lambda: s(B64, 40),
        [
            "AWS_ACCESS_KEY_ID=AKIA{UP16}\nAWS_SECRET_ACCESS_KEY={v}",
            "[haske-prod]\naws_access_key_id = AKIA{UP16}\naws_secret_access_key = {v}\nregion = eu-west-1",
            "S3 meter-data bucket uploader creds: AKIA{UP16} / {v}",
            "Clé secrète AWS du compte sauvegardes SCADA : {v}",
        ],
    )
    K(
        S,
        "github_pat",
        lambda: "ghp_" + s(ALNUM, 36),
        [
            "GITHUB_TOKEN={v}",
            "git clone https://haske-ci:{v}@github.com/haske-power/payg-engine.git",
            "PAT for the release bot (repo + workflow scopes): {v}",
            "Token GitHub de Moussa pour le dépôt firmware : {v}",
        ],
    )
    K(
        S,
        "gitlab_pat",
        lambda: "glpat-" + s(B64URL, 20),
        [
            "GITLAB_TOKEN={v}",
            'curl --header "PRIVATE-TOKEN: {v}" https://gitlab.haske-grid.com/api/v4/projects/42/pipelines',
            "Token GitLab (runner SCADA) : {v}",
        ],
    )
    K(
        S,
        "slack_webhook_url",
        lambda: (
            "https://hooks.slack.com/services/T"
            + s(UPNUM, 8)
            + "/B"
            + s(UPNUM, 10)
            + "/"
            + s(ALNUM, 24)
        ),
        [
            "ALERT_WEBHOOK={v}",
            "Genset fuel alarms go to #ops-kibwezi via {v}",
            "curl -X POST -H 'Content-type: application/json' --data '{\"text\":\"Battery SOC < 20% at Dutsen Wai\"}' {v}",
            "webhook Slack pour les alarmes onduleur : {v}",
        ],
    )
    K(
        S,
        "telegram_bot_token",
        lambda: str(r.randint(5000000000, 7999999999)) + ":AA" + s(B64URL, 33),
        [
            "TELEGRAM_BOT_TOKEN={v}",
            "Field agents' daily cash report bot (@HaskeAgentsBot) token: {v}",
            "Tokin bot na Telegram na wakilai: {v}",
            "curl https://api.telegram.org/bot{v}/sendMessage -d chat_id=-1001873345120 -d text='Meter offline: SM-07-0001A3F2'",
        ],
    )
    K(
        S,
        "whatsapp_cloud_token",
        lambda: "EAA" + s(ALNUM, 180),
        [
            "WHATSAPP_TOKEN={v}",
            "Meta system user token for the WhatsApp top-up bot (permanent, no expiry): {v}",
            "curl -X POST https://graph.facebook.com/v19.0/11{N13}/messages -H 'Authorization: Bearer {v}'",
        ],
    )
    K(
        S,
        "postgres_url_password",
        lambda: "postgresql://payg_app:" + human() + "@db.haske-grid.internal:5432/payg",
        [
            "DATABASE_URL={v}",
            "psql \"{v}\" -c 'select count(*) from token_sales'",
            "Read replica for Metabase: {v}?sslmode=require",
            "Chaîne de connexion de la base PAYG (prod) : {v}",
        ],
    )
    K(
        S,
        "mongodb_uri_password",
        lambda: "mongodb+srv://meterlog:" + s(ALNUM, 16) + "@cluster0.k3xq9.mongodb.net/telemetry",
        [
            "MONGO_URI={v}",
            "Telemetry archive (Atlas) connection: {v}?retryWrites=true&w=majority",
            "Haɗin MongoDB na bayanan mita: {v}",
        ],
    )
    K(
        S,
        "redis_url_password",
        lambda: "redis://:" + s(ALNUM, 24) + "@redis.haske-grid.internal:6379/2",
        [
            "REDIS_URL={v}",
            'celery broker_url = "{v}"',
            "Token-queue Redis (USSD sessions): {v}",
        ],
    )
    K(
        S,
        "fcm_server_key",
        lambda: "AAAA" + s(B64URL, 7) + ":APA91b" + s(B64URL, 134),
        [
            "FCM_SERVER_KEY={v}",
            "Push to the agent app (legacy FCM): Authorization: key={v}",
            "Clé serveur Firebase de l'appli agents terrain : {v}",
        ],
    )
    K(
        S,
        "azure_storage_account_key",
        lambda: b64(64),
        [
            "AZURE_STORAGE_CONNECTION_STRING=DefaultEndpointsProtocol=https;AccountName=haskemeterdata;AccountKey={v};EndpointSuffix=core.windows.net",
            "Storage account haskescadabk, key1: {v}",
            "az storage blob upload --account-name haskemeterdata --account-key {v} -c daily -f kibwezi_2024-11-30.parquet",
        ],
    )
    K(
        S,
        "gcp_service_account_key",
        lambda: pem(
            "PRIVATE KEY", 630, "MIIEvgIBADANBgkqhkiG9w0BAQEFAASCBKgwggSkAgEAAoIBAQ"
        ).replace("\n", "\\n"),
        [
            '{"type": "service_account", "project_id": "haske-analytics", "private_key_id": "{HEX40}", "private_key": "{v}", "client_email": "bq-loader@haske-analytics.iam.gserviceaccount.com"}',
            'GOOGLE_PRIVATE_KEY="{v}"',
        ],
    )
    K(
        S,
        "jwt_signing_secret",
        lambda: s(B64URL, 48),
        [
            "JWT_SECRET={v}",
            "Agent app sessions are HS256-signed with {v} — same key in api and ussd service.",
            'auth:\n  jwt_secret: "{v}"\n  access_ttl: 15m',
        ],
    )
    K(
        S,
        "django_secret_key",
        lambda: s(LOWNUM + "!@#%^&*(-_=+)", 50),
        [
            "SECRET_KEY = '{v}'",
            "DJANGO_SECRET_KEY={v}",
            "Clé secrète Django du back-office PAYG (prod) : {v}",
        ],
    )
    K(
        S,
        "sendgrid_api_key",
        lambda: "SG." + s(B64URL, 22) + "." + s(B64URL, 43),
        [
            "SENDGRID_API_KEY={v}",
            "Monthly statements to investors are mailed through SendGrid, key {v}",
            "Clé SendGrid (reçus clients par e-mail) : {v}",
        ],
    )
    K(
        S,
        "openai_api_key",
        lambda: "sk-proj-" + s(B64URL, 156),
        [
            "OPENAI_API_KEY={v}",
            "The call-centre summariser uses {v} (project 'haske-support').",
            "Maɓallin OpenAI na bot ɗin tallafi: {v}",
        ],
    )
    K(
        S,
        "anthropic_api_key",
        lambda: "sk-ant-api03-" + s(B64URL, 93) + "AA",
        [
            "ANTHROPIC_API_KEY={v}",
            "Agent memory: coding agent for the payg-engine repo authenticates with {v}; do not echo it in logs.",
            "Clé Anthropic de l'équipe data : {v}",
        ],
    )
    K(
        S,
        "vault_token",
        lambda: "hvs." + s(ALNUM, 91),
        [
            "VAULT_TOKEN={v}",
            "vault login {v}",
        ],
    )
    K(
        S,
        "odk_app_user_token",
        lambda: s(ALNUM + "!$", 64),
        [
            "ODK Collect server URL for the site-survey app users: https://odk.haske-grid.com/v1/key/{v}/projects/3",
            "Lien de configuration ODK (enquêtes ménages, Dosso) : https://odk.haske-grid.com/v1/key/{v}/projects/5",
            "Tokin app-user na ODK Central (binciken gidaje, Kano): {v}",
        ],
    )
    K(
        S,
        "erpnext_api_secret",
        lambda: s(LOWNUM, 15),
        [
            "ERPNext integration: Authorization: token {AN15}:{v}",
            "ERP_API_KEY={AN15}\nERP_API_SECRET={v}",
            "Secret API ERPNext (stock compteurs) : {v}",
        ],
    )
    K(
        S,
        "mfa_recovery_codes",
        lambda: " ".join(s(LOWNUM, 4) + "-" + s(LOWNUM, 4) for _ in range(6)),
        [
            "GitHub org owner backup codes (Ibrahim's account): {v}",
            "Codes de récupération 2FA du compte Safaricom Daraja : {v}",
            "Lambobin dawo da asusun Google Workspace na shugaba: {v}",
        ],
    )
    K(
        S,
        "http_basic_auth_url",
        lambda: "https://collector:" + s(ALNUM, 14) + "@meters.haske-grid.com/ingest",
        [
            "METER_INGEST_URL={v}",
            "Gateway cron posts readings to {v} every 15 min",
            "URL d'envoi des relevés (passerelle Dosso) : {v}",
        ],
    )
    K(
        S,
        "grafana_service_token",
        lambda: "glsa_" + s(ALNUM, 32) + "_" + s(HEX, 8),
        [
            "GRAFANA_TOKEN={v}",
            "Provisioning the plant dashboards via API with service account token {v}",
            "Jeton Grafana (tableaux de bord SCADA) : {v}",
        ],
    )
    K(
        S,
        "docker_hub_pat",
        lambda: "dckr_pat_" + s(B64URL, 27),
        [
            "docker login -u haskepower -p {v}",
            "DOCKERHUB_TOKEN={v}",
        ],
    )
    K(
        S,
        "npm_token",
        lambda: "npm_" + s(ALNUM, 36),
        [
            "//registry.npmjs.org/:_authToken={v}",
            "NPM_TOKEN={v}  # publishes @haske/ussd-menu",
        ],
    )

    # ------------------------------------------------------------------ benign
    K(
        B,
        "meter_serial",
        lambda: "SM60R-" + s(DIG, 2) + "-" + s(UHEX, 8),
        [
            "Customer at Kibwezi plot 41 swapped to meter {v} after the relay failure.",
            "Mitar {v} ba ta aika bayani tun jiya, a duba antenna.",
            "Compteur {v} remplacé, ancien compteur renvoyé à Niamey.",
            "meters.csv: {v},Kibwezi,feeder-2,single-phase,active",
        ],
    )
    K(
        B,
        "sts_meter_number",
        lambda: luhn("0" + s(DIG, 9)),
        [
            "STS meter number {v} — customer says the token was rejected with 'Err 30'.",
            "Lambar mita (STS) ta Malam Sani: {v}",
            "Numéro de compteur STS : {v}, SGC 600727",
            "vend request: meter={v} amount=1000 NGN",
        ],
    )
    K(
        B,
        "customer_account_id",
        lambda: "HSK-" + r.choice(["KN", "KE", "NE", "SN"]) + "-" + s(DIG, 6),
        [
            "Customer {v} disputes the November bill; escalate to Amina.",
            "Asusun abokin ciniki {v} ya biya N5,000 ta Opay.",
            "Client {v} : changement de forfait vers « Boutique 2 kWh/j ».",
            "| {v} | Tsanyawa | residential | 34 kWh |",
        ],
    )
    K(
        B,
        "mpesa_receipt_code",
        lambda: r.choice("QRST") + s(UPNUM, 9),
        [
            "M-Pesa receipt {v} received, token 4 days credit issued.",
            "Customer sent confirmation SMS: '{v} Confirmed. Ksh500.00 sent to HASKE POWER for account HSK-KE-004112'",
            "C2B callback: TransID={v}, TransAmount=200, BillRefNumber=HSK-KE-000873",
        ],
    )
    K(
        B,
        "momo_reference_uuid",
        uuid,
        [
            "X-Reference-Id: {v}",
            "MoMo request-to-pay {v} stayed PENDING for 10 min, customer never approved on the handset.",
            "Référence de transaction MoMo : {v} (statut SUCCESSFUL)",
            "Lambar cinikin MoMo: {v}",
        ],
    )
    K(
        B,
        "paybill_till_number",
        lambda: s(DIG, 6),
        [
            "Customers pay to Paybill {v}, account = meter number.",
            "Till number for Kibwezi kiosk: {v}",
            "Lipa na M-Pesa: Paybill {v} (Haske Power Kenya Ltd)",
        ],
    )
    K(
        B,
        "daraja_sandbox_passkey",
        lambda: "bfb279f9aa9bdbcf158e97dd71a467cd2e0c893059b10f78e6b72ada1ed2c919",
        [
            "Sandbox only: shortcode 174379 with the public test passkey {v} from the Daraja docs.",
            "# documented sandbox passkey, safe to commit\nLNM_PASSKEY_SANDBOX={v}",
            "tests/fixtures/stk.json uses the Safaricom sample passkey {v}",
        ],
    )
    K(
        B,
        "flutterwave_public_key",
        lambda: "FLWPUBK-" + s(HEX, 32) + "-X",
        [
            "Inline checkout on the web portal uses public key {v} (safe in the browser).",
            "NEXT_PUBLIC_FLW_PUBLIC_KEY={v}",
            "Clé publique Flutterwave (front) : {v}",
        ],
    )
    K(
        B,
        "paystack_public_key",
        lambda: "pk_live_" + s(HEX, 40),
        [
            "PAYSTACK_PUBLIC_KEY={v}",
            "PaystackPop.setup({ key: '{v}', email: c.email, amount: 500000 })",
            "Publishable key for the top-up page: {v}",
        ],
    )
    K(
        B,
        "twilio_account_sid",
        lambda: "AC" + s(HEX, 32),
        [
            "Twilio account SID {v} (the auth token is in Vault, not here).",
            "TWILIO_ACCOUNT_SID={v}",
            "Numéro de compte Twilio (SID) : {v}",
        ],
    )
    K(
        B,
        "aws_documented_example_key",
        lambda: r.choice(["AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"]),
        [
            "The onboarding doc uses AWS's sample credential {v} — replace it with your own profile.",
            '# example from the AWS docs, not a real key\naws_key = "{v}"',
            "Misali daga takardun AWS: {v}",
        ],
    )
    K(
        B,
        "git_commit_sha",
        lambda: s(HEX, 40),
        [
            "Hotfix for the double-token bug is commit {v} on payg-engine main.",
            "Déployé en prod : {v}",
            "deploy log: payg-engine@{v} rolled out to ke-prod",
            "git revert {v}",
        ],
    )
    K(
        B,
        "firmware_sha256",
        lambda: s(HEX, 64),
        [
            "Gateway firmware haske-gw-2.8.1.bin sha256 {v}",
            "{v}  sm60r_fw_3.2.0.hex",
            "Empreinte SHA-256 du firmware compteur v3.2.0 : {v}",
            "Hash na firmware (a duba kafin a saka): {v}",
        ],
    )
    K(
        B,
        "container_image_digest",
        lambda: "sha256:" + s(HEX, 64),
        [
            "image: ghcr.io/haske-power/token-vendor@{v}",
            "Pinned ussd-gateway to digest {v} after the rollback.",
            "docker pull haskepower/meter-ingest@{v}",
        ],
    )
    K(
        B,
        "wireguard_public_key",
        lambda: b64(32),
        [
            "[Peer]\nPublicKey = {v}\nAllowedIPs = 10.66.0.21/32",
            "Public key of the Kibwezi gateway (add it as a peer): {v}",
            "Clé publique WireGuard du site Dosso : {v}",
        ],
    )
    K(
        B,
        "ssh_public_key",
        lambda: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + s(B64, 43),
        [
            "Add to authorized_keys on the SCADA box: {v} fatima@haske-laptop",
            "Maɓallin jama'a na Yusuf (SSH): {v}",
            "{v} ci-deploy@haske",
        ],
    )
    K(
        B,
        "ssh_host_fingerprint",
        lambda: "SHA256:" + s(B64, 43),
        [
            "Host key of scada-kibwezi is ED25519 {v} — verify before accepting.",
            "ED25519 key fingerprint is {v}.",
            "Empreinte de la clé hôte (passerelle Maradi) : {v}",
        ],
    )
    K(
        B,
        "x509_certificate",
        lambda: pem("CERTIFICATE", 420, "MIIDazCCAlOgAwIBAgIU"),
        [
            "Broker CA cert (public, install on every gateway):\n{v}",
            "ca.crt pour le broker MQTT :\n{v}",
        ],
    )
    K(
        B,
        "env_var_reference",
        lambda: r.choice(
            [
                "${MPESA_CONSUMER_SECRET}",
                "$FLW_SECRET_KEY",
                "${SPARKMETER_API_SECRET}",
                "${{ secrets.AT_API_KEY }}",
                'os.environ["PAYSTACK_SECRET_KEY"]',
                "${TWILIO_AUTH_TOKEN}",
            ]
        ),
        [
            "mpesa:\n  consumer_secret: {v}",
            "api_key = {v}",
            "Dans le workflow, le secret vient de {v}",
            'curl -H "Authorization: Bearer {v}" https://api.example.invalid/',
            "A karanta kalmar sirri daga {v}, kada a rubuta ta a code.",
        ],
    )
    K(
        B,
        "vault_path",
        lambda: (
            "secret/data/"
            + r.choice(
                [
                    "payg/mpesa",
                    "payg/flutterwave",
                    "scada/kibwezi",
                    "sms/africastalking",
                    "meters/sparkmeter",
                    "field/routers",
                ]
            )
        ),
        [
            "Creds moved to Vault at {v}",
            "vault kv get {v}",
            "Les identifiants se trouvent dans {v} (demander l'accès à Ousmane).",
            "Kalmar sirrin tana cikin Vault a {v}",
        ],
    )
    K(
        B,
        "placeholder_value",
        lambda: r.choice(
            [
                "<YOUR_CONSUMER_SECRET>",
                "xxxxxxxxxxxxxxxxxxxxxxxx",
                "your-api-key-here",
                "CHANGE_ME",
                "<mot-de-passe>",
                "REPLACE_WITH_PASSKEY",
                "********",
            ]
        ),
        [
            "MPESA_CONSUMER_SECRET={v}",
            'api_key: "{v}"  # fill in locally',
            "Exemple : MOT_DE_PASSE_ROUTEUR={v}",
            ".env.example -> AT_API_KEY={v}",
            "Saka kalmar sirrinka a nan: {v}",
        ],
    )
    K(
        B,
        "masked_secret",
        lambda: (
            r.choice(["sk_live_", "FLWSECK-", "atsk_", "ghp_", "glpat-"])
            + "*" * r.randint(8, 20)
            + s(HEX, 4)
        ),
        [
            "Dashboard shows the key as {v}; full value only in Vault.",
            "Rotated key, new one ends {v}",
            "Clé affichée masquée : {v}",
            "log: using api_key={v}",
            "Maɓalli (an ɓoye): {v}",
        ],
    )
    K(
        B,
        "revoked_key",
        lambda: "FLWSECK-" + s(HEX, 32) + "-X",
        [
            "REVOKED on 2024-10-02 after the laptop theft, do not use: {v}",
            "Old Flutterwave secret {v} was rolled and is dead (returns 401).",
            "Clé révoquée (incident INC-0412), conservée pour l'audit : {v}",
            "An soke wannan maɓalli, ba ya aiki: {v}",
        ],
    )
    K(
        B,
        "ticket_reference",
        lambda: r.choice(["OPS", "PAYG", "SCADA", "FIELD"]) + "-" + str(r.randint(100, 4999)),
        [
            "Tracked in {v}: meters at Tsanyawa reboot every night at 02:00.",
            "Voir {v} pour la panne du groupe électrogène.",
            "An buɗe tikiti {v} don gyaran inverter.",
            "Closes {v}",
        ],
    )
    K(
        B,
        "firmware_version",
        lambda: f"{r.randint(1, 4)}.{r.randint(0, 20)}.{r.randint(0, 9)}",
        [
            "Gateways upgraded to haske-gw {v}",
            "Version du firmware compteur : {v}",
            "SMA Sunny Island firmware {v} fixes the generator-start bug.",
            "An sabunta manhajar wakilai zuwa {v}",
        ],
    )
    K(
        B,
        "field_phone_imei",
        lambda: luhn("35" + s(DIG, 12)),
        [
            "Lost phone FA-KN-022, IMEI {v} — blocked with MTN.",
            "IMEI na wayar wakili Hauwa: {v}",
            "Téléphone terrain IMEI {v} enrôlé dans le MDM.",
            "devices.csv: FA-KE-009,{v},Tecno Spark 10,Kibwezi",
        ],
    )
    K(
        B,
        "sim_iccid",
        lambda: luhn("89234" + s(DIG, 14)),
        [
            "Gateway SIM ICCID {v} (MTN NG data bundle 10GB).",
            "ICCID de la carte SIM du routeur Bouza : {v}",
            "SIM na router (ICCID): {v}",
            "sim_inventory: {v}, airtel, active",
        ],
    )
    K(
        B,
        "lorawan_dev_eui",
        lambda: "70B3D57ED005" + s(UHEX, 4),
        [
            "DevEUI {v} joined at 07:41 (SF9).",
            "Mita LoRa mai DevEUI {v} ba ta shiga network ba.",
            "DevEUI du compteur LoRa : {v}",
        ],
    )
    K(
        B,
        "modbus_register",
        lambda: str(r.choice([30775, 30843, 30845, 40009, 40210, 843, 259])),
        [
            "Battery SOC is read from Modbus register {v} (unit id 3).",
            "Registre Modbus {v} = puissance AC totale (W).",
            "modbus: {unit: 100, register: {v}, type: uint16}",
        ],
    )
    K(
        B,
        "gps_coordinates",
        lambda: f"{r.uniform(11.5, 13.5):.5f}, {r.uniform(7.5, 9.0):.5f}",
        [
            "Tsanyawa plant gate: {v}",
            "Wurin tashar: {v}",
            "Coordonnées du site : {v}",
        ],
    )
    K(
        B,
        "site_code",
        lambda: r.choice(["NG-KN", "NG-KD", "NE-MR", "NE-ZR", "KE-MK", "SN-TH"]) + "-" + s(DIG, 3),
        [
            "Site {v} back online after the inverter reset.",
            "Tashar {v} tana buƙatar sabbin batura.",
            "Site {v} : production PV 412 kWh hier.",
            "sites.yaml: - code: {v}\n  capacity_kwp: 80",
        ],
    )
    K(
        B,
        "invoice_number",
        lambda: "INV-2024-" + s(DIG, 5),
        [
            "Battery supplier invoice {v} paid on 3 Dec.",
            "Facture {v} (panneaux 550 W, 120 pièces).",
            "Takardar biya {v} ta isa.",
        ],
    )
    K(
        B,
        "bank_account_number",
        lambda: s(DIG, 10),
        [
            "Collections settle to GTBank account {v} (Haske Power Ltd).",
            "Compte bancaire de règlement Wave : {v}",
            "Lambar asusun banki: {v} (Zenith)",
        ],
    )
    K(
        B,
        "sts_supply_group_code",
        lambda: s(DIG, 6),
        [
            "STS supply group code {v}, key revision 1, tariff index 01.",
            "SGC {v} — à renseigner dans le vendeur pour les nouveaux compteurs.",
            "Lambar SGC ta mitocin Kano: {v}",
        ],
    )
    K(
        B,
        "recaptcha_site_key",
        lambda: "6L" + s(B64URL, 38),
        [
            "reCAPTCHA site key for the customer portal: {v}",
            '<div class="g-recaptcha" data-sitekey="{v}"></div>',
            "Clé de site reCAPTCHA (publique) : {v}",
        ],
    )
    K(
        B,
        "mapbox_public_token",
        lambda: "pk.eyJ1IjoiaGFza2Vwb3dlciIsImEiOiJ" + s(B64URL, 24) + "." + s(B64URL, 22),
        [
            "Public Mapbox token for the site map (URL-restricted to haske-grid.com): {v}",
            "NEXT_PUBLIC_MAPBOX_TOKEN={v}",
        ],
    )
    K(
        B,
        "password_policy_text",
        lambda: r.choice(
            [
                "at least 12 characters",
                "12 caractères minimum",
                "lambobi 6 ba tare da maimaitawa ba",
                "rotated every 90 days",
            ]
        ),
        [
            "Policy: router and HMI passwords must be {v}, unique per site.",
            "Règle : mot de passe {v}, jamais partagé par WhatsApp.",
            "Dokar PIN na wakilai: {v}.",
            "Agents' PINs are personal; admin passwords {v}.",
        ],
    )
    K(
        B,
        "bcrypt_hash",
        lambda: "$2b$12$" + s(ALNUM + "./", 53),
        [
            "users table row: agent_017 | {v}",
            "Hash bcrypt stocké pour l'opérateur HMI : {v}",
            'password_hash: "{v}"',
        ],
    )
    K(
        B,
        "cron_schedule",
        lambda: r.choice(["*/15 * * * *", "0 2 * * *", "30 6 * * 1-5"]),
        [
            "Meter sync job runs on {v}",
            "Tâche de rapprochement M-Pesa : {v}",
            'schedule: "{v}"',
        ],
    )
    K(
        B,
        "slack_channel_id",
        lambda: "C0" + s(UPNUM, 9),
        [
            "Alerts go to channel {v} (#ops-kibwezi).",
            "SLACK_CHANNEL_ID={v}",
            "Canal Slack des alarmes : {v}",
        ],
    )
    K(
        B,
        "telegram_chat_id",
        lambda: "-100" + s(DIG, 10),
        [
            "Agents group chat id {v}",
            "TELEGRAM_CHAT_ID={v}",
            "ID na rukunin wakilai a Telegram: {v}",
        ],
    )
    K(
        B,
        "flight_booking_ref",
        lambda: s(UP, 6),
        [
            "Musa's flight Abuja–Niamey, booking ref {v}, Thursday 07:10.",
            "Réservation vol Dakar (Air Sénégal) : {v}",
            "Lambar tikitin jirgi: {v}",
        ],
    )
    K(
        B,
        "k8s_secret_ref",
        lambda: r.choice(["mpesa-creds", "flutterwave-keys", "sms-gateway", "scada-db"]),
        [
            "env:\n  - name: MPESA_CONSUMER_SECRET\n    valueFrom:\n      secretKeyRef:\n        name: {v}\n        key: consumer_secret",
            "kubectl -n payg describe secret {v}",
            "Le secret Kubernetes {v} est géré par external-secrets.",
        ],
    )
    K(
        B,
        "infobip_base_url",
        lambda: "https://" + s(LOWNUM, 6) + ".api.infobip.com",
        [
            "Infobip base URL: {v}",
            "INFOBIP_BASE_URL={v}",
            "URL de base Infobip : {v}",
        ],
    )
    K(
        B,
        "cinetpay_site_id",
        lambda: s(DIG, 6),
        [
            "CinetPay site_id {v} (the apikey is in Vault).",
            "CINETPAY_SITE_ID={v}",
            "Identifiant de site CinetPay : {v}",
        ],
    )
    K(
        B,
        "mtn_momo_api_user",
        uuid,
        [
            "MoMo API user id {v} (the key is stored separately).",
            "MOMO_API_USER={v}",
            "Utilisateur API MoMo : {v}",
        ],
    )
    K(
        B,
        "sms_sender_id",
        lambda: r.choice(["HASKE", "HaskePower", "HASKE-NE", "HSKTOKEN"]),
        [
            "Sender ID {v} approved by NCC for DND routes.",
            "Expéditeur SMS : {v}",
            "Sunan mai aikawa da SMS: {v}",
        ],
    )
    K(
        B,
        "smpp_system_id",
        lambda: "HASKE" + s(UPNUM, 3),
        [
            "SMPP system_id {v}, window size 10, throughput 30 msg/s.",
            "system_id SMPP : {v}",
            "bind_transceiver system_id={v} status=ESME_ROK",
        ],
    )
    K(
        B,
        "mac_address",
        lambda: ":".join(s("0123456789ABCDEF", 2) for _ in range(6)),
        [
            "Gateway eth0 MAC {v}",
            "Adresse MAC du routeur : {v}",
            "MAC na router: {v}",
        ],
    )
    K(
        B,
        "ip_subnet",
        lambda: f"10.{r.randint(10, 99)}.{r.randint(0, 255)}.0/24",
        [
            "Kibwezi plant LAN {v}, SCADA on .10",
            "Sous-réseau du site de Maradi : {v}",
            "AllowedIPs = {v}",
        ],
    )
    K(
        B,
        "purchase_order",
        lambda: "PO-" + s(DIG, 6),
        [
            "Inverters ordered under {v}, ETA Lagos port 12 Jan.",
            "Bon de commande {v} (batteries LFP 48 V).",
            "Odar saye {v} an amince.",
        ],
    )
    K(
        B,
        "kms_key_arn",
        lambda: "arn:aws:kms:eu-west-1:" + s(DIG, 12) + ":key/" + uuid(),
        [
            "Token vault table is encrypted with {v}",
            'kms_key_id = "{v}"',
            "Clé KMS utilisée pour les sauvegardes : {v}",
        ],
    )
    K(
        B,
        "npm_integrity_hash",
        lambda: "sha512-" + b64(64),
        [
            '"integrity": "{v}"',
            "lockfile integrity for @haske/ussd-menu: {v}",
        ],
    )
    K(
        B,
        "test_card_number",
        lambda: r.choice(["4187427415564246", "5531886652142950", "4084084084084081"]),
        [
            "Flutterwave/Paystack test card {v}, CVV 828, any future expiry.",
            "Carte de test (documentation) : {v}",
            "Katin gwaji kawai: {v}",
        ],
    )
    K(
        B,
        "trace_id",
        lambda: s(HEX, 32),
        [
            "ERROR token-vendor trace_id={v} upstream timeout from Daraja",
            "Trace {v} montre le retard du callback MoMo.",
            '2024-11-30T02:00:04Z WARN meter-sync trace={v} msg="retrying site NG-KN-012"',
        ],
    )
    K(
        B,
        "mobile_money_agent_code",
        lambda: s(DIG, 6),
        [
            "Agent number {v} (Tsanyawa kiosk) — float low.",
            "Code agent Orange Money : {v}",
            "Lambar wakili {v} ta karɓi kuɗi daga abokan ciniki 14 yau.",
        ],
    )
    K(
        B,
        "ussd_short_code",
        lambda: r.choice(["*384*2112#", "*483*77#", "*710*4413#"]),
        [
            "Customers dial {v} to buy tokens.",
            "Les clients composent {v} pour acheter du crédit.",
            "A danna {v} don sayen wuta.",
        ],
    )
    K(
        B,
        "payg_device_serial",
        lambda: "HSK-SHS-" + s(DIG, 7),
        [
            "Solar home system {v} reported tamper alarm.",
            "Na'urar {v} an dawo da ita ofis.",
            "Kit {v} : batterie remplacée sous garantie.",
        ],
    )
    K(
        B,
        "gpg_key_fingerprint",
        lambda: " ".join(s(UHEX, 4) for _ in range(10)),
        [
            "Release signing key fingerprint: {v}",
            "Empreinte de la clé GPG de publication : {v}",
        ],
    )
    K(
        B,
        "tariff_code",
        lambda: r.choice(["RES-A", "COM-B", "PROD-MILL", "KIOSK-1"]) + "-" + s(DIG, 2),
        [
            "Mill owners moved to tariff {v} (NGN 250/kWh).",
            "Tarif {v} appliqué aux boutiques de Zinder.",
            "Kuɗin wuta {v} ga masu niƙa.",
        ],
    )

    return rows


def main() -> None:
    rows = corpus()
    out = open(sys.argv[1], "w", encoding="utf-8") if len(sys.argv) > 1 else sys.stdout
    try:
        for row in rows:
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    finally:
        if out is not sys.stdout:
            out.close()


if __name__ == "__main__":
    main()

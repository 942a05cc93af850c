# ruff: noqa: E501, SIM115
"""Blind secret-detector corpus 102: humanitarian NGO field operations.

Brief: notes, handovers, chat lines, commands, config, YAML/JSON, URLs, tables and
logs kept by the IT/telecoms, MEAL and cash teams of a humanitarian NGO running field
offices (satellite phones, BGAN/VSAT/Starlink terminals, KoboToolbox/ODK/CommCare data
collection, mobile-money cash transfers via M-Pesa, MTN MoMo, Orange Money, plus the
generic developer stack). English, French, Spanish, Swahili and Arabic.

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Run: python blind_secrets_102.py [out.jsonl]

Kinds, secret: satphone_sim_pin, sim_puk_code, bgan_terminal_admin_password,
vsat_modem_admin_password, lte_router_admin_password, wifi_psk, kobo_api_token,
odk_central_app_user_token, odk_central_web_password, commcare_api_key,
mpesa_consumer_secret, mpesa_passkey, mpesa_initiator_password,
mpesa_security_credential, momo_api_key, momo_subscription_key,
orange_money_basic_auth, mobile_money_wallet_pin, flutterwave_secret_key,
paystack_secret_key, stripe_secret_key, twilio_auth_token, africastalking_api_key,
rapidpro_api_token, whatsapp_cloud_access_token, telegram_bot_token,
slack_webhook_url, teams_webhook_url, aws_secret_access_key, github_token,
gitlab_token, postgres_url_with_password, mongodb_uri_with_password,
dhis2_personal_access_token, dhis2_admin_password, door_or_safe_code,
ssh_private_key, ipsec_psk, wireguard_private_key, sendgrid_api_key,
azure_storage_connection_string, gcp_service_account_key, django_secret_key,
password_manager_master_password, mfa_recovery_codes, shared_mailbox_password,
radio_encryption_key, bitlocker_recovery_key, entra_client_secret, openai_api_key,
cash_voucher_redemption_pin, google_app_password.

Kinds, benign: iridium_imei, satphone_number, sim_iccid, terminal_serial_number,
kobo_asset_uid, odk_form_id_version, submission_instance_id, mpesa_transaction_id,
mpesa_shortcode_till, momo_reference_id, beneficiary_case_id, distribution_batch_id,
git_commit_sha, apk_sha256_checksum, ssh_public_key, pgp_fingerprint,
x509_certificate, publishable_key, recaptcha_site_key, documented_example_key,
placeholder_value, env_var_reference, vault_path, masked_secret, revoked_key,
password_policy_text, it_ticket_reference, travel_booking_reference,
app_build_version, request_correlation_id, ip_address_or_subnet, mac_address,
ocha_pcode, unhcr_progres_id, vehicle_fleet_number, donor_grant_code,
bank_account_iban, swift_bic, slack_channel_id, twilio_account_sid,
azure_tenant_client_id, docker_image_digest, wireguard_public_key,
bcrypt_password_hash, dhis2_uid, bitlocker_recovery_key_id,
enketo_public_form_link, db_url_without_password, radio_callsign_selcall,
npm_integrity_hash, firmware_version, gps_coordinates, voucher_serial_number.
"""

import base64
import json
import random
import string
import sys

SEED = 208618

UP = string.ascii_uppercase
LO = string.ascii_lowercase
DG = string.digits
AN = UP + LO + DG
B64 = AN + "+/"
B64U = AN + "-_"


def corpus() -> list[dict]:
    rng = random.Random(SEED)
    rows: list[dict] = []

    def add(label, kind, text, value):
        assert value in text, (kind, value, text)
        rows.append({"label": label, "kind": kind, "text": text, "value": value})

    def S(kind, text, value):
        add("secret", kind, text, value)

    def B(kind, text, value):
        add("benign", kind, text, value)

    def pick(chars, n):
        return "".join(rng.choice(chars) for _ in range(n))

    def hx(n):
        return pick("0123456789abcdef", n)

    def HX(n):
        return pick("0123456789ABCDEF", n)

    def dg(n):
        return str(rng.randint(1, 9)) + pick(DG, n - 1)

    def uuid4():
        h = hx(32)
        return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{rng.choice('89ab')}{h[17:20]}-{h[20:32]}"

    def b64bytes(n):
        return base64.b64encode(rng.randbytes(n)).decode()

    def luhn(num):
        total = 0
        for i, ch in enumerate(reversed(num)):
            d = int(ch)
            if i % 2 == 0:
                d *= 2
                if d > 9:
                    d -= 9
            total += d
        return num + str((10 - total % 10) % 10)

    def iban(cc, bban):
        rearr = bban + cc + "00"
        numeric = "".join(str(int(c, 36)) for c in rearr)
        check = 98 - int(numeric) % 97
        return f"{cc}{check:02d}{bban}"

    places = [
        "Goma",
        "Bunia",
        "Kakuma",
        "Dadaab",
        "Maiduguri",
        "Gao",
        "Mopti",
        "Aden",
        "Juba",
        "Cucuta",
        "Tumaco",
        "Beni",
        "Kalemie",
        "Diffa",
        "Bossaso",
        "Malakal",
    ]
    words = [
        "Baobab",
        "Simba",
        "Chai",
        "Mango",
        "Harmattan",
        "Tembo",
        "Pikipiki",
        "Sahel",
        "Mvua",
        "Kahawa",
        "Jacaranda",
        "Hibiscus",
        "Nyota",
        "Papaye",
        "Sorgho",
        "Cafecito",
    ]

    def human_pw(style):
        p = rng.choice(places)
        w = rng.choice(words)
        y = rng.choice(["2023", "2024", "2025", "2026"])
        n = pick(DG, 2)
        sym = rng.choice("!#@$*")
        return [
            f"{p}{y}{sym}",
            f"{w}{sym}{n}{p.lower()}",
            f"{w.lower()}.{p.lower()}.{n}",
            f"N3w-{p}-{y}",
            f"{p}_{w}{n}{sym}",
            f"{w}{y}{p[:3].upper()}{sym}",
            f"{p[0]}{w.lower()}{sym}{n}{y[2:]}",
            f"Welcome{sym}{p}{n}",
        ][style % 8]

    def pem(label, body_prefix, nbytes, width=64):
        body = body_prefix + base64.b64encode(rng.randbytes(nbytes)).decode()
        lines = [body[i : i + width] for i in range(0, len(body), width)]
        return f"-----BEGIN {label}-----\n" + "\n".join(lines) + f"\n-----END {label}-----"

    # ------------------------------------------------------------------ secrets

    # satphone_sim_pin
    v = pick(DG, 4)
    S(
        "satphone_sim_pin",
        f"Iridium 9555 #3 (Bunia kit): SIM PIN is {v}, do not change it, the Goma office has the same card on file.",
        v,
    )
    v = pick(DG, 4)
    S(
        "satphone_sim_pin",
        f"Thuraya XT-LITE | sous-bureau Diffa | code PIN SIM : {v} | gardé par le chef de base",
        v,
    )
    v = pick(DG, 4)
    S(
        "satphone_sim_pin",
        f"[WhatsApp 06:12] Yusuf: sat phone asks for PIN after the battery died, what is it?\n[06:14] Hodan: {v}, then press OK and wait for signal bars",
        v,
    )
    v = pick(DG, 4)
    S(
        "satphone_sim_pin",
        f"رمز PIN لشريحة هاتف الثريا في مكتب عدن: {v} — لا تشاركه خارج فريق الأمن",
        v,
    )

    # sim_puk_code
    v = pick(DG, 8)
    S(
        "sim_puk_code",
        f"Kalemie Iridium SIM got blocked after 3 wrong PINs. PUK1 = {v}, enter **05*PUK*newPIN*newPIN#",
        v,
    )
    v = pick(DG, 8)
    S(
        "sim_puk_code",
        f"sim_inventory.csv row: TH-0142,Thuraya,active,puk={v},custodian=security focal point",
        v,
    )
    v = pick(DG, 8)
    S(
        "sim_puk_code",
        f"Msimbo wa PUK wa laini ya Safaricom ya ofisi ya Dadaab ni {v} (usiupoteze, laini imefungwa)",
        v,
    )
    v = pick(DG, 8)
    S("sim_puk_code", f"Código PUK del chip de Claro del teléfono de guardia en Cúcuta: {v}", v)

    # bgan_terminal_admin_password
    v = human_pw(0)
    S(
        "bgan_terminal_admin_password",
        f"Explorer 710 web UI at http://192.168.0.1 → Settings → Admin. User admin / {v}. Reset to 1234 was done in March, please keep the new one.",
        v,
    )
    v = human_pw(1)
    S(
        "bgan_terminal_admin_password",
        f"Handover Gao: BGAN Hughes 9202 admin password {v} (changed after the audit)",
        v,
    )
    v = human_pw(2)
    S(
        "bgan_terminal_admin_password",
        f"Terminal BGAN Cobham du bureau de Mopti — identifiant : admin — mot de passe : {v}",
        v,
    )
    v = human_pw(3)
    S(
        "bgan_terminal_admin_password",
        f'telecoms-kit.yaml:\n  bgan_explorer_510:\n    serial: 1024775\n    web_admin_user: admin\n    web_admin_pass: "{v}"',
        v,
    )

    # vsat_modem_admin_password
    v = human_pw(4)
    S(
        "vsat_modem_admin_password",
        f"iDirect X7 modem (Juba compound) — telnet 192.168.0.1, login admin, password {v}",
        v,
    )
    v = human_pw(5)
    S(
        "vsat_modem_admin_password",
        f"ssh root@10.8.1.1  # Newtec MDM2210 in Malakal, root pw: {v}",
        v,
    )
    v = human_pw(6)
    S(
        "vsat_modem_admin_password",
        f"Contraseña del módem VSAT Hughes HT2000W en Tumaco: {v} (usuario: install)",
        v,
    )
    v = human_pw(7)
    S(
        "vsat_modem_admin_password",
        f"| site | modem | user | pass |\n|---|---|---|---|\n| Bossaso | iDirect X5 | admin | {v} |",
        v,
    )

    # lte_router_admin_password
    v = human_pw(1)
    S(
        "lte_router_admin_password",
        f"Teltonika RUT950 in the Beni guesthouse: WebUI admin / {v}. RMS is not enabled.",
        v,
    )
    v = human_pw(3)
    S(
        "lte_router_admin_password",
        f"Routeur 4G Huawei B535 (bureau Kalemie) : page http://192.168.8.1, mot de passe admin {v}",
        v,
    )
    v = human_pw(5)
    S(
        "lte_router_admin_password",
        f"Router MikroTik hAP ac3 ya ofisi ya Kakuma: user=admin password={v}",
        v,
    )
    v = human_pw(7)
    S(
        "lte_router_admin_password",
        f'/system user set admin password="{v}"  # applied on the Diffa MikroTik after handover',
        v,
    )

    # wifi_psk
    v = f"{rng.choice(words)}{rng.choice(places)}{pick(DG, 4)}"
    S("wifi_psk", f"Starlink wifi at the Gao base: SSID STARLINK-GAO, password {v}", v)
    v = f"{rng.choice(words).lower()} {rng.choice(places).lower()} {pick(DG, 3)}"
    S("wifi_psk", f"Wi-Fi invités du bureau de Goma — réseau AB-GUEST — clé : {v}", v)
    v = f"{rng.choice(places)}@Wifi{pick(DG, 2)}"
    S("wifi_psk", f'network={{\n    ssid="AB-STAFF-Juba"\n    psk="{v}"\n}}', v)
    v = f"{rng.choice(words)}#{pick(DG, 4)}"
    S("wifi_psk", f"كلمة مرور الواي فاي في مكتب بوصاصو (شبكة AB-Office): {v}", v)

    # kobo_api_token
    v = hx(40)
    S(
        "kobo_api_token",
        f'curl -H "Authorization: Token {v}" https://kf.kobotoolbox.org/api/v2/assets/?format=json',
        v,
    )
    v = hx(40)
    S("kobo_api_token", f"KOBO_API_TOKEN={v}", v)
    v = hx(40)
    S(
        "kobo_api_token",
        f"Token de l'API Kobo du compte meal_drc (pour le tableau Power BI) : {v}",
        v,
    )
    v = hx(40)
    S(
        "kobo_api_token",
        f"kobo:\n  server: https://eu.kobotoolbox.org\n  token: {v}\n  asset_uid: aQx8zL2mNp4Rt7Vw9Yb3Ck",
        v,
    )

    # odk_central_app_user_token
    tokchars = AN + "!$"
    v = pick(tokchars, 64)
    S(
        "odk_central_app_user_token",
        f"Collect config QR for enumerators in Maiduguri: https://odk.aidbridge.org/v1/key/{v}/projects/4",
        v,
    )
    v = pick(tokchars, 64)
    S(
        "odk_central_app_user_token",
        f"app user 'tablet-07' token: {v} (Central project 2, PDM round 3)",
        v,
    )
    v = pick(tokchars, 64)
    S(
        "odk_central_app_user_token",
        f'{{"general": {{"server_url": "https://central.aidbridge.org/v1/key/{v}/projects/7", "form_update_mode": "match_exactly"}}}}',
        v,
    )
    v = pick(tokchars, 64)
    S(
        "odk_central_app_user_token",
        f"Jeton utilisateur d'application ODK Central (enquêteurs Diffa) : {v}",
        v,
    )

    # odk_central_web_password
    v = human_pw(2)
    S("odk_central_web_password", f"ODK Central web login: meal.officer@aidbridge.org / {v}", v)
    v = human_pw(4)
    S(
        "odk_central_web_password",
        f"docker compose exec service odk-cmd --email admin@aidbridge.org user-set-password  # set to {v}",
        v,
    )
    v = human_pw(6)
    S(
        "odk_central_web_password",
        f"Usuario de ODK Central para la coordinadora MEAL de Cúcuta: lucia.r@aidbridge.org, clave {v}",
        v,
    )
    v = human_pw(0)
    S("odk_central_web_password", f"Nenosiri la ODK Central la akaunti ya data.kakuma ni {v}", v)

    # commcare_api_key
    v = hx(40)
    S("commcare_api_key", f"Authorization: ApiKey cash.team@aidbridge.org:{v}", v)
    v = hx(40)
    S("commcare_api_key", f"COMMCARE_API_KEY={v}\nCOMMCARE_DOMAIN=aidbridge-drc", v)
    v = hx(40)
    S("commcare_api_key", f"CommCare HQ key for the case export script (user meal.bot): {v}", v)
    v = hx(40)
    S(
        "commcare_api_key",
        f"requests.get(url, headers={{'Authorization': 'ApiKey integration@aidbridge.org:{v}'}})",
        v,
    )

    # mpesa_consumer_secret
    v = pick(AN, 64)
    S(
        "mpesa_consumer_secret",
        f"Daraja production app 'AB-Cash-Disburse': consumer key {pick(AN, 48)} consumer secret {v}",
        v,
    )
    v = pick(AN, 64)
    S("mpesa_consumer_secret", f"MPESA_CONSUMER_SECRET={v}", v)
    v = pick(AN, 64)
    S("mpesa_consumer_secret", f"mpesa:\n  env: production\n  consumer_secret: '{v}'", v)
    v = pick(AN, 64)
    S(
        "mpesa_consumer_secret",
        f"Siri ya programu ya Daraja (consumer secret) kwa malipo ya Turkana: {v}",
        v,
    )

    # mpesa_passkey
    v = hx(64)
    S("mpesa_passkey", f"Lipa na M-Pesa Online passkey for paybill 4{pick(DG, 5)} (prod): {v}", v)
    v = hx(64)
    S("mpesa_passkey", f'password = base64.b64encode((shortcode + "{v}" + timestamp).encode())', v)
    v = hx(64)
    S("mpesa_passkey", f'MPESA_PASSKEY="{v}"', v)
    v = hx(64)
    S("mpesa_passkey", f"Safaricom imetuma passkey mpya ya STK push: {v}", v)

    # mpesa_initiator_password
    v = human_pw(5)
    S(
        "mpesa_initiator_password",
        f"B2C initiator 'abcashapi' password on the M-Pesa org portal: {v}",
        v,
    )
    v = human_pw(7)
    S("mpesa_initiator_password", f"INITIATOR_NAME=abcashapi\nINITIATOR_PASSWORD={v}", v)
    v = human_pw(1)
    S(
        "mpesa_initiator_password",
        f"Nenosiri la initiator la B2C limebadilishwa: {v} (Grace amelithibitisha)",
        v,
    )
    v = human_pw(3)
    S(
        "mpesa_initiator_password",
        f"Handover cash team Nairobi — org portal business admin: cashadmin01 / {v}",
        v,
    )

    # mpesa_security_credential
    v = b64bytes(256)
    S(
        "mpesa_security_credential",
        f"SecurityCredential for B2C prod (encrypted with the production cert): {v}",
        v,
    )
    v = b64bytes(256)
    S(
        "mpesa_security_credential",
        f'{{"InitiatorName": "abcashapi", "SecurityCredential": "{v}", "CommandID": "BusinessPayment"}}',
        v,
    )
    v = b64bytes(256)
    S("mpesa_security_credential", f"MPESA_SECURITY_CREDENTIAL={v}", v)

    # momo_api_key
    v = hx(32)
    S("momo_api_key", f"MTN MoMo disbursement (Uganda, prod): API user {uuid4()} API key {v}", v)
    v = hx(32)
    S("momo_api_key", f"MOMO_API_KEY={v}", v)
    v = hx(32)
    S(
        "momo_api_key",
        f"Clé API MoMo (Cameroun, collection) générée par le portail partenaire : {v}",
        v,
    )
    u = uuid4()
    k = hx(32)
    v = base64.b64encode(f"{u}:{k}".encode()).decode()
    S(
        "momo_api_key",
        f'curl -X POST https://proxy.momoapi.mtn.com/disbursement/token/ -H "Authorization: Basic {v}"',
        v,
    )

    # momo_subscription_key
    v = hx(32)
    S(
        "momo_subscription_key",
        f'-H "Ocp-Apim-Subscription-Key: {v}" -H "X-Target-Environment: mtnuganda"',
        v,
    )
    v = hx(32)
    S("momo_subscription_key", f"Primary key of our MoMo Disbursement subscription: {v}", v)
    v = hx(32)
    S(
        "momo_subscription_key",
        f"momo:\n  product: disbursement\n  subscription_key: {v}\n  target_env: mtncongo",
        v,
    )

    # orange_money_basic_auth
    v = base64.b64encode(f"{pick(AN, 32)}:{pick(AN, 16)}".encode()).decode()
    S(
        "orange_money_basic_auth",
        f'curl -X POST https://api.orange.com/oauth/v3/token -H "Authorization: Basic {v}" -d grant_type=client_credentials',
        v,
    )
    v = pick(AN, 16)
    S(
        "orange_money_basic_auth",
        f"Orange Money Web Pay (Mali) — client_id {pick(AN, 32)}, client_secret {v}",
        v,
    )
    v = base64.b64encode(f"{pick(AN, 32)}:{pick(AN, 16)}".encode()).decode()
    S("orange_money_basic_auth", f'ORANGE_AUTH_HEADER="Basic {v}"', v)
    v = pick(AN, 16)
    S(
        "orange_money_basic_auth",
        f"Secret client Orange Developer (app transferts RDC) : {v} — ne pas envoyer par mail",
        v,
    )

    # mobile_money_wallet_pin
    v = pick(DG, 4)
    S(
        "mobile_money_wallet_pin",
        f"Float wallet (Airtel Money, Kalemie office) PIN: {v}. Only finance officer + head of base.",
        v,
    )
    v = pick(DG, 4)
    S("mobile_money_wallet_pin", f"PIN ya M-Pesa ya simu ya ofisi (0722 xxx 118) ni {v}", v)
    v = pick(DG, 5)
    S("mobile_money_wallet_pin", f"Code secret Orange Money du compte marchand de Mopti : {v}", v)
    v = pick(DG, 4)
    S("mobile_money_wallet_pin", f"رقم التعريف الشخصي لمحفظة جيب (كريمي) الخاصة بالمكتب: {v}", v)

    # flutterwave_secret_key
    v = f"FLWSECK-{hx(32)}-X"
    S("flutterwave_secret_key", f"FLW_SECRET_KEY={v}", v)
    v = f"FLWSECK-{hx(32)}-X"
    S("flutterwave_secret_key", f"Flutterwave live secret for the Maiduguri transfers: {v}", v)
    v = f"FLWSECK-{hx(32)}-X"
    S("flutterwave_secret_key", f'headers = {{"Authorization": "Bearer {v}"}}', v)

    # paystack_secret_key
    v = f"sk_live_{hx(40)}"
    S("paystack_secret_key", f"PAYSTACK_SECRET_KEY={v}", v)
    v = f"sk_live_{hx(40)}"
    S(
        "paystack_secret_key",
        f'curl https://api.paystack.co/transfer -H "Authorization: Bearer {v}"',
        v,
    )
    v = f"sk_live_{hx(40)}"
    S("paystack_secret_key", f"Paystack (Nigeria) live secret key, Ghana too: {v}", v)

    # stripe_secret_key
    v = f"sk_live_51{pick(AN, 97)}"
    S("stripe_secret_key", f"Donations site Stripe key (prod): {v}", v)
    v = f"rk_live_51{pick(AN, 97)}"
    S(
        "stripe_secret_key",
        f"STRIPE_RESTRICTED_KEY={v}  # read-only for the donor reconciliation",
        v,
    )
    v = f"sk_live_51{pick(AN, 97)}"
    S("stripe_secret_key", f'stripe.api_key = "{v}"', v)

    # twilio_auth_token
    v = hx(32)
    S("twilio_auth_token", f"TWILIO_ACCOUNT_SID=AC{hx(32)}\nTWILIO_AUTH_TOKEN={v}", v)
    v = hx(32)
    S("twilio_auth_token", f"Twilio auth token for the SMS feedback line: {v}", v)
    v = hx(32)
    S("twilio_auth_token", f'client = Client("AC{hx(32)}", "{v}")', v)
    v = hx(32)
    S("twilio_auth_token", f"Token de autenticación de Twilio (línea de quejas Colombia): {v}", v)

    # africastalking_api_key
    v = f"atsk_{hx(64)}"
    S("africastalking_api_key", f"AT_API_KEY={v}\nAT_USERNAME=aidbridge", v)
    v = f"atsk_{hx(64)}"
    S("africastalking_api_key", f"Africa's Talking key for the USSD hotline (*384*21#): {v}", v)
    v = hx(64)
    S(
        "africastalking_api_key",
        f'curl -X POST https://api.africastalking.com/version1/messaging -H "apiKey: {v}" -d username=aidbridge',
        v,
    )
    v = f"atsk_{hx(64)}"
    S("africastalking_api_key", f"Ufunguo wa API wa Africa's Talking (SMS kwa wanufaika): {v}", v)

    # rapidpro_api_token
    v = hx(40)
    S(
        "rapidpro_api_token",
        f'curl -H "Authorization: Token {v}" https://textit.com/api/v2/contacts.json',
        v,
    )
    v = hx(40)
    S("rapidpro_api_token", f"RAPIDPRO_TOKEN={v}", v)
    v = hx(40)
    S("rapidpro_api_token", f"Token RapidPro du workspace 'AB Feedback RDC' : {v}", v)

    # whatsapp_cloud_access_token
    v = "EAAG" + pick(AN, 190)
    S("whatsapp_cloud_access_token", f"WHATSAPP_TOKEN={v}", v)
    v = "EAAJ" + pick(AN, 184)
    S(
        "whatsapp_cloud_access_token",
        f"Permanent system-user token for the WhatsApp feedback number: {v}",
        v,
    )
    v = "EAAB" + pick(AN, 176)
    S(
        "whatsapp_cloud_access_token",
        f'curl -X POST https://graph.facebook.com/v19.0/1{pick(DG, 14)}/messages -H "Authorization: Bearer {v}"',
        v,
    )

    # telegram_bot_token
    v = f"{rng.choice('5678')}{pick(DG, 9)}:AA{pick(B64U, 33)}"
    S("telegram_bot_token", f"Security alerts bot (@ab_sahel_secbot) token: {v}", v)
    v = f"{rng.choice('5678')}{pick(DG, 9)}:AA{pick(B64U, 33)}"
    S(
        "telegram_bot_token",
        f'curl https://api.telegram.org/bot{v}/sendMessage -d chat_id=-1001{pick(DG, 9)} -d text="movement freeze"',
        v,
    )
    v = f"{rng.choice('5678')}{pick(DG, 9)}:AA{pick(B64U, 33)}"
    S("telegram_bot_token", f'TELEGRAM_BOT_TOKEN="{v}"', v)
    v = f"{rng.choice('5678')}{pick(DG, 9)}:AA{pick(B64U, 33)}"
    S("telegram_bot_token", f"توكن بوت تيليجرام الخاص بتنبيهات الأمن في اليمن: {v}", v)

    # slack_webhook_url
    v = f"https://hooks.slack.com/services/T0{pick(UP + DG, 8)}/B0{pick(UP + DG, 9)}/{pick(AN, 24)}"
    S("slack_webhook_url", f"Kobo sync failures go to #meal-alerts via {v}", v)
    v = f"https://hooks.slack.com/services/T0{pick(UP + DG, 8)}/B0{pick(UP + DG, 9)}/{pick(AN, 24)}"
    S("slack_webhook_url", f"SLACK_WEBHOOK_URL={v}", v)
    v = f"https://hooks.slack.com/services/T0{pick(UP + DG, 8)}/B0{pick(UP + DG, 9)}/{pick(AN, 24)}"
    S(
        "slack_webhook_url",
        f'- name: notify\n  run: curl -X POST -d \'{{"text":"deploy ok"}}\' {v}',
        v,
    )

    # teams_webhook_url
    v = f"https://aidbridge.webhook.office.com/webhookb2/{uuid4()}@{uuid4()}/IncomingWebhook/{hx(32)}/{uuid4()}"
    S("teams_webhook_url", f"Teams connector for the Sahel telecoms channel: {v}", v)
    v = f"https://prod-{rng.randint(10, 99)}.westeurope.logic.azure.com:443/workflows/{hx(32)}/triggers/manual/paths/invoke?api-version=2016-06-01&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig={pick(B64U, 43)}"
    S("teams_webhook_url", f"TEAMS_WEBHOOK={v}", v)
    v = f"https://aidbridge.webhook.office.com/webhookb2/{uuid4()}@{uuid4()}/IncomingWebhook/{hx(32)}/{uuid4()}/V2{pick(B64U, 43)}"
    S("teams_webhook_url", f"Webhook Teams du canal « Cash RDC – alertes » : {v}", v)

    # aws_secret_access_key
    v = pick(B64, 40)
    S(
        "aws_secret_access_key",
        f"aws_access_key_id = AKIA{pick(UP + '234567', 16)}\naws_secret_access_key = {v}",
        v,
    )
    v = pick(B64, 40)
    S("aws_secret_access_key", f"AWS_SECRET_ACCESS_KEY={v}", v)
    v = pick(B64, 40)
    S(
        "aws_secret_access_key",
        f"S3 backup user for the Kobo exports (iam: kobo-backup): secret {v}",
        v,
    )
    v = pick(B64, 40)
    S(
        "aws_secret_access_key",
        f"Clave secreta de AWS para el bucket de respaldos de Cúcuta: {v}",
        v,
    )

    # github_token
    v = f"ghp_{pick(AN, 36)}"
    S("github_token", f"git clone https://{v}@github.com/aidbridge/cash-reconciliation.git", v)
    v = f"github_pat_11{pick(UP + DG, 20)}_{pick(AN, 59)}"
    S("github_token", f"GH_TOKEN={v}", v)
    v = f"ghp_{pick(AN, 36)}"
    S("github_token", f"PAT for the ODK form-deploy action (repo + workflow scopes): {v}", v)

    # gitlab_token
    v = f"glpat-{pick(B64U, 20)}"
    S("gitlab_token", f"GITLAB_TOKEN={v}", v)
    v = f"glpat-{pick(B64U, 20)}"
    S("gitlab_token", f"Jeton GitLab (runner du bureau pays RDC, scope api) : {v}", v)
    v = f"glpat-{pick(B64U, 20)}"
    S(
        "gitlab_token",
        f'curl --header "PRIVATE-TOKEN: {v}" https://gitlab.aidbridge.org/api/v4/projects',
        v,
    )

    # postgres_url_with_password
    pw = human_pw(2)
    v = f"postgresql://cashapp:{pw}@10.20.0.15:5432/beneficiaries"
    S("postgres_url_with_password", f"DATABASE_URL={v}", v)
    pw = pick(AN, 20)
    v = f"postgres://meal_ro:{pw}@db.aidbridge.internal/kobo_mirror?sslmode=require"
    S("postgres_url_with_password", f"Read-only DSN for the Power BI gateway: {v}", v)
    pw = human_pw(6)
    v = f"postgresql://odk:{pw}@postgres14:5432/odk"
    S("postgres_url_with_password", f'pg_dump "{v}" > central_backup.sql', v)
    pw = pick(AN, 18)
    v = f"postgresql+psycopg2://registro:{pw}@192.168.10.4:5432/registro_cucuta"
    S("postgres_url_with_password", f'SQLALCHEMY_DATABASE_URI = "{v}"', v)

    # mongodb_uri_with_password
    pw = pick(AN, 16)
    v = f"mongodb+srv://kpi_user:{pw}@cluster0.{pick(LO + DG, 5)}.mongodb.net/kobocat"
    S("mongodb_uri_with_password", f"MONGO_URL={v}", v)
    pw = human_pw(7)
    v = f"mongodb://admin:{pw}@10.20.0.22:27017/?authSource=admin"
    S("mongodb_uri_with_password", f'mongosh "{v}"', v)
    pw = pick(AN, 22)
    v = f"mongodb+srv://feedback-app:{pw}@feedback.{pick(LO + DG, 5)}.mongodb.net/cfm?retryWrites=true"
    S("mongodb_uri_with_password", f"URI Mongo du mécanisme de plaintes (CFM) : {v}", v)

    # dhis2_personal_access_token
    v = f"d2pat_{pick(AN, 32)}{pick(DG, 10)}"
    S("dhis2_personal_access_token", f"Authorization: ApiToken {v}", v)
    v = f"d2pat_{pick(AN, 32)}{pick(DG, 10)}"
    S(
        "dhis2_personal_access_token",
        f"DHIS2_TOKEN={v}  # nutrition dashboard sync, expires 2027-03",
        v,
    )
    v = f"d2pat_{pick(AN, 32)}{pick(DG, 10)}"
    S(
        "dhis2_personal_access_token",
        f"Jeton d'accès personnel DHIS2 (import des données SMART) : {v}",
        v,
    )

    # dhis2_admin_password
    v = human_pw(0)
    S(
        "dhis2_admin_password",
        f"DHIS2 instance (health cluster) superuser: admin / {v}. Changed from district.",
        v,
    )
    v = human_pw(4)
    S("dhis2_admin_password", f"curl -u admin:{v} https://dhis2.aidbridge.org/api/me", v)
    v = human_pw(6)
    S("dhis2_admin_password", f"كلمة مرور حساب المشرف في DHIS2: {v}", v)

    # door_or_safe_code
    v = pick(DG, 6)
    S(
        "door_or_safe_code",
        f"Cash safe in the Bunia finance office — combination {v}. Dual control: Jean-Baptiste + Amina.",
        v,
    )
    v = pick(DG, 4)
    S("door_or_safe_code", f"Code d'alarme de la résidence de Goma : {v} puis touche OFF", v)
    v = pick(DG, 4) + "#"
    S("door_or_safe_code", f"Msimbo wa mlango wa chumba cha seva (Kakuma): {v}", v)
    v = pick(DG, 5)
    S("door_or_safe_code", f"Safe room keypad code (Aden compound), valid from 1 Dec: {v}", v)

    # ssh_private_key
    v = pem(
        "OPENSSH PRIVATE KEY",
        "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZWQyNTUxOQAAACA",
        210,
        70,
    )
    S("ssh_private_key", f"deploy key for the Central VM (~/.ssh/id_ed25519):\n{v}", v)
    v = pem("RSA PRIVATE KEY", "MIIEpAIBAAKCAQEA", 1170)
    S("ssh_private_key", f"Clé privée du serveur de sauvegarde (backup-goma) :\n{v}", v)
    v = pem(
        "OPENSSH PRIVATE KEY",
        "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZWQyNTUxOQAAACA",
        210,
        70,
    )
    v = "\n".join("    " + ln for ln in v.split("\n")).lstrip()
    S("ssh_private_key", f"secrets:\n  deploy_ssh_key: |\n    {v}", v)

    # ipsec_psk
    v = pick(AN, 32)
    S("ipsec_psk", f"IPsec tunnel Goma <-> Kinshasa HQ (FortiGate): pre-shared key {v}", v)
    v = pick(AN + "!@#%", 24)
    S(
        "ipsec_psk",
        f'conn juba-hq\n  authby=secret\n# /etc/ipsec.secrets\n41.222.13.8 196.201.4.17 : PSK "{v}"',
        v,
    )
    v = f"{rng.choice(words)}-{rng.choice(places)}-{pick(DG, 6)}"
    S("ipsec_psk", f"Clave precompartida del túnel VPN Cúcuta–Bogotá: {v}", v)

    # wireguard_private_key
    v = b64bytes(32)
    S("wireguard_private_key", f"[Interface]\nPrivateKey = {v}\nAddress = 10.66.0.12/32", v)
    v = b64bytes(32)
    S("wireguard_private_key", f"wg set wg0 private-key <(echo {v})", v)
    v = b64bytes(32)
    S(
        "wireguard_private_key",
        f"WireGuard laptop profile for the Mopti roaming kit — private key {v}",
        v,
    )

    # sendgrid_api_key
    v = f"SG.{pick(B64U, 22)}.{pick(B64U, 43)}"
    S("sendgrid_api_key", f"SENDGRID_API_KEY={v}", v)
    v = f"SG.{pick(B64U, 22)}.{pick(B64U, 43)}"
    S("sendgrid_api_key", f"Key used by the beneficiary-receipt mailer: {v}", v)
    v = f"SG.{pick(B64U, 22)}.{pick(B64U, 43)}"
    S("sendgrid_api_key", f"smtp.sendgrid.net:587 user=apikey pass={v}", v)

    # azure_storage_connection_string
    v = f"DefaultEndpointsProtocol=https;AccountName=abkoboexports;AccountKey={b64bytes(64)};EndpointSuffix=core.windows.net"
    S("azure_storage_connection_string", f'AZURE_STORAGE_CONNECTION_STRING="{v}"', v)
    k = b64bytes(64)
    S("azure_storage_connection_string", f"Storage account 'abfieldphotos' key1: {k}", k)
    v = f"DefaultEndpointsProtocol=https;AccountName=abcashrecon;AccountKey={b64bytes(64)};EndpointSuffix=core.windows.net"
    S(
        "azure_storage_connection_string",
        f"Chaîne de connexion du stockage Azure pour les rapprochements : {v}",
        v,
    )

    # gcp_service_account_key
    v = pem("PRIVATE KEY", "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ", 1160).replace(
        "\n", "\\n"
    )
    S(
        "gcp_service_account_key",
        f'{{"type": "service_account", "project_id": "ab-field-sheets", "private_key_id": "{hx(40)}", "private_key": "{v}\\n", "client_email": "sheets-sync@ab-field-sheets.iam.gserviceaccount.com"}}',
        v,
    )
    v = pem("PRIVATE KEY", "MIIEvgIBADANBgkqhkiG9w0BAQEFAASCBKgwggSkAgEAAoIBAQ", 1160)
    S(
        "gcp_service_account_key",
        f"key for looker-studio-export@ab-meal.iam.gserviceaccount.com:\n{v}",
        v,
    )
    sa = json.dumps(
        {
            "type": "service_account",
            "project_id": "ab-geocoder",
            "private_key_id": hx(40),
            "private_key": pem(
                "PRIVATE KEY", "MIIEvAIBADANBgkqhkiG9w0BAQEFAASCBKYwggSiAgEAAoIBAQ", 1150
            )
            + "\n",
            "client_email": "geocoder@ab-geocoder.iam.gserviceaccount.com",
        }
    )
    v = base64.b64encode(sa.encode()).decode()
    S("gcp_service_account_key", f"GOOGLE_CREDENTIALS_B64={v}", v)

    # django_secret_key
    v = pick(LO + DG + "!@#$%^&*(-_=+)", 50)
    S("django_secret_key", f"SECRET_KEY = '{v}'", v)
    v = pick(LO + DG + "!@#$%^&*(-_=+)", 50)
    S("django_secret_key", f"DJANGO_SECRET_KEY={v}", v)
    v = pick(LO + DG + "!@#$%^&*(-_=+)", 50)
    S("django_secret_key", f"kobo-install: django_secret_key for the self-hosted KPI is {v}", v)

    # password_manager_master_password
    v = " ".join(
        rng.choice(
            [
                "mango",
                "river",
                "tembo",
                "sahel",
                "lantern",
                "gravel",
                "kahawa",
                "orbit",
                "dune",
                "cobalt",
                "mvua",
                "papaye",
            ]
        )
        for _ in range(5)
    )
    S(
        "password_manager_master_password",
        f"KeePass master passphrase for the country IT vault (printed copy in the safe): {v}",
        v,
    )
    v = human_pw(5) + pick(DG, 3)
    S(
        "password_manager_master_password",
        f"Mot de passe maître Bitwarden (collection « Télécoms Sahel ») : {v}",
        v,
    )
    v = "-".join(
        rng.choice(["Correcto", "Caballo", "Pila", "Grapa", "Lluvia", "Puente", "Cafe", "Mochila"])
        for _ in range(4)
    ) + pick(DG, 2)
    S(
        "password_manager_master_password",
        f"Contraseña maestra del KeePassXC de la oficina de Tumaco: {v}",
        v,
    )

    # mfa_recovery_codes
    v = "\n".join(f"{hx(5)}-{hx(5)}" for _ in range(6))
    S("mfa_recovery_codes", f"GitHub recovery codes for the aidbridge-bot account:\n{v}", v)
    v = "  ".join(f"{pick(DG, 4)} {pick(DG, 4)}" for _ in range(5))
    S("mfa_recovery_codes", f"Google backup codes, it.sahel@aidbridge.org: {v}", v)
    v = f"{pick(UP + DG, 4)}-{pick(UP + DG, 4)}-{pick(UP + DG, 4)}-{pick(UP + DG, 4)}"
    S("mfa_recovery_codes", f"Code de récupération 2FA du compte Starlink (bureau Gao) : {v}", v)

    # shared_mailbox_password
    v = human_pw(3)
    S(
        "shared_mailbox_password",
        f"Shared mailbox cash.feedback@aidbridge.org — password {v} (MFA off, used on the hotline laptop)",
        v,
    )
    v = human_pw(7)
    S(
        "shared_mailbox_password",
        f"Nenosiri la barua pepe ya pamoja logistics.kakuma@aidbridge.org: {v}",
        v,
    )
    v = human_pw(2)
    S("shared_mailbox_password", f"Buzón compartido proteccion.cucuta@aidbridge.org / {v}", v)
    v = human_pw(0)
    S(
        "shared_mailbox_password",
        f"البريد المشترك security.yemen@aidbridge.org — كلمة المرور: {v}",
        v,
    )

    # radio_encryption_key
    v = HX(64)
    S("radio_encryption_key", f"DMR AES-256 key for the Juba repeater (key ID 1): {v}", v)
    v = HX(10)
    S(
        "radio_encryption_key",
        f"Motorola Enhanced Privacy (ARC4) key loaded on all Goma handhelds: {v}",
        v,
    )
    v = HX(64)
    S("radio_encryption_key", f"Clé de chiffrement radio (Hytera, canal sécurité Mopti) : {v}", v)

    # bitlocker_recovery_key
    def bl():
        return "-".join(f"{rng.randrange(0, 65536) * 11:06d}" for _ in range(8))

    v = bl()
    S(
        "bitlocker_recovery_key",
        f"BitLocker recovery key for the finance laptop AB-GOM-LT-044: {v}",
        v,
    )
    v = bl()
    S(
        "bitlocker_recovery_key",
        f"Clé de récupération BitLocker (PC du chef de base Diffa) : {v}",
        v,
    )
    v = bl()
    S(
        "bitlocker_recovery_key",
        f"laptop asked for the recovery key after a BIOS update; Omar read it to me over the sat phone: {v}",
        v,
    )

    # entra_client_secret
    v = pick(AN, 3) + rng.choice(DG) + "Q~" + pick(AN + "_.~-", 34)
    S("entra_client_secret", f"AZURE_CLIENT_SECRET={v}", v)
    v = pick(AN, 3) + rng.choice(DG) + "Q~" + pick(AN + "_.~-", 34)
    S(
        "entra_client_secret",
        f"App registration 'kobo-to-sharepoint' client secret (expires 2027-06): {v}",
        v,
    )
    v = pick(AN, 3) + rng.choice(DG) + "Q~" + pick(AN + "_.~-", 34)
    S("entra_client_secret", f"Secret de l'application Entra « intune-field-enrol » : {v}", v)

    # openai_api_key
    v = f"sk-proj-{pick(B64U, 64)}T3BlbkFJ{pick(B64U, 64)}"
    S("openai_api_key", f"OPENAI_API_KEY={v}", v)
    v = f"sk-proj-{pick(B64U, 64)}T3BlbkFJ{pick(B64U, 64)}"
    S(
        "openai_api_key",
        f"key for the feedback-translation prototype (Somali/Arabic → English): {v}",
        v,
    )
    v = f"sk-{pick(AN, 20)}T3BlbkFJ{pick(AN, 20)}"
    S("openai_api_key", f"Clé OpenAI du script de classification des plaintes : {v}", v)

    # cash_voucher_redemption_pin
    v = pick(DG, 6)
    S(
        "cash_voucher_redemption_pin",
        f"SMS to beneficiary: Your cash-out code is {v}. Show your ID at the agent. Do not share this code.",
        v,
    )
    v = pick(DG, 6)
    S(
        "cash_voucher_redemption_pin",
        f"Code de retrait du bénéficiaire BEN-DRC-{pick(DG, 6)} (renvoyé par le call center) : {v}",
        v,
    )
    v = pick(DG, 6)
    S(
        "cash_voucher_redemption_pin",
        f"Msimbo wa kutoa pesa wa mnufaika (voucher ya Januari): {v}",
        v,
    )
    v = pick(DG, 6)
    S("cash_voucher_redemption_pin", f"رمز صرف الحوالة للمستفيد في مأرب: {v}", v)

    # google_app_password
    v = " ".join(pick(LO, 4) for _ in range(4))
    S(
        "google_app_password",
        f"App password for the scanner-to-email on the Goma copier (sends as scans.goma@aidbridge.org): {v}",
        v,
    )
    v = pick(LO, 16)
    S("google_app_password", f"EMAIL_HOST_USER=alerts@aidbridge.org\nEMAIL_HOST_PASSWORD={v}", v)
    v = " ".join(pick(LO, 4) for _ in range(4))
    S(
        "google_app_password",
        f"Mot de passe d'application Gmail (Thunderbird, poste logistique) : {v}",
        v,
    )

    # ------------------------------------------------------------------ benign

    # iridium_imei
    v = luhn("300434" + pick(DG, 8))
    B(
        "iridium_imei",
        f"Iridium 9555 #3 (Bunia kit) IMEI {v}, registered with the airtime provider.",
        v,
    )
    v = luhn("300125" + pick(DG, 8))
    B("iridium_imei", f"| asset | model | IMEI |\n| AB-SAT-017 | Iridium Extreme 9575 | {v} |", v)
    v = luhn("300234" + pick(DG, 8))
    B(
        "iridium_imei",
        f"RockBLOCK tracker on the Gao convoy truck, IMEI {v} (SBD messages every 15 min)",
        v,
    )
    v = luhn("354822" + pick(DG, 8))
    B("iridium_imei", f"IMEI du terminal Thuraya XT-PRO de Diffa : {v}", v)

    # satphone_number
    v = f"+8816{pick(DG, 8)}"
    B(
        "satphone_number",
        f"Emergency sat phone for the Malakal team: {v} (call if the VHF net is down)",
        v,
    )
    v = f"+88216{pick(DG, 8)}"
    B("satphone_number", f"Numéro Thuraya du chef de convoi : {v}", v)
    v = f"00 8816 {pick(DG, 4)} {pick(DG, 4)}"
    B("satphone_number", f"Nambari ya simu ya setilaiti ya timu ya Turkana: {v}", v)
    v = f"+8816{pick(DG, 8)}"
    B("satphone_number", f"رقم هاتف الثريا/إيريديوم للطوارئ في مكتب عدن: {v}", v)

    # sim_iccid
    v = luhn("8988169" + pick(DG, 11))
    B("sim_iccid", f"Iridium SIM ICCID {v} — activated on the monthly 50-min plan.", v)
    v = luhn("8988216" + pick(DG, 11))
    B("sim_iccid", f"ICCID de la carte Thuraya (kit Mopti) : {v}", v)
    v = luhn("8925402" + pick(DG, 12))
    B("sim_iccid", f"sim_inventory.csv: SAF-0381,Safaricom,{v},data-only,Kakuma MiFi", v)

    # terminal_serial_number
    v = f"KIT{pick(DG, 9)}"
    B(
        "terminal_serial_number",
        f"Starlink kit for Beni: {v}, account ACC-{pick(DG, 7)}-{pick(DG, 5)}-{pick(DG, 2)}",
        v,
    )
    v = f"ut{hx(8)}-{hx(8)}-{hx(8)}"
    B(
        "terminal_serial_number",
        f"Dish ID {v} shows obstructed 4% in the app, moved it to the roof.",
        v,
    )
    v = pick(DG, 7)
    B("terminal_serial_number", f"Numéro de série du BGAN Explorer 710 (Mopti) : {v}", v)
    v = f"SN {pick(UP, 2)}{pick(DG, 8)}"
    B("terminal_serial_number", f"Número de serie del módem Hughes HT2000W en Tumaco: {v}", v)

    # kobo_asset_uid
    v = "a" + pick(AN, 21)
    B("kobo_asset_uid", f"PDM round 2 form asset uid: {v}", v)
    v = "a" + pick(AN, 21)
    B("kobo_asset_uid", f"https://kf.kobotoolbox.org/#/forms/{v}/summary", v)
    v = "a" + pick(AN, 21)
    B("kobo_asset_uid", f"export: GET /api/v2/assets/{v}/data/?format=json", v)

    # odk_form_id_version
    v = f"pdm_cash_2024_v{rng.randint(2, 9)}"
    B("odk_form_id_version", f"form_id: {v}  version: {pick(DG, 10)}", v)
    v = f"{rng.randint(2024, 2026)}{rng.randint(1, 12):02d}{rng.randint(1, 28):02d}01"
    B(
        "odk_form_id_version",
        f"Dans l'onglet settings : version = {v}, pensez à l'incrémenter à chaque publication.",
        v,
    )
    v = f"rapid_needs_{rng.choice(['goma', 'diffa', 'cucuta'])}_r{rng.randint(1, 6)}"
    B(
        "odk_form_id_version",
        f"Central project 4 contains {v} (published), and the draft of the next round.",
        v,
    )

    # submission_instance_id
    v = f"uuid:{uuid4()}"
    B("submission_instance_id", f"Duplicate submission flagged: instanceID {v}", v)
    v = f"uuid:{uuid4()}"
    B("submission_instance_id", f"<meta><instanceID>{v}</instanceID></meta>", v)
    v = uuid4()
    B("submission_instance_id", f"_uuid de l'enregistrement à corriger : {v}", v)

    # mpesa_transaction_id
    v = rng.choice("QRST") + pick(UP + DG, 9)
    B(
        "mpesa_transaction_id",
        f"Beneficiary says she did not receive; M-Pesa receipt {v} shows completed at 14:02.",
        v,
    )
    v = rng.choice("QRST") + pick(UP + DG, 9)
    B(
        "mpesa_transaction_id",
        f"{v} Confirmed. Ksh4,500.00 sent to JANE A. 0712XXX389 on 3/2/25 at 10:14 AM.",
        v,
    )
    v = rng.choice("QRST") + pick(UP + DG, 9)
    B("mpesa_transaction_id", f"Rejea ya muamala wa M-Pesa: {v}", v)
    v = rng.choice("QRST") + pick(UP + DG, 9)
    B(
        "mpesa_transaction_id",
        f'{{"ResultCode": 0, "TransactionID": "{v}", "ConversationID": "AG_2025{pick(DG, 10)}_{pick(LO + DG, 20)}"}}',
        v,
    )

    # mpesa_shortcode_till
    v = pick(DG, 6)
    B("mpesa_shortcode_till", f"B2C shortcode for the Turkana cash project: {v}", v)
    v = pick(DG, 7)
    B("mpesa_shortcode_till", f"Till number ya duka la mshirika (voucher ya chakula): {v}", v)
    v = pick(DG, 6)
    B("mpesa_shortcode_till", f"MPESA_SHORTCODE={v}", v)

    # momo_reference_id
    v = uuid4()
    B("momo_reference_id", f"X-Reference-Id: {v}", v)
    v = uuid4()
    B(
        "momo_reference_id",
        f"Transfert MoMo en attente, référence {v}, statut PENDING depuis 2 h.",
        v,
    )
    v = uuid4()
    B("momo_reference_id", f"MoMo API user (not the key) for Uganda disbursements: {v}", v)

    # beneficiary_case_id
    v = f"BEN-DRC-{pick(DG, 6)}"
    B(
        "beneficiary_case_id",
        f"Complaint escalated for {v}: name mismatch between ID card and SIM registration.",
        v,
    )
    v = f"HH-{rng.choice(['KAK', 'DAD', 'TUR'])}-{pick(DG, 5)}"
    B("beneficiary_case_id", f"Kaya {v} imeondolewa kwenye orodha (imehamia Kalobeyei).", v)
    v = f"CASO-COL-{pick(DG, 5)}"
    B(
        "beneficiary_case_id",
        f"Caso {v} remitido a protección, no duplicar en el registro de efectivo.",
        v,
    )
    v = f"CC-{pick(UP + DG, 8).lower()}"
    B("beneficiary_case_id", f"CommCare case_id for the household: {v}", v)

    # distribution_batch_id
    v = f"DIST-{rng.choice(['GOM', 'BUN', 'MAI'])}-2026-{pick(DG, 3)}"
    B(
        "distribution_batch_id",
        f"Payment batch {v} approved by finance (1,240 households, USD 62,000).",
        v,
    )
    v = f"LOT-{pick(DG, 4)}-MOP"
    B(
        "distribution_batch_id",
        f"Lot de paiement {v} renvoyé à Orange Money pour 17 numéros invalides.",
        v,
    )
    v = f"B2C-BATCH-{pick(DG, 8)}"
    B("distribution_batch_id", f"batch_id: {v}\nstatus: reconciled", v)

    # git_commit_sha
    v = hx(40)
    B("git_commit_sha", f"Deployed cash-reconciliation at commit {v} to the Nairobi VM.", v)
    v = hx(7)
    B("git_commit_sha", f"fix(odk): handle repeat groups in export ({v})", v)
    v = hx(40)
    B("git_commit_sha", f"uses: actions/checkout@{v}  # pinned", v)

    # apk_sha256_checksum
    v = hx(64)
    B(
        "apk_sha256_checksum",
        f"ODK Collect v2024.3.4 APK sha256: {v} — verify before sideloading on tablets.",
        v,
    )
    v = hx(64)
    B("apk_sha256_checksum", f"{v}  KoboCollect-v2024.2.4.apk", v)
    v = HX(64)
    B("apk_sha256_checksum", f"Empreinte SHA-256 du fichier de firmware BGAN téléchargé : {v}", v)
    v = hx(40)
    B("apk_sha256_checksum", f"sha1sum CommCare_2.54.apk → {v}", v)

    # ssh_public_key
    v = f"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{pick(B64, 43)} it-sahel@aidbridge"
    B("ssh_public_key", f"Add to authorized_keys on the Central VM: {v}", v)
    v = f"ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ{pick(B64, 340)} backup@goma"
    B("ssh_public_key", f"Clé publique du serveur de sauvegarde : {v}", v)
    v = f"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{pick(B64, 43)}"
    B("ssh_public_key", f"deploy key (public half) registered on GitHub: {v}", v)

    # pgp_fingerprint
    v = " ".join(HX(4) for _ in range(10))
    B("pgp_fingerprint", f"PGP fingerprint of the security focal point's key: {v}", v)
    v = HX(40)
    B("pgp_fingerprint", f"gpg --recv-keys {v}", v)
    v = "0x" + HX(16)
    B("pgp_fingerprint", f"Identifiant de clé PGP pour les rapports d'incident chiffrés : {v}", v)

    # x509_certificate
    v = pem("CERTIFICATE", "MIIDdzCCAl+gAwIBAgIE", 640)
    B(
        "x509_certificate",
        f"Safaricom production public cert used to encrypt the initiator password:\n{v}",
        v,
    )
    v = pem("CERTIFICATE", "MIIFazCCA1OgAwIBAgIU", 980)
    B(
        "x509_certificate",
        f"Certificat public du serveur ODK Central (pour épingler dans Collect) :\n{v}",
        v,
    )
    v = pem("PUBLIC KEY", "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA", 256)
    B(
        "x509_certificate",
        f"Kobo form encryption public key (submissions are encrypted with this):\n{v}",
        v,
    )

    # publishable_key
    v = f"FLWPUBK-{hx(32)}-X"
    B("publishable_key", f"Flutterwave public key for the donation widget: {v}", v)
    v = f"pk_live_{hx(40)}"
    B("publishable_key", f"PAYSTACK_PUBLIC_KEY={v}", v)
    v = f"pk_live_51{pick(AN, 97)}"
    B("publishable_key", f"Stripe publishable key on the donate page (safe in frontend): {v}", v)

    # recaptcha_site_key
    v = "6L" + pick(B64U, 38)
    B("recaptcha_site_key", f'<div class="g-recaptcha" data-sitekey="{v}"></div>', v)
    v = "6L" + pick(B64U, 38)
    B("recaptcha_site_key", f"reCAPTCHA site key (public) for the complaints web form: {v}", v)
    v = "0x4AAAAAAA" + pick(B64U, 14)
    B("recaptcha_site_key", f"Cloudflare Turnstile sitekey du formulaire de plaintes : {v}", v)

    # documented_example_key
    v = "AKIAIOSFODNN7EXAMPLE"
    B(
        "documented_example_key",
        f"The AWS docs use {v} as the access key id in every example; our real one is in the vault.",
        v,
    )
    v = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
    B("documented_example_key", f"# example from the AWS CLI guide\naws_secret_access_key = {v}", v)
    v = "bfb279f9aa9bdbcf158e97dd71a467cd2e0c893059b10f78e6b72ada1ed2c919"
    B(
        "documented_example_key",
        f"Daraja sandbox (shortcode 174379) public test passkey from the Safaricom docs: {v}",
        v,
    )
    v = "sk_test_4eC39HqLyjWDarjtT1zdp7dc"
    B(
        "documented_example_key",
        f"Stripe's documentation sample key {v} — fine in tutorials, never ours.",
        v,
    )

    # placeholder_value
    v = "<YOUR_KOBO_TOKEN>"
    B(
        "placeholder_value",
        f'curl -H "Authorization: Token {v}" https://kf.kobotoolbox.org/api/v2/assets/',
        v,
    )
    v = "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
    B("placeholder_value", f"MPESA_PASSKEY={v}", v)
    v = "REPLACE_ME"
    B("placeholder_value", f"momo:\n  api_key: {v}\n  subscription_key: {v}", v)
    v = "votre-cle-secrete-ici"
    B("placeholder_value", f"ORANGE_CLIENT_SECRET={v}  # à remplir depuis le coffre", v)

    # env_var_reference
    v = "${MPESA_CONSUMER_SECRET}"
    B("env_var_reference", f"consumer_secret: {v}", v)
    v = 'os.environ["KOBO_API_TOKEN"]'
    B("env_var_reference", f"token = {v}  # set in the systemd unit, not here", v)
    v = "${{ secrets.ODK_CENTRAL_PASSWORD }}"
    B("env_var_reference", f"      - run: pyodk push --password {v}", v)
    v = "%TWILIO_AUTH_TOKEN%"
    B("env_var_reference", f"set TOKEN={v}", v)

    # vault_path
    v = "secret/data/cash/mpesa/b2c-prod"
    B("vault_path", f"B2C initiator credentials live at {v} (ask Grace for read access).", v)
    v = "op://IT-Sahel/BGAN Explorer 710 Mopti/password"
    B("vault_path", f"Mot de passe admin du BGAN : voir {v}", v)
    v = "Bitwarden > Telecoms > Iridium SIM PINs"
    B("vault_path", f"SIM PINs/PUKs are not in this doc anymore, they moved to {v}.", v)
    v = "projects/ab-meal/secrets/kobo-token/versions/latest"
    B("vault_path", f"gcloud secrets versions access latest --secret=kobo-token  # {v}", v)

    # masked_secret
    v = "sk_live_••••••••••••••••" + hx(4)
    B("masked_secret", f"Paystack dashboard shows the key as {v}; the full one is in the vault.", v)
    v = "ghp_****************************" + pick(AN, 4)
    B("masked_secret", f"token: {v} (redacted in the incident report)", v)
    v = "PIN: ****"
    B("masked_secret", f"Iridium #5 — {v} — held by the security focal point", v)
    v = f"atsk_…{hx(4)}"
    B("masked_secret", f"Clé Africa's Talking (masquée) : {v}", v)

    # revoked_key
    v = f"FLWSECK-{hx(32)}-X"
    B(
        "revoked_key",
        f"Leaked in the Maiduguri WhatsApp group on 12 Nov; {v} was revoked the same day and replaced.",
        v,
    )
    v = f"glpat-{pick(B64U, 20)}"
    B("revoked_key", f"Token GitLab {v} révoqué après le départ de Moussa, ne plus l'utiliser.", v)
    v = hx(40)
    B("revoked_key", f"Old Kobo token {v} — REVOKED (account password reset 2026-09-30).", v)

    # password_policy_text
    v = "minimum 14 characters, no reuse of the last 5"
    B("password_policy_text", f"Field office passwords: {v}, changed when staff leave.", v)
    v = "Les codes PIN des téléphones satellites sont changés à chaque rotation du personnel"
    B(
        "password_policy_text",
        f"Politique sécurité télécoms : {v} et ne sont jamais écrits sur l'appareil.",
        v,
    )
    v = "Nunca compartas la clave de la billetera por WhatsApp"
    B(
        "password_policy_text",
        f"Recordatorio para el equipo de efectivo: {v}; usa el gestor de contraseñas.",
        v,
    )

    # it_ticket_reference
    v = f"ITSD-{pick(DG, 4)}"
    B(
        "it_ticket_reference",
        f"Starlink in Beni down since Tuesday — {v} opened with the regional IT hub.",
        v,
    )
    v = f"INC{pick(DG, 7)}"
    B("it_ticket_reference", f"Ticket ServiceNow {v} : remplacement du BGAN de Gao.", v)
    v = f"Case #{pick(DG, 8)}"
    B(
        "it_ticket_reference",
        f"Inmarsat support {v}: terminal not registering on the I-4 EMEA satellite.",
        v,
    )

    # travel_booking_reference
    v = pick(UP, 6)
    B(
        "travel_booking_reference",
        f"UNHAS flight Juba→Malakal Thursday, booking ref {v}, 15 kg luggage limit.",
        v,
    )
    v = f"UNHAS-{pick(DG, 6)}"
    B("travel_booking_reference", f"Réservation UNHAS pour Diffa : {v}", v)
    v = pick(UP + DG, 6)
    B("travel_booking_reference", f"Kenya Airways PNR for the telecoms consultant: {v}", v)

    # app_build_version
    v = f"v2024.{rng.randint(1, 3)}.{rng.randint(0, 6)}"
    B(
        "app_build_version",
        f"All enumerator tablets must be on ODK Collect {v} before the round starts.",
        v,
    )
    v = f"2.{rng.randint(40, 58)}.{rng.randint(0, 4)}"
    B(
        "app_build_version",
        f"CommCare app build {v} (build #{pick(DG, 3)}) deployed to the Goma project space.",
        v,
    )
    v = f"kobo-install {rng.randint(7, 9)}.{rng.randint(0, 9)}.{rng.randint(0, 9)}"
    B("app_build_version", f"Servidor Kobo propio actualizado a {v}.", v)

    # request_correlation_id
    v = uuid4()
    B(
        "request_correlation_id",
        f"2026-11-02T08:14:22Z ERROR daraja b2c timeout OriginatorConversationID={v}",
        v,
    )
    v = f"AG_{pick(DG, 8)}_{pick(LO + DG, 20)}"
    B("request_correlation_id", f"ConversationID {v} — result callback never arrived", v)
    v = hx(32)
    B("request_correlation_id", f"x-request-id: {v}", v)

    # ip_address_or_subnet
    v = f"10.{rng.randint(10, 60)}.{rng.randint(0, 20)}.0/24"
    B("ip_address_or_subnet", f"Goma office LAN {v}, gateway .1, DHCP from .100", v)
    v = f"41.{rng.randint(60, 230)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}"
    B("ip_address_or_subnet", f"IP publique du VSAT de Mopti (à whitelister côté Orange) : {v}", v)
    v = f"100.{rng.randint(64, 127)}.0.1"
    B("ip_address_or_subnet", f"Starlink CGNAT gateway seen in traceroute: {v}", v)

    # mac_address
    v = ":".join(HX(2) for _ in range(6))
    B("mac_address", f"DHCP reservation for the BGAN terminal: MAC {v} → 192.168.0.20", v)
    v = "-".join(hx(2) for _ in range(6))
    B("mac_address", f"Adresse MAC du routeur Starlink (pour le filtrage) : {v}", v)
    v = ":".join(hx(2) for _ in range(6))
    B("mac_address", f"/ip dhcp-server lease add mac-address={v} address=10.20.0.50", v)

    # ocha_pcode
    v = f"CD{rng.randint(61, 63)}{pick(DG, 2)}"
    B("ocha_pcode", f"Distribution site in territoire de Rutshuru, admin2 pcode {v}", v)
    v = f"SO{pick(DG, 4)}"
    B("ocha_pcode", f"Bosaso district P-code: {v} (use in the 4W submission)", v)
    v = f"NG008{pick(DG, 3)}"
    B("ocha_pcode", f"adm2_pcode,{v},Maiduguri", v)
    v = f"YE{pick(DG, 4)}"
    B("ocha_pcode", f"رمز المديرية (P-code) لموقع التوزيع: {v}", v)

    # unhcr_progres_id
    v = f"KAK-{pick(DG, 8)}"
    B("unhcr_progres_id", f"proGres registration group {v}, 6 members, eligible for round 3.", v)
    v = f"{pick(DG, 3)}-{pick(DG, 8)}"
    B("unhcr_progres_id", f"Nambari ya usajili ya UNHCR (proGres): {v}", v)
    v = f"UGA-{pick(DG, 2)}C{pick(DG, 5)}"
    B("unhcr_progres_id", f"Individual ID {v} matched in the dedup exercise with WFP SCOPE.", v)

    # vehicle_fleet_number
    v = f"AB-{rng.choice(['GOM', 'JUB', 'MAI'])}-{pick(DG, 3)}"
    B(
        "vehicle_fleet_number",
        f"Land Cruiser {v} needs the HF antenna re-fitted before the Malakal run.",
        v,
    )
    v = f"KD{pick(UP, 1)} {pick(DG, 3)}{pick(UP, 1)}"
    B("vehicle_fleet_number", f"Gari la ofisi (namba ya usajili {v}) limeenda Lodwar.", v)
    v = f"CD-{pick(DG, 4)}-{pick(UP, 2)}"
    B("vehicle_fleet_number", f"Immatriculation du véhicule de la mission : {v}", v)

    # donor_grant_code
    v = f"ECHO/-AF/BUD/2026/{pick(DG, 5)}"
    B("donor_grant_code", f"Charge the Starlink kits to {v} (telecoms budget line 4.2).", v)
    v = f"720BHA{rng.randint(24, 26)}GR{pick(DG, 5)}"
    B("donor_grant_code", f"BHA award {v} — cash component, MPCA.", v)
    v = f"SIDA-{pick(DG, 5)}-COL"
    B("donor_grant_code", f"Código de proyecto para los gastos de conectividad en Cúcuta: {v}", v)

    # bank_account_iban
    v = iban("CH", "0076" + "2" + pick(DG, 12))
    B("bank_account_iban", f"HQ operating account for airtime top-ups: IBAN {v}", v)
    v = iban("FR", pick(DG, 10) + pick(DG, 11) + pick(DG, 2))
    B("bank_account_iban", f"RIB du compte projet (Paris) : {v}", v)
    v = iban("DE", pick(DG, 18))
    B("bank_account_iban", f"Beneficiary IBAN for the satphone airtime vendor invoice: {v}", v)

    # swift_bic
    v = rng.choice(["KCBLKENX", "EQBLKENA", "UBSWCHZH80A", "ECOCCDKI", "BNPAFRPP"])
    B("swift_bic", f"Vendor bank SWIFT/BIC: {v}", v)
    v = rng.choice(["RAWBCDKI", "TMBLCDKI", "SGCICIAB"])
    B(
        "swift_bic",
        f"Code BIC de la banque partenaire pour les transferts vers le bureau de Goma : {v}",
        v,
    )

    # slack_channel_id
    v = "C0" + pick(UP + DG, 9)
    B("slack_channel_id", f"Post Kobo sync errors to channel {v} (#meal-alerts).", v)
    v = "U0" + pick(UP + DG, 9)
    B("slack_channel_id", f"Slack member ID of the on-call telecoms officer: {v}", v)
    v = f"-100{pick(DG, 10)}"
    B("slack_channel_id", f"Telegram chat_id of the Sahel security group: {v}", v)

    # twilio_account_sid
    v = "AC" + hx(32)
    B("twilio_account_sid", f"Twilio Account SID (not secret by itself): {v}", v)
    v = "SM" + hx(32)
    B("twilio_account_sid", f"SMS delivered, MessageSid={v}, status=delivered", v)
    v = "MG" + hx(32)
    B("twilio_account_sid", f"Messaging Service SID for the feedback line: {v}", v)

    # azure_tenant_client_id
    v = uuid4()
    B("azure_tenant_client_id", f"AZURE_TENANT_ID={v}", v)
    v = uuid4()
    B(
        "azure_tenant_client_id",
        f"App registration 'kobo-to-sharepoint' application (client) ID: {v}",
        v,
    )
    v = uuid4()
    B("azure_tenant_client_id", f"ID d'objet du groupe Entra « Field-Laptops-Sahel » : {v}", v)

    # docker_image_digest
    v = f"sha256:{hx(64)}"
    B("docker_image_digest", f"image: ghcr.io/getodk/central-service@{v}", v)
    v = f"sha256:{hx(64)}"
    B("docker_image_digest", f"Pulled kobotoolbox/kpi:2.024.36 digest {v}", v)
    v = f"sha256:{hx(64)}"
    B("docker_image_digest", f'"RepoDigests": ["postgres@{v}"]', v)

    # wireguard_public_key
    v = b64bytes(32)
    B(
        "wireguard_public_key",
        f"[Peer]\nPublicKey = {v}\nEndpoint = vpn.aidbridge.org:51820\nAllowedIPs = 10.66.0.0/16",
        v,
    )
    v = b64bytes(32)
    B(
        "wireguard_public_key",
        f"Clé publique WireGuard du laptop de Mopti (à ajouter sur le concentrateur) : {v}",
        v,
    )
    v = b64bytes(32)
    B("wireguard_public_key", f"wg show wg0 → peer: {v} latest handshake: 41 seconds ago", v)

    # bcrypt_password_hash
    v = "$2b$12$" + pick(AN + "./", 53)
    B(
        "bcrypt_password_hash",
        f"odk=# select email, password from users; → admin@aidbridge.org | {v}",
        v,
    )
    v = "$2y$10$" + pick(AN + "./", 53)
    B("bcrypt_password_hash", f"htpasswd entry for the reports site: reports:{v}", v)
    v = "pbkdf2_sha256$600000$" + pick(AN, 22) + "$" + b64bytes(32)
    B(
        "bcrypt_password_hash",
        f"Hash Django du compte kobo admin (ne permet pas de se connecter) : {v}",
        v,
    )

    # dhis2_uid
    v = rng.choice(UP + LO) + pick(AN, 10)
    B("dhis2_uid", f"DHIS2 dataset uid for the weekly nutrition report: {v}", v)
    v = rng.choice(UP + LO) + pick(AN, 10)
    B("dhis2_uid", f"GET /api/organisationUnits/{v}?fields=name,level", v)
    v = rng.choice(UP + LO) + pick(AN, 10)
    B("dhis2_uid", f"UID de l'élément de données « MAS admis » : {v}", v)

    # bitlocker_recovery_key_id
    v = HX(8)
    B(
        "bitlocker_recovery_key_id",
        f"Laptop shows BitLocker recovery key ID {v} — look it up in Intune, don't read the key over the radio.",
        v,
    )
    v = "{" + uuid4().upper() + "}"
    B("bitlocker_recovery_key_id", f"Identificateur de clé de récupération : {v}", v)

    # enketo_public_form_link
    v = f"https://ee.kobotoolbox.org/x/{pick(AN, 8)}"
    B("enketo_public_form_link", f"Public web form for the community feedback survey: {v}", v)
    v = f"https://ee.kobotoolbox.org/single/{pick(AN, 8)}"
    B(
        "enketo_public_form_link",
        f"Lien du formulaire de satisfaction (une seule soumission) : {v}",
        v,
    )
    v = f"https://odk.aidbridge.org/-/single/{pick(AN, 16)}?st={pick(B64U, 20)}"
    B(
        "enketo_public_form_link",
        f"Enlace público del formulario de quejas (sin inicio de sesión): {v}",
        v,
    )

    # db_url_without_password
    v = "postgresql://cashapp@10.20.0.15:5432/beneficiaries"
    B("db_url_without_password", f"DATABASE_URL={v}  # password via PGPASSFILE", v)
    v = "mongodb+srv://cluster0.kx7p2.mongodb.net/kobocat"
    B(
        "db_url_without_password",
        f"Mongo host for kobocat: {v} (user/pass injected by the container)",
        v,
    )
    v = "postgresql://odk:${DB_PASSWORD}@postgres14:5432/odk"
    B("db_url_without_password", f"DATABASE_URL={v}", v)

    # radio_callsign_selcall
    v = rng.choice(["Alpha", "Bravo", "Charlie", "Papa"]) + " " + str(rng.randint(1, 9))
    B("radio_callsign_selcall", f"Goma base callsign is {v}, convoy leader Mike 2.", v)
    v = pick(DG, 4)
    B("radio_callsign_selcall", f"Codan HF selcall ID for the Malakal base station: {v}", v)
    v = f"{rng.randint(5, 9)}{pick(DG, 3)}.0 kHz"
    B("radio_callsign_selcall", f"Fréquence HF de jour du réseau sécurité : {v}", v)

    # npm_integrity_hash
    v = "sha512-" + b64bytes(64)
    B("npm_integrity_hash", f'"integrity": "{v}"', v)
    v = "sha512-" + b64bytes(64)
    B("npm_integrity_hash", f"package-lock entry for enketo-core, integrity {v}", v)

    # firmware_version
    v = f"{rng.randint(1, 3)}.{rng.randint(10, 40)}.{rng.randint(0, 9)}"
    B("firmware_version", f"Explorer 710 firmware {v} fixes the PDP context drop.", v)
    v = f"{rng.randint(2025, 2026)}.{rng.randint(10, 52)}.0.mr{pick(DG, 5)}"
    B("firmware_version", f"Starlink software version {v} on the Beni dish.", v)
    v = f"RUT9M_R_00.07.{rng.randint(4, 9)}.{rng.randint(0, 5)}"
    B("firmware_version", f"Version du firmware Teltonika (Kalemie) : {v}", v)

    # gps_coordinates
    v = f"-1.{pick(DG, 4)}, 29.{pick(DG, 4)}"
    B("gps_coordinates", f"Distribution point Mugunga: {v}", v)
    v = f"3.{pick(DG, 5)}N 35.{pick(DG, 5)}E"
    B("gps_coordinates", f"Eneo la usambazaji Kakuma 4: {v}", v)
    v = f"7.{pick(DG, 4)}, -72.{pick(DG, 4)}"
    B("gps_coordinates", f"Coordenadas del punto de atención en Villa del Rosario: {v}", v)

    # voucher_serial_number
    v = f"VCH-{pick(DG, 4)}-{pick(DG, 6)}"
    B("voucher_serial_number", f"Voucher serial {v} reported lost — cancel and reissue.", v)
    v = f"BON-{pick(UP, 2)}{pick(DG, 7)}"
    B("voucher_serial_number", f"Numéro de série du bon alimentaire : {v} (valeur 25 000 FCFA)", v)
    v = f"{pick(DG, 3)}-{pick(DG, 3)}-{pick(DG, 4)}"
    B(
        "voucher_serial_number",
        f"Western Union MTCN for the staff salary transfer to Bossaso: {v} — tracking only, pickup needs ID.",
        v,
    )

    # ---- additional benign rows
    v = "a" + pick(AN, 21)
    B("kobo_asset_uid", f"Fomu ya tathmini ya soko (Kobo) ina asset uid {v}", v)
    v = f"hh_registration_{rng.choice(['mopti', 'gao'])}_v{rng.randint(2, 9)}"
    B("odk_form_id_version", f'<data id="{v}" version="{pick(DG, 10)}">', v)
    v = f"uuid:{uuid4()}"
    B("submission_instance_id", f"meta/rootUuid = {v} (edited submission, keep the original)", v)
    v = pick(DG, 6)
    B("mpesa_shortcode_till", f"Paybill ya mradi wa fedha taslimu: {v}, akaunti: jina la kijiji", v)
    v = uuid4()
    B("momo_reference_id", f"GET /disbursement/v1_0/transfer/{v} → status SUCCESSFUL", v)
    v = f"PAY-{rng.choice(['TUM', 'CUC'])}-{pick(DG, 4)}"
    B("distribution_batch_id", f"Lote de pagos {v} conciliado con el reporte del operador.", v)
    v = hx(12)
    B("git_commit_sha", f"git revert {v}  # broke the M-Pesa callback parser", v)
    v = f"ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBB{pick(B64, 88)}="
    B("ssh_public_key", f"Host key of the Juba jump box (known_hosts): jump.aidbridge.org {v}", v)
    v = f"SHA256:{pick(B64, 43)}"
    B(
        "pgp_fingerprint",
        f"ED25519 key fingerprint is {v}. Are you sure you want to continue connecting (yes/no)?",
        v,
    )
    v = f"pk_live_{hx(40)}"
    B("publishable_key", f"Clé publique Paystack pour le bouton de don (Ghana) : {v}", v)
    v = "6L" + pick(B64U, 38)
    B("recaptcha_site_key", f"RECAPTCHA_SITE_KEY={v}", v)
    v = "يجب تغيير كلمات المرور كل 90 يوماً"
    B("password_policy_text", f"سياسة أمن المعلومات: {v} ولا تُكتب على الأجهزة.", v)
    v = f"TEL-{pick(DG, 5)}"
    B("it_ticket_reference", f"Tiketi ya Starlink {v} imefungwa, huduma imerudi Kakuma.", v)
    v = f"HC-{pick(DG, 7)}"
    B("travel_booking_reference", f"Hotel confirmation for the Bamako cash workshop: {v}", v)
    v = f"{rng.randint(2, 4)}.{rng.randint(30, 42)}.{rng.randint(0, 9)}"
    B("app_build_version", f"DHIS2 server upgraded to {v}; Android capture app 3.1.1.", v)
    v = f"ws_CO_{pick(DG, 14)}{pick(DG, 5)}"
    B(
        "request_correlation_id",
        f"STK push CheckoutRequestID={v} ResultCode=1032 (cancelled by user)",
        v,
    )
    v = f"192.168.{rng.randint(1, 100)}.{rng.randint(2, 250)}"
    B("ip_address_or_subnet", f"عنوان الطابعة في مكتب عدن: {v}", v)
    v = f"{pick(DG, 3)}-{pick(DG, 2)}C{pick(DG, 5)}"
    B(
        "unhcr_progres_id",
        f"Número de caso ACNUR {v}, familia de 4, referido desde el PAT de Maicao.",
        v,
    )
    v = f"GFFO-{rng.randint(2025, 2026)}-{pick(DG, 4)}"
    B("donor_grant_code", f"Code bailleur pour les frais de temps d'antenne satellite : {v}", v)
    v = "AC" + hx(32)
    B(
        "twilio_account_sid",
        f"curl -u $TWILIO_SID:$TWILIO_TOKEN https://api.twilio.com/2010-04-01/Accounts/{v}/Messages.json",
        v,
    )
    v = uuid4()
    B("azure_tenant_client_id", f"tenantId: {v}\nsubscriptionId: {uuid4()}", v)
    v = uuid4().upper()
    B(
        "bitlocker_recovery_key_id",
        f"Kitambulisho cha ufunguo wa BitLocker kwenye laptop ya fedha: {v} (ufunguo wenyewe uko Intune)",
        v,
    )
    v = rng.choice(["CBKEKENX", "BARCKENX", "CITIKENA"])
    B("swift_bic", f"SWIFT ya benki ya mtoa huduma wa simu za setilaiti: {v}", v)
    v = "sha1-" + b64bytes(20)
    B("npm_integrity_hash", f"lockfile integrity for odk-xform-parser: {v}", v)

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

# ruff: noqa: E501
"""Blind secret-detector corpus 59: travel and airline booking integration.

Brief: memory notes of a travel/airline booking integration team - GDS (Amadeus, Sabre, Travelport) credentials, NDC partner APIs, hotel channel managers, payment processors and 3-D Secure, loyalty programmes, airport and kiosk systems - mixed with PNRs, ticket/EMD numbers, office ids, test cards and other look-alikes that are not secrets.

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Run: python blind_secrets_59.py [out.jsonl]

Kinds, secret: amadeus_selfservice_api_secret, amadeus_ws_soap_password, amadeus_sellco_totp_seed, sabre_rest_client_secret, sabre_session_token, sabre_epr_password, travelport_uapi_password, travelport_jsonapi_client_secret, ndc_partner_api_key, ndc_oauth_client_secret, ndc_bearer_jwt, siteminder_pmsxchange_password, channel_manager_api_token, bookingcom_connectivity_password, expedia_rapid_shared_secret, stripe_live_secret_key, stripe_restricted_key, stripe_webhook_secret, adyen_api_key, adyen_hmac_key, braintree_private_key, checkout_com_secret_key, paypal_client_secret, cardinal_3ds_api_key, threeds_server_private_key_pem, hsm_zmk_component, loyalty_partner_api_key, loyalty_member_account_password, kiosk_admin_password, airport_wifi_psk, bsp_sftp_password, aws_secret_access_key, github_pat, slack_bot_token, slack_webhook_url, postgres_url_password, mssql_connection_password, redis_url_password, jwt_hs256_signing_secret, openssh_private_key, gcp_service_account_key, sendgrid_api_key, twilio_auth_token, datadog_api_key, npm_token, azure_storage_account_key, prose_password_no_keyword
Kinds, benign: pnr_record_locator, eticket_number, emd_number, conjunction_ticket_range, amadeus_office_id, sabre_pcc, iata_agency_number, hotel_confirmation_number, frequent_flyer_number, bcbp_boarding_pass_string, fare_basis_code, ndc_offer_order_id, channel_manager_property_rate_code, sabre_conversation_id, travelport_universal_record_locator, baggage_tag_number, kiosk_serial_number, device_mac_address, documented_test_card, masked_pan, threeds_transaction_id, cardinal_org_unit_id, stripe_publishable_key, adyen_client_key, stripe_object_id, recaptcha_site_key, placeholder_token, env_var_reference, vault_reference, redacted_value, aws_documented_example_key, jwt_io_documented_example, git_commit_sha, file_sha256, docker_image_digest, npm_integrity_hash, uuid_request_id, trace_id_hex, x509_certificate_pem, ssh_public_key, cert_fingerprint, password_policy_text, revoked_key_confirmed_revoked, kcv_key_check_value, base64_pagination_cursor, idempotency_key, loyalty_award_reference, changeme_default_in_template
"""

import json
import random
import string
import sys

SEED = 5959

UP = string.ascii_uppercase
LO = string.ascii_lowercase
DG = string.digits
AN = UP + LO + DG
UD = UP + DG
LD = LO + DG
HX = "0123456789abcdef"
HXU = "0123456789ABCDEF"
B32 = UP + "234567"
B64 = AN + "+/"
B64U = AN + "-_"
PNRA = "".join(c for c in UD if c not in "01IO")

WORDS = [
    "Sabre",
    "Lisbon",
    "Winter",
    "Amadeus",
    "Galileo",
    "Concorde",
    "Runway",
    "Boarding",
    "Falcon",
    "Kiosk",
    "Tarmac",
    "Jetlag",
    "Summer",
    "Madrid",
    "Heathrow",
    "Pegasus",
    "Voyage",
    "Compass",
    "Atlas",
    "Horizon",
    "Skyline",
    "Harbor",
    "Orion",
    "Jupiter",
]
SYMS = "!@#$%&*?"
CITIES = ["NCE", "MAD", "LON", "FRA", "PAR", "MUC", "BCN", "LIS", "DXB", "SIN", "NYC", "MIA"]
AIRLINE_PFX = [
    "001",
    "006",
    "014",
    "016",
    "020",
    "057",
    "074",
    "075",
    "081",
    "125",
    "157",
    "176",
    "220",
    "235",
]


def s(r, alph, n):
    return "".join(r.choice(alph) for _ in range(n))


def human_pw(r):
    w = r.choice(WORDS)
    p = r.randint(0, 3)
    if p == 0:
        return w + str(r.randint(1970, 2029)) + r.choice(SYMS)
    if p == 1:
        return w.lower() + r.choice(SYMS) + r.choice(WORDS) + str(r.randint(10, 999))
    if p == 2:
        return r.choice(SYMS) + w + "_" + str(r.randint(100, 99999))
    return w[0].lower() + w[1:] + str(r.randint(10, 99)) + r.choice(SYMS) + r.choice(SYMS)


def gen_pw(r, n=16):
    alph = AN + "!#$%^*-_=+"
    while True:
        v = s(r, alph, n)
        if any(c in DG for c in v) and any(c in UP for c in v) and any(c in LO for c in v):
            return v


def uuid4(r):
    h = s(r, HX, 32)
    h = h[:12] + "4" + h[13:16] + r.choice("89ab") + h[17:]
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def b64block(r, n):
    return s(r, B64, n)


def pem_body(r, first, nchars):
    body = first + s(r, B64, nchars - len(first))
    return "\n".join(body[i : i + 64] for i in range(0, len(body), 64))


def jwt(r):
    head = "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCIsImtpZCI6I"
    return (
        head
        + s(r, B64U, 12)
        + "."
        + "eyJpc3MiOiJodHRwczovL"
        + s(r, B64U, 150)
        + "."
        + s(r, B64U, 342)
    )


# ---------------------------------------------------------------- secret kinds
# each kind: (kind, generator(r) -> dict with "v" and optional extras, [templates])

SECRET = [
    (
        "amadeus_selfservice_api_secret",
        lambda r: {"v": s(r, AN, 16), "k": s(r, AN, 32)},
        [
            "amadeus for devs (prod app 'fare-sync'): API key {k} / API secret {v}",
            "curl -s -X POST https://api.amadeus.com/v1/security/oauth2/token -d grant_type=client_credentials -d client_id={k} -d client_secret={v}",
            "AMADEUS_CLIENT_ID={k}\nAMADEUS_CLIENT_SECRET={v}",
            "| amadeus prod | {k} | {v} | owner: pricing squad |",
            "secret pour l'appli Amadeus prod (fare-sync) : {v} - ne pas la mettre dans le repo svp",
        ],
    ),
    (
        "amadeus_ws_soap_password",
        lambda r: {"v": gen_pw(r, 12)},
        [
            "Amadeus WS (1ASIWXXXXX, WSAP 1ASIWFLYX) - prod user WSFLYX, pwd {v}. digest nonce must be base64 of 16 bytes or it throws 11|Session|",
            "<amadeus.ws.password>{v}</amadeus.ws.password>  <!-- prod, NCE1A0955 -->",
            "handover: soap header Security_Authenticate uses WSFLYX / {v} (prod). UAT pwd is different, ask Marta",
            'amadeus:\n  endpoint: https://nodeD1.production.webservices.amadeus.com/1ASIWFLYX\n  user: WSFLYX\n  password: "{v}"',
        ],
    ),
    (
        "amadeus_sellco_totp_seed",
        lambda r: {"v": s(r, B32, 32)},
        [
            "2FA seed for the shared Selling Platform Connect admin login (so oncall can generate codes): {v}",
            "oathtool --totp -b {v}   # SPC admin, shared by the ops rota",
            "otpauth://totp/Amadeus%20SPC:ops-admin?secret={v}&issuer=Amadeus%20SPC",
            "Semilla TOTP del usuario admin de SPC: {v} (no la perdáis, el reset tarda 3 días)",
        ],
    ),
    (
        "sabre_rest_client_secret",
        lambda r: {"v": s(r, AN, 8)},
        [
            "Sabre Dev Studio prod: clientId V1:7971:H4KJ:AA, secret {v} - token = base64(base64(id):base64(secret))",
            "SABRE_CLIENT_SECRET={v}",
            "sabre rest creds rotated today, new secret is {v}. old one dies friday",
            "curl -X POST https://api.platform.sabre.com/v2/auth/token -H \"Authorization: Basic $(printf '%s:%s' $(echo -n V1:7971:H4KJ:AA|base64) $(echo -n {v}|base64)|base64 -w0)\"  # {v} is the prod secret",
        ],
    ),
    (
        "sabre_session_token",
        lambda r: {"v": "T1RLAQ" + s(r, B64, 158) + "**"},
        [
            "sabre BinarySecurityToken from this morning (valid 7 days, the ATK one): {v}",
            '<wsse:BinarySecurityToken valueType="String" EncodingType="wsse:Base64Binary">{v}</wsse:BinarySecurityToken>',
            "Authorization: Bearer {v}",
            "paste from #gds-support:\n> here's a working token if you want to repro\n> {v}",
        ],
    ),
    (
        "sabre_epr_password",
        lambda r: {"v": human_pw(r)},
        [
            "EPR 28841 / PCC H4KJ sign-in: {v} (shared training EPR, dont lock it - 3 tries)",
            "SI*28841§{v}§H4KJ  -- sabre red sign in for the training EPR",
            "Sabre EPR 28841 Passwort ist jetzt {v}, wurde gestern geändert.",
            "sabre: epr=28841 pcc=H4KJ pwd={v}",
        ],
    ),
    (
        "travelport_uapi_password",
        lambda r: {"v": gen_pw(r, 10)},
        [
            "uAPI prod: Universal API/uAPI6184930227-7b4c1e09 pwd {v} TargetBranch P7183352",
            "TRAVELPORT_UAPI_USER=Universal API/uAPI6184930227-7b4c1e09\nTRAVELPORT_UAPI_PASSWORD={v}",
            "travelport basic auth is 'Universal API/uAPI6184930227-7b4c1e09:{v}' base64'd, remember the space in the username",
            "| travelport uAPI | prod | uAPI6184930227-7b4c1e09 | {v} | P7183352 |",
        ],
    ),
    (
        "travelport_jsonapi_client_secret",
        lambda r: {"v": s(r, AN + "-_", 40), "k": uuid4(r)},
        [
            "Travelport+ JSON API oauth: client_id {k} client_secret {v} (password grant, plus the user/pwd pair from the vault)",
            "tp_json:\n  client_id: {k}\n  client_secret: {v}",
            "--client-secret={v} --client-id={k} --env=prod",
        ],
    ),
    (
        "ndc_partner_api_key",
        lambda r: {"v": s(r, HX, 32)},
        [
            "NDC gateway for the LH group: header x-api-key: {v} (prod, rate limit 20 rps)",
            "IB NDC prod key -> {v}",
            "curl -H 'Ocp-Apim-Subscription-Key: {v}' https://ndc.partner-airline.example/AirShopping",
            "Clé API NDC de production (Air France-KLM) : {v}",
        ],
    ),
    (
        "ndc_oauth_client_secret",
        lambda r: {"v": s(r, AN + "~._-", 34), "k": s(r, LD, 20)},
        [
            "NDC aggregator oauth: client_id={k} client_secret={v} scope=ndc.order",
            '{{"client_id": "{k}", "client_secret": "{v}", "audience": "ndc-prod"}}',
            "NDC_CLIENT_SECRET='{v}'",
        ],
    ),
    (
        "ndc_bearer_jwt",
        lambda r: {"v": jwt(r)},
        [
            "repro for the OrderCreate 500 (token still valid ~1h):\ncurl -H 'Authorization: Bearer {v}' -d @order.xml https://api.ndc-hub.example/v21.3/OrderCreate",
            "access_token: {v}",
            "Authorization: Bearer {v}",
        ],
    ),
    (
        "siteminder_pmsxchange_password",
        lambda r: {"v": gen_pw(r, 14)},
        [
            "SiteMinder pmsXchange prod: user fly_pmsx_prod / {v}. soap wsse UsernameToken, PasswordText",
            '<wsse:Username>fly_pmsx_prod</wsse:Username><wsse:Password Type="wsse:PasswordText">{v}</wsse:Password>',
            "channel mgr (siteminder) creds for hotel 4412 sync: fly_pmsx_prod {v}",
            "SITEMINDER_PASSWORD={v}",
        ],
    ),
    (
        "channel_manager_api_token",
        lambda r: {"v": s(r, LD, 40)},
        [
            "cloudbeds/ota-sync token for the Porto properties: {v}",
            "X-Api-Token: {v}",
            "rategain push endpoint wants ?token={v} in the query, yes really",
            "token do channel manager (hotéis do Porto): {v}",
        ],
    ),
    (
        "bookingcom_connectivity_password",
        lambda r: {"v": gen_pw(r, 20)},
        [
            "Booking.com connectivity machine account: flytravel-xml / {v} (B.XML endpoints, basic auth)",
            "curl -u 'flytravel-xml:{v}' https://supply-xml.booking.com/hotels/xml/reservations",
            "bdc xml pwd={v}",
        ],
    ),
    (
        "expedia_rapid_shared_secret",
        lambda r: {"v": s(r, LD, 16), "k": s(r, LD, 30)},
        [
            "Expedia Rapid prod: apikey {k}, shared secret {v}. sig = sha512(apikey+secret+unix ts)",
            "EPS_API_KEY={k}\nEPS_SHARED_SECRET={v}",
            "rapid secret = {v} (key {k}) - rotated after the Q3 audit",
        ],
    ),
    (
        "stripe_live_secret_key",
        lambda r: {"v": "sk_live_" + (s(r, AN, 24) if r.random() < 0.4 else "51" + s(r, AN, 97))},
        [
            "STRIPE_SECRET_KEY={v}",
            "stripe prod key for the ancillaries checkout: {v}",
            "stripe refunds create --charge ch_3Nx --api-key {v}",
            'Stripe.api_key = "{v}"  # TODO move to env',
        ],
    ),
    (
        "stripe_restricted_key",
        lambda r: {"v": "rk_live_51" + s(r, AN, 97)},
        [
            "restricted key (refunds+read only) for the support tool: {v}",
            "STRIPE_RK={v}",
            "rk for finance export -> {v}",
        ],
    ),
    (
        "stripe_webhook_secret",
        lambda r: {"v": "whsec_" + s(r, AN, 32)},
        [
            "stripe webhook signing secret for /hooks/payments prod: {v}",
            "STRIPE_WEBHOOK_SECRET={v}",
            "if signature verification fails check you're using {v} and not the CLI one",
        ],
    ),
    (
        "adyen_api_key",
        lambda r: {
            "v": "AQE" + s(r, B64, 57) + "==-" + s(r, B64, 43) + "=-" + s(r, AN + "~+,<>%", 16)
        },
        [
            "Adyen ws@Company.FlyTravel API key (LIVE): {v}",
            "curl https://checkout-live.adyenpayments.com/checkout/v71/payments -H 'X-API-Key: {v}'",
            'ADYEN_API_KEY="{v}"',
            "Clave API de Adyen en LIVE, la que usa el motor de reservas:\n{v}",
        ],
    ),
    (
        "adyen_hmac_key",
        lambda r: {"v": s(r, HXU, 64)},
        [
            "adyen notifications HMAC key (standard webhook, live): {v}",
            "ADYEN_HMAC_KEY={v}",
            "hmac for webhook validation = {v}",
        ],
    ),
    (
        "braintree_private_key",
        lambda r: {"v": s(r, HX, 32), "k": s(r, LD, 16)},
        [
            "braintree prod: merchant_id x9k2mfz7q3 public_key {k} private_key {v}",
            "BRAINTREE_PRIVATE_KEY={v}",
            "gateway = braintree.BraintreeGateway(braintree.Configuration(braintree.Environment.Production, merchant_id='x9k2mfz7q3', public_key='{k}', private_key='{v}'))",
        ],
    ),
    (
        "checkout_com_secret_key",
        lambda r: {"v": "sk_" + uuid4(r)},
        [
            "checkout.com secret key (live, old ABC account): {v}",
            "Authorization: {v}",
            "CKO_SECRET_KEY={v}",
        ],
    ),
    (
        "paypal_client_secret",
        lambda r: {"v": "E" + s(r, AN + "-_", 79), "k": "A" + s(r, AN + "-_", 79)},
        [
            "paypal live REST app: client id {k}\nsecret {v}",
            "PAYPAL_CLIENT_SECRET={v}",
            'curl -u "{k}:{v}" https://api-m.paypal.com/v1/oauth2/token -d grant_type=client_credentials',
        ],
    ),
    (
        "cardinal_3ds_api_key",
        lambda r: {"v": uuid4(r), "i": s(r, HX, 24), "o": s(r, HX, 24)},
        [
            "Cardinal Cruise (3DS) prod: API Identifier {i}, OrgUnitId {o}, API Key {v} - the key signs the Songbird JWT, server side only",
            "CARDINAL_API_KEY={v}",
            "3ds jwt is HS256 signed with {v} (apiKey), iss={i}, OrgUnitId={o}",
        ],
    ),
    (
        "threeds_server_private_key_pem",
        lambda r: {
            "v": "-----BEGIN PRIVATE KEY-----\n"
            + pem_body(r, "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ", 1620)
            + "\n-----END PRIVATE KEY-----"
        },
        [
            "client cert key for the 3DS server -> DS (visa) mTLS, prod:\n{v}",
            "threeds-server.key:\n{v}",
            "ok here's the key the scheme certificate was issued for, put it on the 3ds pod\n{v}",
        ],
    ),
    (
        "hsm_zmk_component",
        lambda r: {"v": s(r, HXU, 32)},
        [
            "ZMK component 2 of 3 (custodian: me) {v} KCV to follow",
            "hsm key ceremony notes - comp1 {v}",
            "Komponente 1 vom ZMK für das Zahlungs-HSM: {v}",
        ],
    ),
    (
        "loyalty_partner_api_key",
        lambda r: {"v": "lp_live_" + s(r, AN, 32)},
        [
            "miles accrual partner API (loyalty programme) live key: {v}",
            "LOYALTY_API_KEY={v}",
            "POST /v2/accruals with header X-Partner-Key: {v}",
        ],
    ),
    (
        "loyalty_member_account_password",
        lambda r: {"v": human_pw(r)},
        [
            "test FF account on the PROD loyalty site (real miles, 80k on it!) member 4021 883 117, pwd {v}",
            "loyalty prod login for the award-search bot: ffbot@flytravel.example / {v}",
            "mot de passe du compte fidélité utilisé par le robot : {v}",
        ],
    ),
    (
        "kiosk_admin_password",
        lambda r: {"v": human_pw(r)},
        [
            "CUSS kiosk maintenance mode at T2 gates: admin pwd {v} (press logo 5x)",
            "kiosk bios + local admin = {v} same on all 14 units in LIS T1",
            "Contraseña de mantenimiento de los quioscos de facturación: {v}",
            "kiosk-maint: user=svc_kiosk pass={v}",
        ],
    ),
    (
        "airport_wifi_psk",
        lambda r: {"v": human_pw(r) + s(r, DG, 2)},
        [
            "ops ssid FLY-OPS-BACKOFFICE psk: {v}",
            "WIFI:T:WPA;S:FLY-OPS-BACKOFFICE;P:{v};;",
            "wifi for the kiosk vlan at the airport office: {v}",
        ],
    ),
    (
        "bsp_sftp_password",
        lambda r: {"v": gen_pw(r, 12)},
        [
            "BSPlink / HOT file sftp (sftp.bsp-settlement.example): user FLY0123 pwd {v}",
            "sftp -oPort=2222 FLY0123@sftp.bsp-settlement.example  # pw {v}",
            "ARC IAR settlement drop: login flytravel_arc password {v}",
        ],
    ),
    (
        "aws_secret_access_key",
        lambda r: {"v": s(r, AN + "+/", 40), "k": "AKIA" + s(r, B32, 16)},
        [
            "aws creds for the pnr-archive bucket: {k} / {v}",
            "[pnr-archive]\naws_access_key_id = {k}\naws_secret_access_key = {v}",
            "AWS_ACCESS_KEY_ID={k} AWS_SECRET_ACCESS_KEY={v} aws s3 ls s3://fly-pnr-archive/",
        ],
    ),
    (
        "github_pat",
        lambda r: {"v": "ghp_" + s(r, AN, 36)},
        [
            "PAT for the fare-rules repo mirror job: {v}",
            "git clone https://x-access-token:{v}@github.com/flytravel/ndc-schemas.git",
            "GH_TOKEN={v}",
        ],
    ),
    (
        "slack_bot_token",
        lambda r: {"v": "xoxb-" + s(r, DG, 12) + "-" + s(r, DG, 13) + "-" + s(r, AN, 24)},
        [
            "booking-alerts bot token {v}",
            "SLACK_BOT_TOKEN={v}",
            "curl -H 'Authorization: Bearer {v}' https://slack.com/api/chat.postMessage -d channel=C0GDSALERT",
        ],
    ),
    (
        "slack_webhook_url",
        lambda r: {
            "v": "https://hooks.slack.com/services/T"
            + s(r, UD, 9)
            + "/B"
            + s(r, UD, 10)
            + "/"
            + s(r, AN, 24)
        },
        ["ticketing failures -> #tkt-fail via {v}", "alert_webhook: {v}"],
    ),
    (
        "postgres_url_password",
        lambda r: {
            "v": gen_pw(r, 18)
            .replace("#", "x")
            .replace("%", "y")
            .replace("^", "z")
            .replace("+", "p")
            .replace("=", "q")
        },
        [
            "DATABASE_URL=postgresql://booking_rw:{v}@pg-booking-prod.internal:5432/bookings",
            'psql "postgres://booking_rw:{v}@pg-booking-prod.internal/bookings?sslmode=require"',
            "pg prod (bookings): booking_rw / {v}",
        ],
    ),
    (
        "mssql_connection_password",
        lambda r: {"v": human_pw(r)},
        [
            "legacy midoffice DB: Server=sql-midoffice01;Database=TravelCom;User Id=tc_app;Password={v};",
            "the old mid-office sql box still takes sa / {v}, we should really fix that",
            '"ConnectionStrings": {{ "MidOffice": "Data Source=sql-midoffice01;Initial Catalog=TravelCom;User ID=tc_app;Password={v}" }}',
        ],
    ),
    (
        "redis_url_password",
        lambda r: {"v": s(r, AN, 32)},
        [
            "fare cache: REDIS_URL=rediss://default:{v}@fare-cache.prod.internal:6380/0",
            "redis-cli -h fare-cache.prod.internal -p 6380 --tls -a {v}",
        ],
    ),
    (
        "jwt_hs256_signing_secret",
        lambda r: {"v": s(r, B64, 43) + "="},
        [
            "itinerary share links are HS256 JWTs signed with {v} - anyone with it can mint links",
            "JWT_SECRET={v}",
            'app.jwt.secret: "{v}"',
        ],
    ),
    (
        "openssh_private_key",
        lambda r: {
            "v": "-----BEGIN OPENSSH PRIVATE KEY-----\n"
            + pem_body(
                r, "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW", 400
            )
            + "\n-----END OPENSSH PRIVATE KEY-----"
        },
        [
            "deploy key for the kiosk image builder:\n{v}",
            "id_ed25519 of the jump host (gds-bastion):\n{v}",
        ],
    ),
    (
        "gcp_service_account_key",
        lambda r: {
            "v": "-----BEGIN PRIVATE KEY-----\\n"
            + "\\n".join(
                ("MIIEvAIBADANBgkqhkiG9w0BAQEFAASCBKYwggSiAgEAAoIBAQ" + s(r, B64, 1500))[i : i + 64]
                for i in range(0, 1550, 64)
            )
            + "\\n-----END PRIVATE KEY-----\\n",
            "k": s(r, HX, 40),
        },
        [
            '{{\n  "type": "service_account",\n  "project_id": "fly-pricing-prod",\n  "private_key_id": "{k}",\n  "private_key": "{v}",\n  "client_email": "bq-loader@fly-pricing-prod.iam.gserviceaccount.com"\n}}',
            'sa key for bq fare exports (paste, sorry): "private_key": "{v}"',
        ],
    ),
    (
        "sendgrid_api_key",
        lambda r: {"v": "SG." + s(r, B64U, 22) + "." + s(r, B64U, 43)},
        [
            "e-ticket confirmation mails go out via sendgrid, key {v}",
            "SENDGRID_API_KEY={v}",
            "curl --request POST https://api.sendgrid.com/v3/mail/send --header 'Authorization: Bearer {v}'",
        ],
    ),
    (
        "twilio_auth_token",
        lambda r: {"v": s(r, HX, 32), "k": "AC" + s(r, HX, 32)},
        [
            "twilio (flight delay SMS): account {k} auth token {v}",
            "TWILIO_ACCOUNT_SID={k}\nTWILIO_AUTH_TOKEN={v}",
            "curl -u {k}:{v} https://api.twilio.com/2010-04-01/Accounts/{k}/Messages.json",
        ],
    ),
    (
        "datadog_api_key",
        lambda r: {"v": s(r, HX, 32)},
        [
            "DD_API_KEY={v}",
            "datadog api key for the kiosk fleet agents: {v}",
            "docker run -e DD_API_KEY={v} -e DD_SITE=datadoghq.eu gcr.io/datadoghq/agent:7",
        ],
    ),
    (
        "npm_token",
        lambda r: {"v": "npm_" + s(r, AN, 36)},
        [
            "//registry.npmjs.org/:_authToken={v}",
            "publish token for @flytravel/seatmap-widget: {v}",
        ],
    ),
    (
        "azure_storage_account_key",
        lambda r: {"v": s(r, B64, 86) + "=="},
        [
            "DefaultEndpointsProtocol=https;AccountName=flyboardingpasses;AccountKey={v};EndpointSuffix=core.windows.net",
            "az storage blob list --account-name flyboardingpasses --account-key {v} -c passes",
            "storage key1 for boarding pass PDFs: {v}",
        ],
    ),
    (
        "prose_password_no_keyword",
        lambda r: {"v": human_pw(r)},
        [
            "for the sabre cert box just log in as ops with {v}, it's the same one Jonas set up last year",
            "if the kiosk in gate B12 asks, it's svc_kiosk and then {v}",
            "Travelport cert env -> same as always: flytest / {v}",
            "o acesso ao painel do channel manager é reservas@flytravel.example com {v}",
            "btw got into the BSP portal with FLY0123 + {v} finally",
        ],
    ),
]

# ---------------------------------------------------------------- benign kinds


def _ticket(r):
    return r.choice(AIRLINE_PFX) + s(r, DG, 10)


def _bcbp(r):
    pnr = s(r, PNRA, 6)
    return f"M1SMITH/JANE MS        E{pnr} LISFRATP 0{s(r, DG, 3)} {r.randint(100, 365)}Y0{s(r, DG, 2)}C0{s(r, DG, 3)} 100"


BENIGN = [
    (
        "pnr_record_locator",
        lambda r: {"v": s(r, PNRA, 6)},
        [
            "pax complaint re PNR {v} - schedule change not pushed to the OTA, reissued manually",
            "RT{v}  then TTP/RT to reprint",
            "Reserva {v}: el cliente pide reembolso, billete ya emitido",
            "| {v} | LIS-FRA | TP574 | waitlisted |",
            "{v}",
        ],
    ),
    (
        "eticket_number",
        lambda r: {"v": _ticket(r)},
        [
            "ticket {v} voided within 24h, no ADM expected",
            "TKT/{v}  ETKT issued 12NOV",
            "e-ticket no. {v} shows OPEN FOR USE on coupon 2",
            "Ticketnummer {v} wurde umgebucht, Coupon 1 FLOWN",
        ],
    ),
    (
        "emd_number",
        lambda r: {"v": _ticket(r)},
        [
            "EMD-A {v} for the extra bag (RFIC C / RFISC 0CC) not associated to coupon, fix with EMD assoc",
            "EMDS {v} seat fee, refund to FOP",
            "emd {v} -> status E, can't exchange",
        ],
    ),
    (
        "conjunction_ticket_range",
        lambda r: {"v": (lambda t: t + "-" + str((int(t[-2:]) + 1) % 100).zfill(2))(_ticket(r))},
        ["conjunction tkt {v} (5 segments), reissue both together", "CONJ {v}"],
    ),
    (
        "amadeus_office_id",
        lambda r: {"v": r.choice(CITIES) + "1A" + s(r, DG, 4)},
        [
            "queue placement to office {v} Q8C1 for schedule changes",
            "office id {v} is the one with the NDC access, not the consolidator one",
            "QE/{v}/8C1",
        ],
    ),
    (
        "sabre_pcc",
        lambda r: {"v": s(r, UD, 4)},
        [
            "emulate PCC {v} (AAA{v}) before queue work",
            "sabre pcc: {v} (home), branch of the consolidator",
        ],
    ),
    (
        "iata_agency_number",
        lambda r: {"v": s(r, DG, 8)},
        [
            "IATA number {v} appears on all our BSP settlements",
            "agency iata/arc code = {v}",
            "Código IATA de la agencia: {v}",
        ],
    ),
    (
        "hotel_confirmation_number",
        lambda r: {"v": s(r, UD, 10)},
        [
            "hotel conf {v} from the channel manager doesn't match the PMS one, hotel asked to resend",
            "confirmation number {v} (Marriott Porto) - guest arriving late",
            "numéro de confirmation hôtel : {v}",
        ],
    ),
    (
        "frequent_flyer_number",
        lambda r: {"v": s(r, DG, 9)},
        [
            "FQTV TP{v} not accepted on the LH flight, alliance mapping bug",
            "SSR FQTV YY HK1/ TP{v}",
            "member no {v} - miles credited after 14 days",
        ],
    ),
    (
        "bcbp_boarding_pass_string",
        lambda r: {"v": _bcbp(r)},
        [
            "kiosk scanner decodes this fine but the gate reader rejects it:\n{v}",
            "BCBP sample from the bug report: {v}",
        ],
    ),
    (
        "fare_basis_code",
        lambda r: {"v": r.choice("YBMHKLQVTSWOX") + s(r, UP, 3) + s(r, UD, 3)},
        [
            "fare basis {v} has no refund rule filed, cat16 missing",
            "FQN fare {v}: penalties 150 EUR",
        ],
    ),
    (
        "ndc_offer_order_id",
        lambda r: {"v": "OFR-" + s(r, UD, 20)},
        [
            "AirShopping returned OfferID {v}, OfferPrice rejects it after 15 min TTL",
            "<OfferID>{v}</OfferID>",
            "ndc offer {v} expired - offers are only valid for the TimeLimits window",
        ],
    ),
    (
        "channel_manager_property_rate_code",
        lambda r: {"v": "HTL" + s(r, DG, 5) + "-RP" + s(r, UD, 6)},
        [
            "property/rate plan {v} is not mapped on the Booking.com side",
            "mapping: {v} -> BAR flexible",
        ],
    ),
    (
        "sabre_conversation_id",
        lambda r: {"v": s(r, DG, 13) + "@flytravel.com"},
        [
            "sabre ConversationId {v} for the failing session, send to support",
            "<eb:ConversationId>{v}</eb:ConversationId>",
        ],
    ),
    (
        "travelport_universal_record_locator",
        lambda r: {"v": s(r, PNRA, 6)},
        ["UR locator {v}, 1G provider locator differs", "universal record {v} modified by queue"],
    ),
    (
        "baggage_tag_number",
        lambda r: {"v": "0" + r.choice(AIRLINE_PFX) + s(r, DG, 6)},
        [
            "bag tag {v} mishandled, WorldTracer file opened",
            "licence plate {v} printed twice by the kiosk",
        ],
    ),
    (
        "kiosk_serial_number",
        lambda r: {"v": "KSK-" + s(r, UD, 4) + "-" + s(r, DG, 6)},
        [
            "kiosk {v} at LIS T1 row C keeps rebooting after the CUSS update",
            "S/N {v} - RMA'd to vendor",
            "serial: {v}",
        ],
    ),
    (
        "device_mac_address",
        lambda r: {"v": ":".join(s(r, HX, 2) for _ in range(6))},
        [
            "bag-drop printer {v} on the kiosk vlan, dhcp reservation needed",
            "MAC {v} (ATB printer)",
        ],
    ),
    (
        "documented_test_card",
        lambda r: {
            "v": r.choice(
                [
                    "4000000000003220",
                    "4000002760003184",
                    "4111111111111111",
                    "5555555555554444",
                    "4917610000000000003",
                ]
            )
        },
        [
            "for 3DS challenge flow in test use {v}, any future expiry, any CVC",
            "test card {v} (from the processor docs) triggers frictionless/challenge in sandbox",
            "Tarjeta de prueba para 3DS en sandbox: {v}",
        ],
    ),
    (
        "masked_pan",
        lambda r: {"v": r.choice(["411111", "535522", "376688"]) + "******" + s(r, DG, 4)},
        [
            "chargeback on card {v}, booking 2 days before departure",
            "FOP CC {v} exp **/**",
            "cartão {v} recusado no 3DS",
        ],
    ),
    (
        "threeds_transaction_id",
        lambda r: {"v": uuid4(r)},
        [
            "threeDSServerTransID {v} stuck in CReq, ACS timeout",
            '"dsTransID": "{v}"',
            "3ds trans {v} - frictionless, ECI 05",
        ],
    ),
    (
        "cardinal_org_unit_id",
        lambda r: {"v": s(r, HX, 24)},
        [
            "Cardinal OrgUnitId {v} goes in the JWT claims (not a secret, it's the merchant org id)",
            "org unit: {v}",
        ],
    ),
    (
        "stripe_publishable_key",
        lambda r: {"v": "pk_live_51" + s(r, AN, 97)},
        [
            "publishable key for the checkout page (public, goes in the JS bundle): {v}",
            "NEXT_PUBLIC_STRIPE_PK={v}",
            "Stripe('{v}')",
        ],
    ),
    (
        "adyen_client_key",
        lambda r: {"v": "live_" + s(r, UD, 32)},
        [
            "adyen drop-in clientKey (public, frontend): {v}",
            "clientKey: '{v}', environment: 'live'",
        ],
    ),
    (
        "stripe_object_id",
        lambda r: {"v": r.choice(["pi_3", "ch_3", "re_3", "evt_1", "cus_"]) + s(r, AN, 24)},
        [
            "refund failed for {v}, charge already disputed",
            "see {v} in the dashboard",
            "{v} succeeded but booking not ticketed -> manual TTP",
        ],
    ),
    (
        "recaptcha_site_key",
        lambda r: {"v": "6L" + s(r, AN + "-_", 38)},
        ["recaptcha site key on the search form (public): {v}", 'data-sitekey="{v}"'],
    ),
    (
        "placeholder_token",
        lambda r: {
            "v": r.choice(
                [
                    "<your-sabre-secret>",
                    "<your-token>",
                    "YOUR_API_KEY",
                    "xxxxxxxxxxxxxxxx",
                    "<client_secret>",
                    "REPLACE_ME",
                ]
            )
        },
        [
            "to run locally: export SABRE_CLIENT_SECRET={v}",
            "amadeus:\n  client_secret: {v}",
            "curl -H 'x-api-key: {v}' https://ndc.partner-airline.example/AirShopping",
            "stripe key -> {v} (put yours)",
        ],
    ),
    (
        "env_var_reference",
        lambda r: {
            "v": r.choice(
                [
                    "${SABRE_CLIENT_SECRET}",
                    "${AMADEUS_API_SECRET}",
                    "$ADYEN_API_KEY",
                    "${env:UAPI_PASSWORD}",
                    "%STRIPE_SECRET_KEY%",
                ]
            )
        },
        [
            "password: {v}",
            "the helm chart reads {v} from the pod env, never hardcode",
            "Authorization: Bearer {v}",
            "UAPI_PWD={v}",
        ],
    ),
    (
        "vault_reference",
        lambda r: {
            "v": r.choice(
                [
                    "vault://secret/gds/sabre/prod#client_secret",
                    "secret/data/payments/adyen-live",
                    "arn:aws:secretsmanager:eu-west-1:"
                    + s(r, DG, 12)
                    + ":secret:gds/amadeus-ws-"
                    + s(r, AN, 6),
                    "op://Travel-Ops/Travelport uAPI prod/password",
                ]
            )
        },
        [
            "creds live in {v}, ask #platform for read access",
            "amadeus ws password: see {v}",
            "Die Zugangsdaten liegen in {v}",
        ],
    ),
    (
        "redacted_value",
        lambda r: {
            "v": r.choice(
                [
                    "sk_live_****************",
                    "********",
                    "[REDACTED]",
                    "AQE...(redacted)",
                    "whsec_•••••••",
                ]
            )
        },
        [
            "stripe key was {v} in the log, masking works",
            "client_secret={v}",
            "pwd: {v} (removed, check vault)",
        ],
    ),
    (
        "aws_documented_example_key",
        lambda r: {
            "v": r.choice(["AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"])
        },
        [
            "aws docs example creds used in the README snippet: {v}",
            "aws_access_key_id = {v}  # example from AWS docs",
        ],
    ),
    (
        "jwt_io_documented_example",
        lambda r: {
            "v": "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QQT4fwpMeJf36POk6yJV_adQssw5c"
        },
        ["unit test fixture uses the jwt.io sample token {v}"],
    ),
    (
        "git_commit_sha",
        lambda r: {"v": s(r, HX, 40)},
        [
            "fix for the EMD rounding bug is {v} on main",
            "reverted {v} - broke the kiosk build",
            "git cherry-pick {v}",
        ],
    ),
    (
        "file_sha256",
        lambda r: {"v": s(r, HX, 64)},
        ["sha256 of the HOT file we reprocessed: {v}", "{v}  ssim_winter.dat"],
    ),
    (
        "docker_image_digest",
        lambda r: {"v": "sha256:" + s(r, HX, 64)},
        ["pricing-svc pinned to ghcr.io/flytravel/pricing@{v}", "image digest {v}"],
    ),
    (
        "npm_integrity_hash",
        lambda r: {"v": "sha512-" + s(r, B64, 86) + "=="},
        ['"integrity": "{v}"', "lockfile integrity changed to {v}"],
    ),
    (
        "uuid_request_id",
        lambda r: {"v": uuid4(r)},
        [
            "x-request-id {v} for the failed OrderCreate",
            "correlation id: {v}",
            "Amadeus SessionId trace {v}",
        ],
    ),
    (
        "trace_id_hex",
        lambda r: {"v": s(r, HX, 32)},
        ["trace_id={v} shows 4s in the GDS call", "traceparent: 00-{v}-" + "b7ad6b7169203331-01"],
    ),
    (
        "x509_certificate_pem",
        lambda r: {
            "v": "-----BEGIN CERTIFICATE-----\n"
            + pem_body(r, "MIIDdzCCAl+gAwIBAgIE", 1200)
            + "\n-----END CERTIFICATE-----"
        },
        [
            "public cert Travelport gave us for response signing verification:\n{v}",
            "DS root cert (public) for the 3ds server truststore:\n{v}",
        ],
    ),
    (
        "ssh_public_key",
        lambda r: {"v": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + s(r, B64, 43)},
        [
            "add my pubkey to the bastion: {v} ana@laptop",
            "authorized_keys entry for BSP sftp: {v} bsp-upload",
        ],
    ),
    (
        "cert_fingerprint",
        lambda r: {"v": ":".join(s(r, HXU, 2) for _ in range(20))},
        ["pin the NDC gateway cert, SHA1 fingerprint {v}", "fingerprint {v} (expires 2027-03)"],
    ),
    (
        "password_policy_text",
        lambda r: {"v": "min " + str(r.randint(12, 16)) + " chars"},
        [
            "GDS sign-in passwords: {v}, rotate every 90 days, no reuse of last 6, never share EPRs",
            "kiosk admin password policy = {v}, 1 upper, 1 digit, 1 symbol (PCI req 8.3.6)",
        ],
    ),
    (
        "revoked_key_confirmed_revoked",
        lambda r: {"v": "sk_live_" + s(r, AN, 24)},
        [
            "the key leaked in the ticket ({v}) was rolled in the dashboard the same hour, confirmed revoked - returns 401 now",
            "REVOKED, do not use: {v} (rotated 2026-10-02, Stripe confirms expired)",
        ],
    ),
    (
        "kcv_key_check_value",
        lambda r: {"v": s(r, HXU, 6)},
        ["ZMK loaded, KCV {v} matches on both HSMs", "key check value: {v}"],
    ),
    (
        "base64_pagination_cursor",
        lambda r: {"v": "eyJwYWdlIjo" + s(r, B64, 30) + "="},
        ["next page of reservations: ?cursor={v}", '"nextCursor": "{v}"'],
    ),
    (
        "idempotency_key",
        lambda r: {"v": uuid4(r)},
        ["Idempotency-Key: {v}", "retry used the same idempotency key {v} so no double charge"],
    ),
    (
        "loyalty_award_reference",
        lambda r: {"v": "AWD" + s(r, UD, 9)},
        [
            "award booking ref {v}, miles deducted twice, manual credit requested",
            "redemption {v} cancelled, miles back in 72h",
        ],
    ),
    (
        "changeme_default_in_template",
        lambda r: {"v": r.choice(["changeme", "password", "admin123", "secret"])},
        [
            "values.yaml template: kioskAdminPassword: {v}   # overridden per site by the deploy pipeline",
            "docker-compose for local dev: POSTGRES_PASSWORD={v} (local only)",
        ],
    ),
]

# extra phrasings, merged into the tables above by kind
EXTRA_SECRET = {
    "sabre_rest_client_secret": [
        "sabre:\n  rest:\n    clientId: V1:7971:H4KJ:AA\n    clientSecret: {v}"
    ],
    "travelport_jsonapi_client_secret": [
        "TP JSON secret {v} (prod, rotated by Travelport support)"
    ],
    "ndc_oauth_client_secret": ["NDC agg secret rotated -> {v}"],
    "bookingcom_connectivity_password": [
        "Passwort für den Booking.com XML-Account flytravel-xml: {v}"
    ],
    "expedia_rapid_shared_secret": ["| expedia rapid | prod | {k} | {v} |"],
    "stripe_restricted_key": ["stripe rk {v} (scoped to refunds, live)"],
    "stripe_webhook_secret": ["whsec for the connect endpoint: {v}"],
    "adyen_hmac_key": ["HMAC-Schlüssel für Adyen-Webhooks (live): {v}"],
    "braintree_private_key": ["bt prod private key {v}"],
    "checkout_com_secret_key": [
        "curl -H 'Authorization: Bearer {v}' https://api.checkout.com/payments/pay_abc/refunds"
    ],
    "paypal_client_secret": ["| paypal | live | flytravel-checkout | {v} |"],
    "cardinal_3ds_api_key": ["| cardinal | prod | apiKey | {v} |"],
    "hsm_zmk_component": ["comp3={v} (sealed envelope copy in the safe too)"],
    "loyalty_partner_api_key": ["clé partenaire du programme de fidélité (live) : {v}"],
    "loyalty_member_account_password": ["| ff bot | prod | ffbot@flytravel.example | {v} |"],
    "airport_wifi_psk": ["wifi da sala de operações no aeroporto: {v}"],
    "bsp_sftp_password": ["sftp pwd (BSP HOT files) {v}"],
    "aws_secret_access_key": ["aws configure set aws_secret_access_key {v} --profile pnr-archive"],
    "github_pat": ["ghp for renovate on the gds-adapters repo: {v}"],
    "slack_webhook_url": [
        "curl -X POST -H 'Content-type: application/json' --data '{{\"text\":\"TTP failed\"}}' {v}"
    ],
    "redis_url_password": ["fare cache redis pass {v}"],
    "jwt_hs256_signing_secret": ["segredo de assinatura dos links de itinerário: {v}"],
    "openssh_private_key": ["key for the BSP sftp user FLY0123:\n{v}"],
    "npm_token": ["NPM_TOKEN={v}"],
    "azure_storage_account_key": ["AZURE_STORAGE_KEY={v}"],
    "mssql_connection_password": ["Passwort der MidOffice-DB (tc_app): {v}"],
    "postgres_url_password": ["| pg-booking-prod | booking_rw | {v} |"],
    "sendgrid_api_key": ["sendgrid key for the 'your e-ticket' template sender:\n{v}"],
    "datadog_api_key": ["| datadog | eu | kiosk fleet | {v} |"],
}

EXTRA_BENIGN = {
    "env_var_reference": ["client_secret: {v}  # injected at deploy"],
    "kiosk_serial_number": ["| {v} | LIS T1 | CUSS 1.4 | ok |"],
    "pnr_record_locator": ["RLOC {v} split into 2 PNRs after the name change"],
    "eticket_number": [
        "Le billet {v} a été remboursé partiellement (taxes uniquement)",
        "| {v} | 2 coupons | EXCH |",
        "TWD/TKT{v}",
    ],
    "emd_number": [
        "| {v} | EMD-S | 0B5 seat | refunded |",
        "EMD {v} emitido para el asiento XL, pendiente de reembolso",
    ],
    "conjunction_ticket_range": ["tkts {v} in conjunction, refund as one"],
    "amadeus_office_id": [
        "signed in to {v} via SPC, JD to check duty code",
        "Office-ID {v} für die Queue-Platzierung",
        "| {v} | NDC | yes |",
    ],
    "sabre_pcc": ["PCC {v} queue 50 overflowing again", "pcc={v}"],
    "iata_agency_number": ["| {v} | BSP PT | active |", "IATA {v}"],
    "hotel_confirmation_number": ["| {v} | Porto | 2 nights | no-show |", "conf# {v}"],
    "frequent_flyer_number": [
        "número de sócio {v}, milhas não creditadas",
        "| TP{v} | Gold | exp 2027 |",
    ],
    "bcbp_boarding_pass_string": ["bcbp: {v}"],
    "fare_basis_code": ["| {v} | NUC 412.00 | non-ref |", "Tarifa {v} no reembolsable"],
    "ndc_offer_order_id": ["OrderRetrieve for {v} returns the order fine", '"OfferID": "{v}"'],
    "channel_manager_property_rate_code": ["HTL code {v} closed for sale by the hotel"],
    "sabre_conversation_id": ["| {v} | EnhancedAirBook | ERR.SWS.HOST |", "conv id {v}"],
    "travelport_universal_record_locator": ['URLocatorCode="{v}"', "localizador UR {v}"],
    "baggage_tag_number": ["Gepäckanhänger {v} verspätet", "| {v} | LIS | delayed |"],
    "device_mac_address": ["arp shows {v} on vlan 40 (kiosk)"],
    "documented_test_card": [
        "3DS2 challenge test: {v}",
        "card: {v} exp 12/34 cvc 123 (sandbox only, public test PAN)",
    ],
    "cardinal_org_unit_id": ["Cardinal OrgUnitId (public merchant id): {v}", "OrgUnitId={v}"],
    "adyen_client_key": [
        "client key {v} (public, restricted to allowed origins)",
        "ADYEN_CLIENT_KEY={v}  # public, ok in frontend",
    ],
    "recaptcha_site_key": ["RECAPTCHA_SITE_KEY={v}"],
    "vault_reference": ["| sabre | prod | {v} |", "uAPI pwd -> {v}"],
    "redacted_value": ["Adyen key: {v}", "| adyen | live | {v} |"],
    "aws_documented_example_key": ["AWS_ACCESS_KEY_ID={v} (doc example, not ours)"],
    "jwt_io_documented_example": ["jwt.io default example token, fine to commit: {v}"],
    "file_sha256": ["sha256 {v} matches the vendor's CUSS package", "checksum {v}"],
    "docker_image_digest": ["FROM ghcr.io/flytravel/kiosk-base@{v}"],
    "npm_integrity_hash": ["integrity {v} mismatch after the registry switch"],
    "trace_id_hex": ["span of {v}: 3.9s in SabreCommandLLS", "dd trace {v}"],
    "x509_certificate_pem": ["cert pasted for reference (public half only):\n{v}"],
    "ssh_public_key": ["{v} kiosk-builder"],
    "cert_fingerprint": ["| ndc-gw | {v} | pinned |", "SHA-1-Fingerabdruck: {v}"],
    "password_policy_text": ["politique : mots de passe GDS {v}, changement tous les 90 jours"],
    "revoked_key_confirmed_revoked": [
        "old key {v} - revoked after the pentest, verified dead (401)"
    ],
    "kcv_key_check_value": ["KCV={v}"],
    "base64_pagination_cursor": [
        '"next": "/v1/bookings?after={v}"',
        "cursor {v} returns empty page",
    ],
    "idempotency_key": ["| {v} | POST /payments | replayed |", "idempotency_key={v}"],
    "loyalty_award_reference": ["| {v} | 60000 miles | pending |", "Prämienbuchung {v} storniert"],
    "changeme_default_in_template": ["example .env.sample: UAPI_PASSWORD={v}"],
    "uuid_request_id": ["sessionId={v}", "| {v} | 502 | NDC OrderCreate |"],
    "git_commit_sha": ["deployed {v} to the kiosk fleet canary", "{v}"],
    "stripe_object_id": ["Stripe id {v} (just an object id)"],
    "masked_pan": ["| {v} | VI | 3DS ok |"],
    "threeds_transaction_id": ["| {v} | challenge | Y |", "acsTransID={v}"],
    "stripe_publishable_key": ["| stripe pk | live | {v} | public |", "pk -> {v}"],
    "placeholder_token": ["pwd: {v} (fill in from vault)", "UAPI_PASSWORD={v}"],
}


def corpus() -> list[dict]:
    r = random.Random(SEED)
    rows = []
    for label, table in (("secret", SECRET), ("benign", BENIGN)):
        extra = EXTRA_SECRET if label == "secret" else EXTRA_BENIGN
        for kind, gen, templates in table:
            for t in list(templates) + extra.get(kind, []):
                d = gen(r)
                text = t.format(**d)
                assert d["v"] in text, (kind, t)
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

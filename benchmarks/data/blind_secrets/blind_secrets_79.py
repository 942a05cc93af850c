# ruff: noqa: E501
"""Blind secret-detector corpus 79: food-delivery and ride-hailing startup in Latin America.

Brief: memory notes of a LatAm delivery/ride-hailing team (courier and driver apps, dispatch and maps APIs, Mercado Pago, PIX, Stripe and local acquirers, SMS/WhatsApp providers, fraud tools, support back office), in English, Spanish and Portuguese, with live credentials and look-alikes that are not secrets.

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Run: python blind_secrets_79.py [out.jsonl]

Kinds, secret: mercadopago_access_token, mercadopago_client_secret, stripe_secret_key_live, stripe_restricted_key_live, stripe_webhook_secret, efi_pix_client_secret, pix_psp_mtls_private_key, cielo_merchant_key, pagarme_secret_key, pagseguro_token, dlocal_trans_key, adyen_api_key, twilio_auth_token, twilio_api_key_secret, whatsapp_cloud_access_token, infobip_api_key, zenvia_api_token, telegram_bot_token, google_maps_server_key, mapbox_secret_token, here_api_key, aws_access_key_pair, aws_secret_access_key, gcp_service_account_json, github_pat, github_fine_grained_pat, gitlab_pat, slack_bot_token, slack_webhook_url, postgres_url_password, redis_url_password, mongodb_srv_password, amqp_url_password, kafka_sasl_password, jwt_signing_secret, admin_session_jwt, datadog_api_key, sendgrid_api_key, openai_api_key, fcm_legacy_server_key, zendesk_api_token, intercom_access_token, fraud_tool_api_key, openssh_private_key, npm_token, totp_seed, backoffice_human_password, office_wifi_password, db_password_prose, basic_auth_url, docker_registry_password
Kinds, benign: aws_documented_example_key, stripe_publishable_key, stripe_test_card, mercadopago_public_key, mercadopago_test_card, mapbox_public_token, firebase_web_api_key, recaptcha_site_key, git_commit_sha, apk_sha256_checksum, order_uuid, pix_key_random_evp, pix_brcode_copia_e_cola, company_cnpj, twilio_account_sid, twilio_magic_test_number, stripe_object_id, mercadopago_payment_id, placeholder_token, changeme_placeholder, env_var_reference, vault_reference, k8s_secret_ref, redacted_key, masked_card, password_policy, ssh_public_key, ssh_host_fingerprint, x509_certificate, android_signing_sha1, docker_image_digest, idempotency_key, trace_id, acquirer_nsu_auth_code, bcrypt_hash, webhook_signature_header, expired_sms_otp, revoked_token_stated, launchdarkly_client_side_id, ga_measurement_id, coupon_code, sentry_dsn_frontend, firebase_app_id, license_plate, phone_hash, url_without_password
"""

import base64
import json
import random
import string
import sys

SEED = 7979

ALNUM = string.ascii_letters + string.digits
UPPER_ALNUM = string.ascii_uppercase + string.digits
HEX = "0123456789abcdef"
B64 = string.ascii_letters + string.digits + "+/"
B64URL = string.ascii_letters + string.digits + "-_"
B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"


class G:
    def __init__(self, rng):
        self.r = rng

    def s(self, alphabet, n):
        return "".join(self.r.choice(alphabet) for _ in range(n))

    def alnum(self, n):
        return self.s(ALNUM, n)

    def hex(self, n):
        return self.s(HEX, n)

    def dig(self, n):
        return str(self.r.randint(1, 9)) + self.s(string.digits, n - 1)

    def uuid(self):
        h = self.hex(32)
        h = h[:12] + "4" + h[13:16] + self.r.choice("89ab") + h[17:]
        return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"

    def human_pw(self):
        words = [
            "Feijoada",
            "Palmeiras",
            "Corinthians",
            "Bocajuniors",
            "Tacos",
            "Motoboy",
            "Entrega",
            "Verano",
            "Pastel",
            "Chimichurri",
            "Garota",
            "Flamengo",
            "Churrasco",
            "Tequila",
            "Quindim",
        ]
        return (
            self.r.choice(words)
            + self.r.choice(["", "_", "."])
            + str(self.r.randint(10, 2026))
            + self.r.choice("!@#$*&")
        )

    def gen_pw(self, n=20):
        return self.s(ALNUM + "!#%*-_", n)

    def b64url(self, n):
        return self.s(B64URL, n)

    def pem_body(self, lines, last=None):
        out = [self.s(B64, 64) for _ in range(lines)]
        out.append(self.s(B64, last or self.r.randint(20, 60)) + "=")
        return "\n".join(out)


def _b64url_json(obj):
    return (
        base64.urlsafe_b64encode(json.dumps(obj, separators=(",", ":")).encode())
        .decode()
        .rstrip("=")
    )


def _crc16(data):
    crc = 0xFFFF
    for ch in data.encode():
        crc ^= ch << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
            crc &= 0xFFFF
    return f"{crc:04X}"


def _emv(tag, val):
    return f"{tag}{len(val):02d}{val}"


# ---------------------------------------------------------------- secret value generators


def v_mp_access(g):
    return f"APP_USR-{g.dig(16)}-{g.s(string.digits, 6)}-{g.hex(32)}-{g.dig(9)}"


def v_stripe_sk(g):
    return "sk_live_51" + g.alnum(22) + g.alnum(70)


def v_stripe_rk(g):
    return "rk_live_51" + g.alnum(22) + g.alnum(70)


def v_efi(g):
    return "Client_Secret_" + g.hex(40)


def v_pem_rsa(g):
    return (
        "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ"
        + g.s(B64, 14)
        + "\n"
        + g.pem_body(14)
        + "\n-----END PRIVATE KEY-----"
    )


def v_openssh(g):
    return (
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\nQyNTUxOQAAACA"
        + g.s(B64, 53)
        + "\n"
        + g.pem_body(3, 40)
        + "\n-----END OPENSSH PRIVATE KEY-----"
    )


def v_pagseguro(g):
    return f"{g.hex(8)}-{g.hex(4)}-{g.hex(4)}-{g.hex(4)}-{g.hex(12)}{g.hex(48)}{g.hex(8)}-{g.hex(4)}-{g.hex(4)}-{g.hex(4)}-{g.hex(12)}"


def v_adyen(g):
    return (
        "AQE"
        + g.s(ALNUM, 5)
        + "K"
        + g.alnum(40)
        + "/"
        + g.alnum(20)
        + "+"
        + g.alnum(30)
        + "=-"
        + g.alnum(40)
        + "=-"
        + g.s(ALNUM + "<>{}", 16)
    )


def v_whatsapp(g):
    return "EAA" + g.r.choice(["G", "J", "B", "Q"]) + g.alnum(180 + g.r.randint(0, 30))


def v_telegram(g):
    return f"{g.dig(10)}:AA{g.b64url(33)}"


def v_gmaps(g):
    return "AIzaSy" + g.b64url(33)


def v_mapbox_sk(g):
    return "sk.eyJ1IjoiZW50cmVnYWxhdGFtIiwiYSI6I" + g.alnum(23) + "In0." + g.b64url(22)


def v_aws_pair(g):
    return "AKIA" + g.s("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16)


def v_aws_secret(g):
    return g.s(ALNUM + "+/", 40)


def v_gcp_json(g):
    key = (
        "-----BEGIN PRIVATE KEY-----\\nMIIEvgIBADANBgkqhkiG9w0BAQEFAASCBKgwggSkAgEAAoIBAQ"
        + g.s(B64, 14)
        + "\\n"
        + "\\n".join(g.s(B64, 64) for _ in range(10))
        + "\\n"
        + g.s(B64, 36)
        + "=\\n-----END PRIVATE KEY-----\\n"
    )
    return key


def v_ghp(g):
    return "ghp_" + g.alnum(36)


def v_ghfg(g):
    return "github_pat_11" + g.s(UPPER_ALNUM, 20) + "_" + g.alnum(59)


def v_glpat(g):
    return "glpat-" + g.b64url(20)


def v_xoxb(g):
    return f"xoxb-{g.dig(12)}-{g.dig(13)}-{g.alnum(24)}"


def v_slack_hook(g):
    return f"https://hooks.slack.com/services/T{g.s(UPPER_ALNUM, 8)}/B{g.s(UPPER_ALNUM, 10)}/{g.alnum(24)}"


def v_jwt_admin(g):
    head = _b64url_json({"alg": "HS256", "typ": "JWT"})
    body = _b64url_json(
        {
            "sub": g.dig(7),
            "role": "backoffice_admin",
            "iat": 1796000000 + g.r.randint(0, 999999),
            "exp": 1893456000 + g.r.randint(0, 999999),
        }
    )
    return f"{head}.{body}.{g.b64url(43)}"


def v_sendgrid(g):
    return f"SG.{g.b64url(22)}.{g.b64url(43)}"


def v_openai(g):
    return "sk-proj-" + g.b64url(74) + "T3BlbkFJ" + g.b64url(74)


def v_fcm(g):
    return f"AAAA{g.b64url(7)}:APA91b{g.b64url(134)}"


def v_intercom(g):
    return "dG9rOj" + g.alnum(54) + "="


def v_npm(g):
    return "npm_" + g.alnum(36)


def v_totp(g):
    return g.s(B32, 32)


def v_dlocal(g):
    return g.alnum(10)


# ---------------------------------------------------------------- benign value generators


def v_pix_brcode(g):
    key = g.uuid()
    mai = _emv("00", "br.gov.bcb.pix") + _emv("01", key)
    amount = f"{g.r.randint(12, 380)}.{g.r.randint(0, 99):02d}"
    payload = (
        _emv("00", "01")
        + _emv("26", mai)
        + _emv("52", "0000")
        + _emv("53", "986")
        + _emv("54", amount)
        + _emv("58", "BR")
        + _emv("59", "ENTREGA LATAM LTDA")
        + _emv("60", "SAO PAULO")
        + _emv("62", _emv("05", "PED" + g.s(UPPER_ALNUM, 12)))
        + "6304"
    )
    return payload + _crc16(payload)


def v_cnpj(g):
    base = [g.r.randint(0, 9) for _ in range(8)] + [0, 0, 0, 1]
    for w in ([5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2], [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]):
        s = sum(a * b for a, b in zip(base, w, strict=False)) % 11
        base.append(0 if s < 2 else 11 - s)
    d = "".join(map(str, base))
    return f"{d[:2]}.{d[2:5]}.{d[5:8]}/{d[8:12]}-{d[12:]}"


def v_mp_pub(g):
    return "APP_USR-" + g.uuid()


def v_mapbox_pk(g):
    return "pk.eyJ1IjoiZW50cmVnYWxhdGFtIiwiYSI6I" + g.alnum(23) + "In0." + g.b64url(22)


def v_recaptcha(g):
    return "6L" + g.b64url(38)


def v_ssh_pub(g):
    return "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + g.s(B64, 43)


def v_cert(g):
    return (
        "-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIU"
        + g.s(B64, 44)
        + "\n"
        + g.pem_body(10)
        + "\n-----END CERTIFICATE-----"
    )


def v_sha1_fp(g):
    return ":".join(g.s("0123456789ABCDEF", 2) for _ in range(20))


def v_bcrypt(g):
    return "$2b$12$" + g.s(string.ascii_letters + string.digits + "./", 53)


def v_plate(g):
    return (
        g.s(string.ascii_uppercase, 3)
        + g.s(string.digits, 1)
        + g.s(string.ascii_uppercase, 1)
        + g.s(string.digits, 2)
    )


def v_redacted(g):
    return "sk_live_" + "*" * 20 + g.alnum(4)


def v_masked_card(g):
    return "**** **** **** " + g.s(string.digits, 4)


# ---------------------------------------------------------------- kinds and templates

SECRET = [
    (
        "mercadopago_access_token",
        v_mp_access,
        [
            "MP prod access token (cuenta AR): {v}",
            "MERCADOPAGO_ACCESS_TOKEN={v}",
            "curl -X GET 'https://api.mercadopago.com/v1/payments/search?sort=date_created' -H 'Authorization: Bearer {v}'",
            "token do MP da conta BR, peguei com o financeiro hoje: {v} (não passar pro time de BI)",
            "| MX | mercadopago | {v} | prod |",
        ],
    ),
    (
        "mercadopago_client_secret",
        lambda g: g.alnum(32),
        [
            "MP oauth app 'marketplace-sellers' client_id {cid} client_secret {v}".replace(
                "{cid}", "4471208852119034"
            ),
            "mercadopago:\n  client_id: 4471208852119034\n  client_secret: {v}",
            "el client secret de la app de MP para split de restaurantes es {v}, no lo pegues en jira",
        ],
    ),
    (
        "stripe_secret_key_live",
        v_stripe_sk,
        [
            "stripe live key for the CO entity: {v}",
            "STRIPE_SECRET_KEY={v}",
            "curl https://api.stripe.com/v1/refunds -u {v}: -d payment_intent=pi_3Q",
            'stripe.api_key = "{v}"',
        ],
    ),
    (
        "stripe_restricted_key_live",
        v_stripe_rk,
        [
            "restricted key (only refunds+read charges) for support tool: {v}",
            "STRIPE_RK_SUPPORT={v}",
            "chave restrita do stripe pro backoffice de reembolso -> {v}",
        ],
    ),
    (
        "stripe_webhook_secret",
        lambda g: "whsec_" + g.alnum(32),
        [
            "webhook signing secret for /hooks/stripe (prod): {v}",
            "STRIPE_WEBHOOK_SECRET={v}",
            "stripe listen lo da distinto, el de prod del endpoint de dispatch es {v}",
        ],
    ),
    (
        "efi_pix_client_secret",
        v_efi,
        [
            "Efí (Gerencianet) PIX prod: client_id Client_Id_0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c client_secret {v}",
            "EFI_CLIENT_SECRET={v}",
            "credenciais pix efí produção, secret: {v} -- cert .p12 tá no drive do financeiro",
        ],
    ),
    (
        "pix_psp_mtls_private_key",
        v_pem_rsa,
        [
            "chave privada do certificado mTLS do PSP pix (prod), extraída do p12:\n{v}",
            "key.pem for the Itaú PIX API client cert:\n{v}",
            "{v}",
        ],
    ),
    (
        "cielo_merchant_key",
        lambda g: g.s(string.ascii_uppercase, 40),
        [
            "Cielo prod MerchantId 6c1a3f90-2b4e-4d7a-9e10-55c2f7a8b301 MerchantKey {v}",
            "curl -X POST https://api.cieloecommerce.cielo.com.br/1/sales -H 'MerchantId: 6c1a3f90-2b4e-4d7a-9e10-55c2f7a8b301' -H 'MerchantKey: {v}'",
            "CIELO_MERCHANT_KEY={v}",
        ],
    ),
    (
        "pagarme_secret_key",
        lambda g: "sk_" + g.alnum(32),
        [
            "pagar.me v5 secret key produção: {v}",
            "PAGARME_SECRET_KEY={v}",
            "curl -u '{v}:' https://api.pagar.me/core/v5/orders?status=failed",
        ],
    ),
    (
        "pagseguro_token",
        v_pagseguro,
        [
            "token pagseguro conta loja parceira (prod): {v}",
            "PAGSEGURO_TOKEN={v}",
            "curl 'https://ws.pagseguro.uol.com.br/v2/transactions?email=financeiro@entregalatam.com.br&token={v}'",
        ],
    ),
    (
        "dlocal_trans_key",
        v_dlocal,
        [
            "dLocal prod: X-Login {login} / X-Trans-Key {v} / secret in 1pass".replace(
                "{login}", "ENTLATAMx1"
            ),
            "DLOCAL_TRANS_KEY={v}",
            "la trans key de dlocal para CL y PE es {v}",
        ],
    ),
    (
        "adyen_api_key",
        v_adyen,
        [
            "Adyen live API key (ws user ws_217733@Company.EntregaLatam): {v}",
            "ADYEN_API_KEY={v}",
            "curl https://checkout-live.adyenpayments.com/checkout/v71/payments -H 'x-API-key: {v}'",
        ],
    ),
    (
        "twilio_auth_token",
        lambda g: g.hex(32),
        [
            "twilio prod: account sid AC6f0d2a1b9c8e7d6f5a4b3c2d1e0f9a8b auth token {v}",
            "TWILIO_AUTH_TOKEN={v}",
            "curl -X POST https://api.twilio.com/2010-04-01/Accounts/AC6f0d2a1b9c8e7d6f5a4b3c2d1e0f9a8b/Messages.json -u AC6f0d2a1b9c8e7d6f5a4b3c2d1e0f9a8b:{v} --data-urlencode 'To=+5511'",
            "o auth token do twilio que o Rafa rotacionou ontem: {v}",
        ],
    ),
    (
        "twilio_api_key_secret",
        lambda g: g.alnum(32),
        [
            "twilio api key SK3b9e1c7d2a4f6e8b0c1d3e5f7a9b2c4d secret {v}",
            "TWILIO_API_SECRET={v}",
        ],
    ),
    (
        "whatsapp_cloud_access_token",
        v_whatsapp,
        [
            "WA Cloud API system user token (phone id 109876543210987): {v}",
            "WHATSAPP_TOKEN={v}",
            "curl -X POST https://graph.facebook.com/v19.0/109876543210987/messages -H 'Authorization: Bearer {v}' -d @tpl_pedido_saiu.json",
            "token permanente do whatsapp pra notificação de entregador: {v}",
        ],
    ),
    (
        "infobip_api_key",
        lambda g: g.hex(32) + "-" + g.uuid(),
        [
            "infobip SMS fallback MX: base url https://9rk8dq.api.infobip.com key {v}",
            "curl https://9rk8dq.api.infobip.com/sms/2/text/advanced -H 'Authorization: App {v}'",
            "INFOBIP_API_KEY={v}",
        ],
    ),
    (
        "zenvia_api_token",
        lambda g: g.b64url(32),
        [
            "zenvia X-API-TOKEN (whatsapp + sms BR): {v}",
            "ZENVIA_TOKEN={v}",
            "token novo da zenvia, o antigo foi revogado: {v}",
        ],
    ),
    (
        "telegram_bot_token",
        v_telegram,
        [
            "bot de alertas de ops no telegram (@entregas_alerta_bot): {v}",
            "curl https://api.telegram.org/bot{v}/sendMessage -d chat_id=-100148822 -d text='fila de despacho travada'",
            "TELEGRAM_BOT_TOKEN={v}",
        ],
    ),
    (
        "google_maps_server_key",
        v_gmaps,
        [
            "server-side Maps key (Directions + Distance Matrix, no referrer restriction, billing on): {v}",
            "GOOGLE_MAPS_SERVER_KEY={v}",
            "curl 'https://maps.googleapis.com/maps/api/distancematrix/json?origins=-23.56,-46.65&destinations=-23.60,-46.69&key={v}'",
            "la key de maps del backend de dispatch (la que no tiene restricción): {v}",
        ],
    ),
    (
        "mapbox_secret_token",
        v_mapbox_sk,
        [
            "mapbox secret token (downloads:read + tiles write) for the courier app build: {v}",
            "MAPBOX_DOWNLOADS_TOKEN={v}",
            "gradle.properties:\nMAPBOX_DOWNLOADS_TOKEN={v}",
        ],
    ),
    (
        "here_api_key",
        lambda g: g.b64url(43),
        [
            "HERE routing apikey (truck routing for motos de carga): {v}",
            "curl 'https://router.hereapi.com/v8/routes?transportMode=scooter&origin=-34.60,-58.38&destination=-34.58,-58.42&apikey={v}'",
            "HERE_API_KEY={v}",
        ],
    ),
    (
        "aws_access_key_pair",
        v_aws_pair,
        [
            "aws creds for the receipts bucket: AWS_ACCESS_KEY_ID={v} AWS_SECRET_ACCESS_KEY="
            + "{sec}",
            "[entregas-prod]\naws_access_key_id = {v}\naws_secret_access_key = {sec}",
            "access key {v} secret {sec} (IAM user svc-dispatch-exports)",
        ],
    ),
    (
        "aws_secret_access_key",
        v_aws_secret,
        [
            "AWS_SECRET_ACCESS_KEY={v}",
            "secret key da conta sa-east-1 do data lake: {v}",
        ],
    ),
    (
        "gcp_service_account_json",
        v_gcp_json,
        [
            '{"type": "service_account", "project_id": "entregas-latam-prod", "private_key_id": "3f9a1c2b7d8e4f60a1b2c3d4e5f60718293a4b5c", "private_key": "{v}", "client_email": "firebase-adminsdk-x1@entregas-latam-prod.iam.gserviceaccount.com", "client_id": "104477889900112233445"}',
            'sa key for BigQuery exports (fraude):\n{"type":"service_account","project_id":"fraude-analytics","private_key":"{v}","client_email":"bq-export@fraude-analytics.iam.gserviceaccount.com"}',
        ],
    ),
    (
        "github_pat",
        v_ghp,
        [
            "PAT do bot de release do app do entregador: {v}",
            "git clone https://x-access-token:{v}@github.com/entregas-latam/courier-app.git",
            "GH_TOKEN={v}",
        ],
    ),
    (
        "github_fine_grained_pat",
        v_ghfg,
        [
            "fine-grained token (repo dispatch-api, contents:write) exp 90d: {v}",
            "GITHUB_TOKEN={v}",
        ],
    ),
    (
        "gitlab_pat",
        v_glpat,
        [
            "gitlab token p/ CI do backoffice: {v}",
            "git remote set-url origin https://oauth2:{v}@gitlab.entregas.io/support/backoffice.git",
        ],
    ),
    (
        "slack_bot_token",
        v_xoxb,
        [
            "slack bot token #ops-despacho alerts: {v}",
            "SLACK_BOT_TOKEN={v}",
            "curl -H 'Authorization: Bearer {v}' https://slack.com/api/chat.postMessage -d channel=C05OPSMX",
        ],
    ),
    (
        "slack_webhook_url",
        v_slack_hook,
        [
            "incoming webhook for #fraude-alertas: {v}",
            "SLACK_WEBHOOK_FRAUD={v}",
            "webhook do canal de incidentes de pagamento:\n{v}",
        ],
    ),
    (
        "postgres_url_password",
        lambda g: g.gen_pw(22),
        [
            "DATABASE_URL=postgres://dispatch_app:{v}@dispatch-prod.cluster-c8x1.sa-east-1.rds.amazonaws.com:5432/dispatch",
            "psql 'postgresql://readonly_bi:{v}@10.20.4.11:5432/pedidos?sslmode=require'",
            "replica de pedidos MX: host pg-mx-replica.internal user soporte pass {v}",
            "PGPASSWORD='{v}' psql -h pg-ops.internal -U ops_admin couriers",
        ],
    ),
    (
        "redis_url_password",
        lambda g: g.alnum(32),
        [
            "REDIS_URL=redis://default:{v}@redis-geo.internal:6379/0",
            "redis-cli -h eta-cache.internal -a '{v}' --no-auth-warning KEYS 'courier:pos:*'",
            "redis de posições dos entregadores: senha {v}",
        ],
    ),
    (
        "mongodb_srv_password",
        lambda g: g.alnum(16),
        [
            "MONGO_URI=mongodb+srv://tracking_rw:{v}@tracking.xk2p9.mongodb.net/rides?retryWrites=true",
            "mongosh 'mongodb+srv://soporte:{v}@support-cluster.a1b2c.mongodb.net/tickets'",
        ],
    ),
    (
        "amqp_url_password",
        lambda g: g.gen_pw(18),
        [
            "AMQP_URL=amqps://dispatch:{v}@rabbit-prod.internal:5671/orders",
            "rabbit do despacho: usuário dispatch senha {v} vhost /orders",
        ],
    ),
    (
        "kafka_sasl_password",
        lambda g: g.s(ALNUM + "+/", 64),
        [
            "confluent cloud API key 7QXJZ4KD2MPLR5TA secret {v}",
            'sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="7QXJZ4KD2MPLR5TA" password="{v}";',
        ],
    ),
    (
        "jwt_signing_secret",
        lambda g: g.hex(64),
        [
            "JWT_SECRET={v}",
            "secret HS256 que assina os tokens do app do motorista: {v}",
            'auth:\n  jwt_secret: "{v}"\n  ttl: 3600',
        ],
    ),
    (
        "admin_session_jwt",
        v_jwt_admin,
        [
            "token de sesión del backoffice (admin) para probar el endpoint de reembolsos: {v}",
            "curl -H 'Authorization: Bearer {v}' https://backoffice.entregas.io/api/v2/refunds/8812",
            "Cookie: bo_session={v}",
        ],
    ),
    (
        "datadog_api_key",
        lambda g: g.hex(32),
        [
            "DD_API_KEY={v}",
            "datadog api key (org LATAM prod): {v}",
            "helm upgrade datadog datadog/datadog --set datadog.apiKey={v}",
        ],
    ),
    (
        "sendgrid_api_key",
        v_sendgrid,
        [
            "sendgrid key p/ recibos por email: {v}",
            "SENDGRID_API_KEY={v}",
        ],
    ),
    (
        "openai_api_key",
        v_openai,
        [
            "key do bot de suporte (classifica tickets de reembolso): {v}",
            "OPENAI_API_KEY={v}",
        ],
    ),
    (
        "fcm_legacy_server_key",
        v_fcm,
        [
            "FCM server key (legacy) para push a repartidores: {v}",
            "curl https://fcm.googleapis.com/fcm/send -H 'Authorization: key={v}' -H 'Content-Type: application/json' -d @push.json",
        ],
    ),
    (
        "zendesk_api_token",
        lambda g: g.alnum(40),
        [
            "zendesk api: soporte-bot@entregalatam.com/token : {v}",
            "curl -u 'soporte-bot@entregalatam.com/token:{v}' https://entregalatam.zendesk.com/api/v2/tickets.json",
            "ZENDESK_API_TOKEN={v}",
        ],
    ),
    (
        "intercom_access_token",
        v_intercom,
        [
            "intercom access token (workspace drivers-br): {v}",
            "INTERCOM_TOKEN={v}",
        ],
    ),
    (
        "fraud_tool_api_key",
        lambda g: g.hex(32),
        [
            "Sift prod REST key: {v}",
            "konduto chave privada produção: P" + "{v}",
            "SEON_LICENSE_KEY={v}",
            "ClearSale api key (BR antifraude): {v}",
        ],
    ),
    (
        "openssh_private_key",
        v_openssh,
        [
            "bastion key for ops (ubuntu@bastion-sp):\n{v}",
            "chave do jump host do datacenter:\n{v}",
        ],
    ),
    (
        "npm_token",
        v_npm,
        [
            "//registry.npmjs.org/:_authToken={v}",
            "npm token do pacote @entregas/maps-sdk: {v}",
        ],
    ),
    (
        "totp_seed",
        v_totp,
        [
            "2FA seed for the shared Mercado Pago admin account: {v}",
            "otpauth://totp/Stripe:finanzas@entregalatam.com?secret={v}&issuer=Stripe",
            "semente do google authenticator da conta do adquirente (financeiro compartilhado): {v}",
        ],
    ),
    (
        "backoffice_human_password",
        lambda g: g.human_pw(),
        [
            "backoffice admin login: ops.lead@entregalatam.com / {v}",
            "senha do painel da Rede (adquirente), usuário financeiro: {v}",
            "la contraseña del panel de getnet es {v}",
            "usuario: soporte_mx  clave: {v}",
            "Fer pediu pra anotar: painel da Stone -> {v}",
        ],
    ),
    (
        "office_wifi_password",
        lambda g: g.human_pw(),
        [
            "wifi do hub de entregadores Pinheiros: rede HUB-PIN-5G senha {v}",
            "WiFi oficina CDMX (EntregasCorp): {v}",
        ],
    ),
    (
        "db_password_prose",
        lambda g: g.gen_pw(16),
        [
            "para la base de pagos en prod, el usuario es pagos_rw y lo que va es {v}",
            "the metabase user for the fraud dashboards logs in with {v}",
            "senha do mysql legado (pedidos 2021): {v}",
            "{v}\n^ that's the root pw for the old dispatch mysql, Juan asked",
        ],
    ),
    (
        "basic_auth_url",
        lambda g: g.gen_pw(14),
        [
            "webhook do restaurante parceiro: https://integrador:{v}@pdv.parceiro.com.br/api/pedidos",
            "https://ops:{v}@grafana.entregas.io/d/despacho",
            "kibana interno: https://elastic:{v}@logs.entregas.io:9243",
        ],
    ),
    (
        "docker_registry_password",
        lambda g: g.gen_pw(24),
        [
            "docker login registry.entregas.io -u ci-bot -p '{v}'",
            "harbor robot account ci-bot password: {v}",
        ],
    ),
]


BENIGN = [
    (
        "aws_documented_example_key",
        lambda g: "AKIAIOSFODNN7EXAMPLE",
        [
            "docs sample from AWS, not ours: aws_access_key_id = {v}",
            "in tests use {v} / wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY with localstack",
            "AWS_ACCESS_KEY_ID={v}  # valor de ejemplo de la doc de AWS",
        ],
    ),
    (
        "stripe_publishable_key",
        lambda g: "pk_live_51" + g.alnum(22) + g.alnum(70),
        [
            "publishable key for the web checkout (it's in the bundle anyway): {v}",
            "NEXT_PUBLIC_STRIPE_PK={v}",
            "chave publicável do stripe no app: {v}",
            'Stripe("{v}")',
        ],
    ),
    (
        "stripe_test_card",
        lambda g: g.r.choice(
            [
                "4242 4242 4242 4242",
                "4000 0000 0000 9995",
                "4000 0025 0000 3155",
                "5555 5555 5555 4444",
            ]
        ),
        [
            "stripe test card: {v} any CVC, any future date",
            "pra testar 3DS usa o cartão {v}",
            "QA: tarjeta de prueba {v} exp 12/34",
        ],
    ),
    (
        "mercadopago_public_key",
        v_mp_pub,
        [
            "MP public key (va en el front del checkout): {v}",
            "MERCADOPAGO_PUBLIC_KEY={v}",
            "const mp = new MercadoPago('{v}', { locale: 'pt-BR' })",
            "public key do MP pro checkout bricks: {v} (é pública, pode ir no app)",
        ],
    ),
    (
        "mercadopago_test_card",
        lambda g: g.r.choice(["5031 4332 1540 6351", "4235 6477 2802 5682", "3753 651535 56885"]),
        [
            "MP sandbox: cartão {v} titular APRO aprova, OTHE recusa",
            "tarjeta de prueba de MP: {v} cvv 123",
            "for sandbox payments use {v} with cardholder name APRO",
        ],
    ),
    (
        "mapbox_public_token",
        v_mapbox_pk,
        [
            "mapbox public token for the customer app map: {v}",
            "MAPBOX_PUBLIC_TOKEN={v}",
            '<string name="mapbox_access_token">{v}</string>',
        ],
    ),
    (
        "firebase_web_api_key",
        v_gmaps,
        [
            'firebase web config (public, restricted by domain):\nconst firebaseConfig = { apiKey: "{v}", authDomain: "entregas-latam.firebaseapp.com", projectId: "entregas-latam" };',
            "apiKey do google-services.json do app do cliente (é pública): {v}",
            "la apiKey del firebase config web no es secreta, es {v}; la seguridad va por las rules",
        ],
    ),
    (
        "recaptcha_site_key",
        v_recaptcha,
        [
            "reCAPTCHA site key (public) for signup de repartidores: {v}",
            "RECAPTCHA_SITE_KEY={v}",
            '<div class="g-recaptcha" data-sitekey="{v}"></div>',
        ],
    ),
    (
        "git_commit_sha",
        lambda g: g.hex(40),
        [
            "rollback the dispatch-api deploy to {v}",
            "hotfix de cálculo de taxa de entrega tá no commit {v}",
            "git revert {v}",
            "bug del ETA introducido en {v}, ver PR 2211",
        ],
    ),
    (
        "apk_sha256_checksum",
        lambda g: g.hex(64),
        [
            "sha256 of courier-app-4.18.2-release.apk: {v}",
            "checksum do apk do motorista v7.3: {v}",
            "{v}  driver-app-7.3.0.aab",
        ],
    ),
    (
        "order_uuid",
        lambda g: g.uuid(),
        [
            "pedido {v} cobrado duplicado, cliente pede reembolso",
            "ride_id={v} driver canceled after pickup, check fraud",
            "viaje {v}: el pasajero reporta cobro de peaje de más",
            "| {v} | PIX | pendiente | 42,90 |",
        ],
    ),
    (
        "pix_key_random_evp",
        lambda g: g.uuid(),
        [
            "chave pix aleatória da empresa pra receber dos restaurantes: {v}",
            "PIX key (EVP) for receiving courier deposits: {v}",
            "chave pix do entregador Jonas pra repasse: {v}",
        ],
    ),
    (
        "pix_brcode_copia_e_cola",
        v_pix_brcode,
        [
            "pix copia e cola do pedido que o cliente disse que pagou:\n{v}",
            "BR Code gerado pro teste de QR estático: {v}",
            "customer pasted this PIX payload in the ticket: {v}",
        ],
    ),
    (
        "company_cnpj",
        v_cnpj,
        [
            "CNPJ da Entregas Latam Ltda (pra nota fiscal): {v}",
            "chave pix CNPJ do restaurante parceiro: {v}",
            "razão social Pastelaria Boa Vista, CNPJ {v}",
        ],
    ),
    (
        "twilio_account_sid",
        lambda g: "AC" + g.hex(32),
        [
            "twilio account sid (subaccount MX): {v}",
            "TWILIO_ACCOUNT_SID={v}",
            "logs: ERROR 20003 for account {v} — token is in vault, not here",
        ],
    ),
    (
        "twilio_magic_test_number",
        lambda g: g.r.choice(["+15005550006", "+15005550001", "+15005550009"]),
        [
            "twilio test credentials: use from={v} (magic number)",
            "número mágico de prueba de twilio: {v}",
        ],
    ),
    (
        "stripe_object_id",
        lambda g: g.r.choice(["pi_3", "ch_3", "cus_", "evt_1", "re_3", "acct_1"]) + g.alnum(24),
        [
            "refund failed for {v}, see dashboard",
            "disputa aberta no stripe: {v}",
            "stripe event {v} was delivered twice to /hooks/stripe",
        ],
    ),
    (
        "mercadopago_payment_id",
        lambda g: g.dig(11),
        [
            "pago MP {v} quedó in_process por más de 48h",
            "payment_id={v} status=rejected status_detail=cc_rejected_high_risk",
            "pagamento {v} estornado manualmente pela Bia",
        ],
    ),
    (
        "placeholder_token",
        lambda g: g.r.choice(
            [
                "<your-token>",
                "<MP_ACCESS_TOKEN>",
                "YOUR_API_KEY_HERE",
                "xxxxxxxxxxxxxxxxxxxx",
                "APP_USR-xxxxxxxxxxxxxxxx-xxxxxx-xxxxxxxx-xxxxxxxxx",
                "sk_live_...",
            ]
        ),
        [
            "Authorization: Bearer {v}",
            "MERCADOPAGO_ACCESS_TOKEN={v}",
            "curl -H 'x-api-key: {v}' https://api.parceiro.com/v1/stores",
            "en el README del SDK ponen {v}, hay que cambiarlo por el real del vault",
        ],
    ),
    (
        "changeme_placeholder",
        lambda g: g.r.choice(["changeme", "CHANGE_ME", "password", "senha123-trocar", "<senha>"]),
        [
            "POSTGRES_PASSWORD={v}",
            "docker-compose local: redis password {v}",
            "default do template helm: adminPassword: {v}",
        ],
    ),
    (
        "env_var_reference",
        lambda g: g.r.choice(
            [
                "${STRIPE_SECRET_KEY}",
                "$MP_ACCESS_TOKEN",
                "${TWILIO_AUTH_TOKEN}",
                "process.env.WHATSAPP_TOKEN",
                "os.environ['PAGARME_SECRET_KEY']",
            ]
        ),
        [
            "the worker reads the key from {v}, never hardcode",
            "token: {v}",
            "a chave vem de {v} no runtime",
        ],
    ),
    (
        "vault_reference",
        lambda g: g.r.choice(
            [
                "secret/payments/mercadopago/prod",
                "kv/dispatch/maps-server-key",
                "secret/data/pix/efi",
                "op://Financeiro/Cielo prod/merchant_key",
            ]
        ),
        [
            "MP token lives in vault at {v}",
            "vault kv get {v}",
            "la key de maps está en {v}, pedir acceso a plataforma",
            "credencial da cielo: {v} (1Password)",
        ],
    ),
    (
        "k8s_secret_ref",
        lambda g: g.r.choice(["stripe-live", "mp-prod", "twilio-creds", "pix-efi-mtls"]),
        [
            "env:\n- name: STRIPE_KEY\n  valueFrom:\n    secretKeyRef:\n      name: {v}\n      key: api-key",
            "kubectl -n payments get secret {v} -o yaml  # só lê quem tem role payments-admin",
        ],
    ),
    (
        "redacted_key",
        v_redacted,
        [
            "old key {v} appears in the logs masked, fine",
            "stripe dashboard shows the key as {v}",
            "chave aparece assim no log: {v}",
        ],
    ),
    (
        "masked_card",
        v_masked_card,
        [
            "cliente diz que não reconhece cobrança no cartão {v}",
            "chargeback on card {v}, amount MXN 389",
            "tarjeta {v} rechazada 3 veces, bloqueada por fraude",
        ],
    ),
    (
        "password_policy",
        lambda g: str(g.r.randint(10, 16)),
        [
            "política de senha do backoffice: mínimo {v} caracteres, 1 símbolo, troca a cada 90 dias",
            "password policy: at least {v} chars, no reuse of last 5, MFA mandatory for refunds role",
            "las contraseñas de soporte deben tener {v}+ caracteres y nunca se comparten por whatsapp",
        ],
    ),
    (
        "ssh_public_key",
        v_ssh_pub,
        [
            "add my key to bastion authorized_keys: {v} lucas@notebook",
            "{v} ci-deploy@entregas",
            "chave pública do novo SRE: {v} marina@mbp",
        ],
    ),
    (
        "ssh_host_fingerprint",
        lambda g: "SHA256:" + g.s(B64, 43),
        [
            "bastion-sp host key fingerprint: ED25519 {v}",
            "se pedir confirmação, o fingerprint certo é {v}",
        ],
    ),
    (
        "x509_certificate",
        v_cert,
        [
            "certificado público do PSP pix (cadeia), pode commitar:\n{v}",
            "Itaú sandbox CA cert:\n{v}",
        ],
    ),
    (
        "android_signing_sha1",
        v_sha1_fp,
        [
            "SHA-1 do keystore de release (restrição da maps key android): {v}",
            "add this SHA1 to firebase for the driver app: {v}",
            "huella SHA-1 del certificado de firma: {v}",
        ],
    ),
    (
        "docker_image_digest",
        lambda g: "sha256:" + g.hex(64),
        [
            "pin dispatch-api image to registry.entregas.io/dispatch-api@{v}",
            "imagem boa do eta-service: {v}",
        ],
    ),
    (
        "idempotency_key",
        lambda g: g.uuid(),
        [
            "X-Idempotency-Key: {v}",
            "MP devolvió 409 con idempotency key {v}, el retry estaba bien",
        ],
    ),
    (
        "trace_id",
        lambda g: g.hex(32),
        [
            "trace id for the timeout in Distance Matrix call: {v}",
            "dd trace {v} mostra 8s no lock do pedido",
            "x-request-id: {v}",
        ],
    ),
    (
        "acquirer_nsu_auth_code",
        lambda g: g.s(string.digits, 6),
        [
            "NSU {v} / autorização 0" + "48812 na Rede, cliente quer comprovante",
            "código de autorización del adquirente: {v}",
            "Cielo TID 1006993069000{v} negada por saldo",
        ],
    ),
    (
        "bcrypt_hash",
        v_bcrypt,
        [
            "hash in users table for test account soporte_qa: {v}",
            "senha do admin no seed está como hash: {v}",
        ],
    ),
    (
        "webhook_signature_header",
        lambda g: g.hex(64),
        [
            "x-signature: ts=1733500000,v1={v}",
            "Stripe-Signature: t=1733500000,v1={v} (del evento que falló la verificación)",
            "assinatura HMAC que veio no webhook do MP: {v}",
        ],
    ),
    (
        "expired_sms_otp",
        lambda g: g.s(string.digits, 6),
        [
            "driver says OTP {v} never arrived, it expired anyway after 5 min",
            "o código {v} do login do entregador chegou com 10 min de atraso (zenvia)",
        ],
    ),
    (
        "revoked_token_stated",
        v_ghp,
        [
            "REVOKED 2026-11-30, leaked in a screenshot: {v} — new one in vault",
            "token antigo (já revogado no github): {v}",
        ],
    ),
    (
        "launchdarkly_client_side_id",
        lambda g: g.hex(24),
        [
            "LaunchDarkly client-side ID (public, goes in the app): {v}",
            "LD_CLIENT_SIDE_ID={v}",
        ],
    ),
    (
        "ga_measurement_id",
        lambda g: "G-" + g.s(UPPER_ALNUM, 10),
        [
            "GA4 measurement id do site de cadastro de restaurante: {v}",
            "gtag('config', '{v}');",
        ],
    ),
    (
        "coupon_code",
        lambda g: (
            g.r.choice(["FRETEGRATIS", "PRIMERPEDIDO", "VOLTA", "ENVIOCERO"])
            + str(g.r.randint(10, 50))
        ),
        [
            "cupom da campanha de dezembro: {v} (público, vai no instagram)",
            "código promo para CDMX: {v}, tope 150 MXN",
            "promo code {v} is being abused by a ring of new accounts, fraud is on it",
        ],
    ),
    (
        "sentry_dsn_frontend",
        lambda g: g.hex(32),
        [
            "Sentry DSN of the customer web app (public DSN, fine in the bundle): https://{v}@o4504.ingest.sentry.io/4505123",
            "SENTRY_DSN=https://{v}@o4504.ingest.sentry.io/4505124",
        ],
    ),
    (
        "firebase_app_id",
        lambda g: "1:" + g.dig(12) + ":android:" + g.hex(22),
        [
            "firebase app id do app do entregador: {v}",
            "mobilesdk_app_id: {v}",
        ],
    ),
    (
        "license_plate",
        v_plate,
        [
            "motorista com placa {v} reportado por rota estranha",
            "moto {v} sem seguro vigente, bloquear no app",
        ],
    ),
    (
        "phone_hash",
        lambda g: g.hex(64),
        [
            "sha256(phone) of the account in the fraud ring: {v}",
            "hash del teléfono para cruzar con SEON: {v}",
        ],
    ),
    (
        "url_without_password",
        lambda g: "db-" + g.s(string.ascii_lowercase + string.digits, 6) + ".internal",
        [
            "DATABASE_URL=postgres://dispatch_app@{v}:5432/dispatch  (password via IAM auth)",
            "redis://{v}:6379/2 sem senha, só acessível de dentro da VPC",
            "mongosh 'mongodb://{v}:27017/tracking' --username soporte  (pide la clave interactivamente)",
        ],
    ),
]


EXTRA = {
    # secret
    "mercadopago_access_token": [
        "handover p/ Caro: o token de prod da conta CL foi trocado, novo é\n{v}"
    ],
    "stripe_secret_key_live": [
        "sk da conta stripe US (cobranças de turistas): {v}",
        "Estimados, la llave live de stripe quedó así: {v} (borren este mensaje después)",
    ],
    "stripe_webhook_secret": ["endpoint we_1Q9 -> signing secret {v}"],
    "efi_pix_client_secret": [
        "| efi | pix cob | Client_Id_0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c | {v} |"
    ],
    "cielo_merchant_key": ["[14:02] Rodrigo: MerchantKey da cielo de produção é {v} pode testar"],
    "twilio_auth_token": ["| twilio | prod | AC6f0d2a1b9c8e7d6f5a4b3c2d1e0f9a8b | {v} |"],
    "whatsapp_cloud_access_token": [
        "[10:41] Mari: pega esse aqui que não expira\n[10:41] Mari: {v}"
    ],
    "google_maps_server_key": ["maps:\n  server_key: {v}\n  region: br"],
    "postgres_url_password": ["[09:13] Diego: pass de la réplica de pagos: {v}"],
    "jwt_signing_secret": ["se alguém precisar gerar token de motorista na mão, o segredo é {v}"],
    "datadog_api_key": ["datadog.yaml:\napi_key: {v}\nsite: datadoghq.com"],
    "backoffice_human_password": [
        "painel admin dos restaurantes: login admin / {v}",
        "pw for the shared ops gmail (ops@entregalatam.com): {v}",
    ],
    "db_password_prose": ["the bi readonly pass is {v} until the rotation on friday"],
    "telegram_bot_token": ['bot_token: "{v}"'],
    "totp_seed": ["{v}\n(TOTP do painel Cielo, cadastrar no authenticator do plantão)"],
    "basic_auth_url": [
        "curl -u dispatch:{v} https://dispatch-internal.entregas.io/v1/couriers/nearby?lat=-23.5&lng=-46.6"
    ],
    "redis_url_password": ["requirepass {v}"],
    "sendgrid_api_key": [
        "curl -X POST https://api.sendgrid.com/v3/mail/send -H 'Authorization: Bearer {v}' -d @recibo.json"
    ],
    "aws_secret_access_key": ["| svc-receipts | AKIA (ver ficha) | {v} |"],
    "github_pat": ["[16:20] Nico: usá este token mientras tanto {v}"],
    "here_api_key": ["apikey de HERE pro geocoding de endereços: {v}"],
    "zendesk_api_token": ["token zendesk (agente bot): {v}"],
    "openai_api_key": ["{v}\nesa es la key del clasificador de tickets, no la compartan"],
    "pagarme_secret_key": ["| pagar.me | prod | {v} |"],
    "slack_bot_token": ["bot: {v}"],
    # benign
    "aws_documented_example_key": [
        "README of the exporter: set AWS_ACCESS_KEY_ID ({v} in examples)"
    ],
    "stripe_publishable_key": ["| stripe | publishable | {v} | front |"],
    "stripe_test_card": ["tarjeta {v} para probar pagos en staging"],
    "mercadopago_public_key": ["| MP AR | public key | {v} |"],
    "mercadopago_test_card": ["cartão de teste mastercard do MP: {v}"],
    "mapbox_public_token": ["token público do mapbox (pk., só leitura de estilo): {v}"],
    "firebase_web_api_key": [
        'google-services.json -> "current_key": "{v}" (restrita ao package com.entregas.cliente)'
    ],
    "recaptcha_site_key": ["site key do recaptcha do cadastro: {v} (a secret key fica no vault)"],
    "apk_sha256_checksum": ["Play Console mostra o hash SHA-256 do bundle: {v}"],
    "pix_brcode_copia_e_cola": ["{v}"],
    "company_cnpj": ["CNPJ: {v}"],
    "twilio_account_sid": ["| twilio | sid | {v} |"],
    "twilio_magic_test_number": ["in tests send to {v} to simulate invalid number"],
    "stripe_object_id": ["| {v} | refunded | 2026-11-28 |"],
    "changeme_placeholder": [
        "MP_ACCESS_TOKEN={v}",
        "contraseña inicial del panel: {v} (se fuerza cambio en el primer login)",
    ],
    "vault_reference": ["aws secretsmanager get-secret-value --secret-id {v}"],
    "k8s_secret_ref": ["o secret {v} é montado em /etc/secrets, nunca copiar o conteúdo aqui"],
    "redacted_key": ["MP token APP_USR-****-****** (redacted by Slack DLP) / stripe {v}"],
    "masked_card": ["| {v} | visa | chargeback 4837 |"],
    "password_policy": [
        "regra: senhas de adquirente trocadas a cada {v} semanas, guardadas só no 1Password"
    ],
    "ssh_host_fingerprint": [
        "The authenticity of host 'bastion-sp' can't be established. ED25519 key fingerprint is {v}."
    ],
    "x509_certificate": ["{v}"],
    "android_signing_sha1": ["SHA1: {v}"],
    "acquirer_nsu_auth_code": ["auth code {v} approved at Getnet, but order was canceled"],
    "bcrypt_hash": ["{v}"],
    "webhook_signature_header": ["x-hub-signature-256: sha256={v}"],
    "expired_sms_otp": ["el usuario pegó en el chat su código {v} (ya vencido) pidiendo ayuda"],
    "revoked_token_stated": ["rotated and revoked after the incident INC-482: {v}"],
    "launchdarkly_client_side_id": ['ldClientSideId: "{v}"'],
    "ga_measurement_id": ["GA: {v}"],
    "coupon_code": ["| {v} | 20% | até 31/12 |"],
    "sentry_dsn_frontend": ["Sentry.init({ dsn: 'https://{v}@o4504.ingest.sentry.io/4505125' })"],
    "firebase_app_id": ["| android | {v} |"],
    "license_plate": [
        "| {v} | Honda CG 160 | ativo |",
        "el auto patente {v} aparece con dos conductores distintos",
    ],
    "phone_hash": ["{v}  # sha256 +5511 do cliente reincidente"],
    "git_commit_sha": [
        "| dispatch-api | v3.41.0 | {v} | prod |",
        "commit {v} quitó la key de maps hardcodeada del repo (ya rotada)",
    ],
    "order_uuid": [
        "order {v} stuck in ASSIGNING for 40 min, courier pool empty in Zona Sul",
        "corrida {v}: passageiro diz que motorista era outro",
    ],
    "trace_id": ["| {v} | /v1/dispatch/assign | 504 |", "span {v} muestra 3 reintentos a infobip"],
    "pix_key_random_evp": [
        "{v}\n^ chave aleatória do PIX da loja Pastelaria Boa Vista",
        "| restaurante 4471 | chave pix | {v} |",
    ],
    "idempotency_key": [
        "Idempotency-Key: {v}",
        "reintento del pago con X-Idempotency-Key {v} no duplicó, ok",
    ],
    "env_var_reference": ["Authorization: Bearer {v}", "export MP_TOKEN={v}"],
    "placeholder_token": [
        "TOKEN_WHATSAPP={v}  # preencher com o do vault",
        "twilio auth token: {v} (pedir pro Rafa)",
    ],
    "docker_image_digest": ["image: registry.entregas.io/courier-gateway@{v}", "rollback: {v}"],
    "mercadopago_payment_id": [
        "| {v} | PIX | approved | R$ 58,90 |",
        "MP reclamo abierto sobre el pago {v}",
    ],
    "ssh_public_key": ["authorized_keys:\n{v} deploy@ci", "{v}"],
    "url_without_password": ["host do banco: {v} (credenciais via vault dynamic secrets)"],
}


def corpus():
    rng = random.Random(SEED)
    g = G(rng)
    rows = []
    for label, kinds in (("secret", SECRET), ("benign", BENIGN)):
        for kind, fn, templates in kinds:
            for tpl in list(templates) + EXTRA.get(kind, []):
                v = fn(g)
                text = tpl.replace("{v}", v)
                if "{sec}" in text:
                    text = text.replace("{sec}", v_aws_secret(g))
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

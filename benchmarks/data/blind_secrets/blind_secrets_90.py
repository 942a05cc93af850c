# ruff: noqa: E501, SIM115, UP031
"""Blind secret-detector corpus 90: a Southeast Asian travel agency and tour operator.

Brief: labelled rows for a secret detector, written as the memory notes a
Southeast Asian travel agency / tour operator team and its AI coding agents
would keep: booking engines, GDS terminals (Amadeus, Sabre, Travelport),
hotel channel managers and OTA extranets, regional payment gateways (Xendit,
Midtrans, Omise, 2C2P, VNPay, MoMo, ZaloPay, PayMongo), chat apps (LINE,
Zalo, Telegram, WhatsApp), tour guides' devices and the office network, plus
the generic developer stack. Notes in English, Vietnamese, Thai and
Indonesian. "secret" rows hold live credentials; "benign" rows hold
look-alikes a careful reader would keep (ids, references, hashes, public
keys, placeholders, masked or revoked values).

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Run: python blind_secrets_90.py [out.jsonl]

Kinds, secret: xendit_secret_key, midtrans_server_key, omise_secret_key,
2c2p_secret_key, vnpay_hash_secret, momo_secret_key, zalopay_key,
stripe_secret_key, paymongo_secret_key, paypal_client_secret,
amadeus_api_secret, gds_terminal_password, travelport_uapi_password,
hotelbeds_api_secret, channel_manager_password, ota_extranet_password,
line_channel_access_token, line_channel_secret, line_notify_token,
telegram_bot_token, zalo_oa_access_token, whatsapp_cloud_token,
slack_webhook_url, discord_webhook_url, google_chat_webhook_url,
aws_secret_access_key, gcp_service_account_private_key, ssh_private_key,
github_token, gitlab_token, npm_token, docker_hub_token, sendgrid_api_key,
twilio_auth_token, openai_api_key, database_connection_string,
database_password, office_wifi_password, router_admin_password,
guide_device_pin, door_access_code, shared_mailbox_password,
google_app_password, mfa_recovery_codes, jwt_signing_secret,
app_secret_key, vpn_preshared_key, sftp_password,
azure_storage_connection_string, fcm_server_key, totp_seed,
bank_portal_password.

Kinds, benign: pnr_record_locator, eticket_number, iata_agency_number,
gds_office_id, hotel_confirmation_number, midtrans_client_key,
omise_public_key, stripe_publishable_key, xendit_public_key,
recaptcha_site_key, line_channel_id, telegram_chat_id, aws_account_id,
documented_example_key, placeholder_value, env_var_reference, vault_path,
masked_secret, redacted_value, sha256_checksum, git_commit_sha,
docker_image_digest, ssh_public_key, cert_fingerprint, pem_certificate,
request_uuid, invoice_number, tax_id, tourism_license_number,
bank_account_number, device_serial_number, mac_address, ip_address,
wifi_ssid, build_version, revoked_key, password_policy, flight_number,
ota_property_id, payment_merchant_id, promo_code, ticket_reference,
ga_measurement_id, meta_pixel_id, slack_channel_id, ci_secret_reference,
k8s_secret_reference, test_card_number, device_imei, package_integrity_hash,
pgp_fingerprint, tour_code, vehicle_plate, twilio_account_sid,
ota_booking_id, zalo_oa_id, unix_timestamp.
"""

import json
import random
import string
import sys

SEED = 9090
R = random.Random(SEED)

LO = string.ascii_lowercase
UP = string.ascii_uppercase
DI = string.digits
B62 = LO + UP + DI


def rs(chars, n):
    return "".join(R.choice(chars) for _ in range(n))


def b62(n):
    return rs(B62, n)


def hx(n):
    return rs("0123456789abcdef", n)


def HX(n):
    return rs("0123456789ABCDEF", n)


def b64(n):
    return rs(B62 + "+/", n)


def b64u(n):
    return rs(B62 + "-_", n)


def dig(n):
    return R.choice("123456789") + rs(DI, n - 1)


def ualnum(n):
    return rs(UP + DI, n)


def seq(*vals):
    it = iter(vals)
    return lambda: next(it)


def pem_private_key(escaped):
    lines = ["MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ" + b64(14)]
    lines += [b64(64) for _ in range(10)]
    lines.append(b64(40) + "==")
    nl = "\\n" if escaped else "\n"
    return (
        "-----BEGIN PRIVATE KEY-----" + nl + nl.join(lines) + nl + "-----END PRIVATE KEY-----" + nl
    )


def openssh_key():
    lines = ["b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW"]
    lines += [b64(70) for _ in range(3)]
    lines.append(b64(20) + "ECAwQF")
    return (
        "-----BEGIN OPENSSH PRIVATE KEY-----\n"
        + "\n".join(lines)
        + "\n-----END OPENSSH PRIVATE KEY-----"
    )


def pem_cert():
    lines = ["MIIDdzCCAl+gAwIBAgIUY" + b64(43)]
    lines += [b64(64) for _ in range(6)]
    lines.append(b64(30) + "=")
    return "-----BEGIN CERTIFICATE-----\n" + "\n".join(lines) + "\n-----END CERTIFICATE-----"


def colon_hex(n):
    return ":".join(HX(2) for _ in range(n))


def _tables():
    """The rows' kinds, generators and templates (built anew for each corpus)."""
    SECRET = [
        (
            "xendit_secret_key",
            lambda: "xnd_production_" + b62(64),
            [
                "XENDIT_SECRET_KEY={v}",
                "Xendit live key cho cổng thanh toán tour Bali: {v} — đừng gửi qua Zalo nữa nhé",
                "curl https://api.xendit.co/v2/invoices -u {v}: -d external_id=INV-BALI-2291 -d amount=4500000",
                "Kunci rahasia Xendit (produksi) untuk checkout paket Lombok: {v}",
            ],
        ),
        (
            "midtrans_server_key",
            lambda: "Mid-server-" + b62(24),
            [
                "MIDTRANS_SERVER_KEY={v}",
                "Server key Midtrans produksi: {v} (client key boleh di frontend, yang ini JANGAN)",
                'core = midtransclient.CoreApi(is_production=True, server_key="{v}", client_key=os.environ["MIDTRANS_CLIENT_KEY"])',
                "agent memory: Midtrans dashboard > Settings > Access Keys, server key = {v}, merchant Jogja office",
            ],
        ),
        (
            "omise_secret_key",
            lambda: "skey_5" + rs(LO + DI, 18),
            [
                "OMISE_SECRET_KEY={v}",
                "คีย์ลับ Omise (live) ของบริษัท: {v} ห้ามใส่ในแอปมือถือเด็ดขาด",
                "omise.api_secret = '{v}'",
                "curl https://api.omise.co/charges -u {v}: -d amount=450000 -d currency=thb -d card=tokn_5w1s2xk",
            ],
        ),
        (
            "2c2p_secret_key",
            lambda: HX(64),
            [
                "TWOCTWOP_SECRET_KEY={v}",
                '2c2p:\n  merchant_id: "764764000012345"\n  secret_key: "{v}"\n  currency: THB',
                "secret key 2C2P สำหรับ merchant 764764000012345 (production): {v}",
            ],
        ),
        (
            "vnpay_hash_secret",
            lambda: ualnum(32),
            [
                "vnp_HashSecret={v}",
                "VNPay gửi mail: TmnCode=TRVLSG01, HashSecret={v}. Anh lưu vào vault giúp em rồi xoá mail nhé",
                '{"vnpay": {"tmn_code": "TRVLSG01", "hash_secret": "{v}", "url": "https://pay.vnpay.vn/vpcpay.html"}}',
                'VNPAY_HASH_SECRET="{v}"',
            ],
        ),
        (
            "momo_secret_key",
            lambda: b62(32),
            [
                "MOMO_SECRET_KEY={v}",
                "MoMo production: partnerCode=MOMOTVL20240101, secretKey={v}",
                "secretKey MoMo môi trường production: {v} — chỉ anh Tuấn với em biết thôi",
            ],
        ),
        (
            "zalopay_key",
            lambda: b62(32),
            [
                "ZALOPAY_KEY1={v}",
                "zalopay:\n  app_id: 2553\n  key1: {v}\n  endpoint: https://openapi.zalopay.vn/v2/create",
                "key2 của ZaloPay (dùng verify callback): {v}",
            ],
        ),
        (
            "stripe_secret_key",
            lambda: "sk_live_51" + b62(97),
            [
                "STRIPE_SECRET_KEY={v}",
                'stripe.api_key = "{v}"  # Singapore entity, SGD payouts',
                "Not rotated yet. Current Stripe live secret for the SG booking site is {v}",
                "คีย์ Stripe live ของสาขาสิงคโปร์ (ใช้ตัดบัตรลูกค้าต่างชาติ): {v}",
            ],
        ),
        (
            "paymongo_secret_key",
            lambda: "sk_live_" + b62(24),
            [
                "PAYMONGO_SECRET_KEY={v}",
                "PayMongo (Manila office, El Nido packages) secret key: {v}",
                "curl -u {v}: https://api.paymongo.com/v1/payment_intents -d amount=1250000",
                "paymongo:\n  secret_key: {v}\n  webhook_path: /hooks/paymongo",
            ],
        ),
        (
            "paypal_client_secret",
            lambda: "E" + b64u(79),
            [
                "PAYPAL_CLIENT_SECRET={v}",
                "paypal:\n  mode: live\n  client_id: ${PAYPAL_CLIENT_ID}\n  client_secret: {v}",
                "PayPal REST app 'TourDesk Live' secret -> {v}",
            ],
        ),
        (
            "amadeus_api_secret",
            lambda: b62(16),
            [
                "AMADEUS_CLIENT_SECRET={v}",
                "curl -X POST https://api.amadeus.com/v1/security/oauth2/token -d 'grant_type=client_credentials&client_id=$AMADEUS_CLIENT_ID&client_secret={v}'",
                "Amadeus for Developers (production tier) — API Secret: {v}",
                "secret Amadeus API mới cấp cho app tìm vé: {v}",
            ],
        ),
        (
            "gds_terminal_password",
            seq("Sgn7tour!", "Hanoi@2026", "Bkk*Cntr41", "Jkt2025galileo", "Mekong#19"),
            [
                "Sabre Red sign-in: EPR 7731, PCC 3KQF, password {v}",
                "Amadeus Selling Platform Connect: user NGUYENH, office SGNVN2100, mật khẩu {v}",
                "รหัสผ่านเข้า Sabre ของเคาน์เตอร์ BKK: {v} (เปลี่ยนทุก 90 วัน)",
                "Password Galileo Smartpoint kantor Jakarta: {v}",
                "handover: GDS login for the Siem Reap desk is agent 0412 / {v}",
            ],
        ),
        (
            "travelport_uapi_password",
            lambda: rs(B62 + "*+/-!", 10),
            [
                "TRAVELPORT_UAPI_PASSWORD={v}",
                "uAPI creds: Universal API/uAPI6514598558-21259b0c / {v} (TargetBranch P7141733)",
                '<Credentials user="Universal API/uAPI6514598558-21259b0c" password="{v}"/>',
            ],
        ),
        (
            "hotelbeds_api_secret",
            lambda: rs(LO + DI, 10),
            [
                "HOTELBEDS_SECRET={v}",
                "Hotelbeds X-Signature = sha256(apiKey + secret + ts); secret hiện tại: {v}",
                "hotelbeds:\n  api_key: ${HOTELBEDS_API_KEY}\n  secret: {v}\n  base_url: https://api.hotelbeds.com",
            ],
        ),
        (
            "channel_manager_password",
            seq(
                "PhuQuoc!Resort24",
                "staah#Bkk88",
                "UbudVilla2025$",
                "Rates&Avail77",
                "siteminder.HCM9",
            ),
            [
                "SiteMinder login cho resort Phú Quốc: reservations@sunsettravel.vn / {v}",
                "STAAH extranet: user ops.bkk, pass {v}",
                "Login channel manager (SiteMinder) villa Ubud: sandi {v}",
                "siteminder_pmsxchange_password: {v}",
                "RateGain channel login for the Da Lat boutique hotels → reservations / {v}",
            ],
        ),
        (
            "ota_extranet_password",
            seq(
                "HoiAn2024@ycs", "BookingHoian#7", "Tera_Lombok25", "Chiangmai!99", "expediaPQ2026"
            ),
            [
                "Agoda YCS - property 5521873 - mk: {v}",
                "Booking.com extranet login (hotel 4412907): admin_hoian / {v}",
                "Traveloka TERA akun hotel Lombok, password: {v}",
                "Agoda YCS ของโรงแรมเชียงใหม่ user: cnx.front รหัสผ่าน {v}",
                "Expedia Partner Central (Phu Quoc villas): ops@sunsettravel.vn {v}",
            ],
        ),
        (
            "line_channel_access_token",
            lambda: b64(171) + "=",
            [
                "LINE_CHANNEL_ACCESS_TOKEN={v}",
                "token ของ LINE OA @siamtrips (long-lived): {v}",
                "curl -H 'Authorization: Bearer {v}' -H 'Content-Type: application/json' https://api.line.me/v2/bot/message/push",
            ],
        ),
        (
            "line_channel_secret",
            lambda: hx(32),
            [
                "LINE_CHANNEL_SECRET={v}",
                "channel secret ไว้ verify X-Line-Signature: {v}",
                "line:\n  channel_id: 1657012345\n  channel_secret: {v}",
                "LINE Messaging API channel secret (OA @bkk-daytrips), regenerated today: {v}",
            ],
        ),
        (
            "line_notify_token",
            lambda: b62(43),
            [
                "LINE Notify token กลุ่ม 'ops-booking': {v}",
                "curl -X POST -H 'Authorization: Bearer {v}' -F 'message=New booking BKK-PHU' https://notify-api.line.me/api/notify",
                "LINE_NOTIFY_TOKEN={v}",
                "โทเคน LINE Notify ของกลุ่มไกด์เชียงราย: {v} อย่าแชร์ในกลุ่มลูกค้า",
            ],
        ),
        (
            "telegram_bot_token",
            lambda: dig(10) + ":AA" + b64u(33),
            [
                "TELEGRAM_BOT_TOKEN={v}",
                "Bot Telegram @NusaTripAlertBot token: {v}",
                "https://api.telegram.org/bot{v}/sendMessage?chat_id=-1001873346612&text=Booking%20baru",
                "token bot Telegram báo booking mới cho sale Đà Nẵng: {v}",
            ],
        ),
        (
            "zalo_oa_access_token",
            lambda: b64u(260),
            [
                "ZALO_OA_ACCESS_TOKEN={v}",
                "access_token Zalo OA (hết hạn sau 25h, nhớ refresh): {v}",
                "curl -H 'access_token: {v}' https://openapi.zalo.me/v3.0/oa/message/cs",
            ],
        ),
        (
            "whatsapp_cloud_token",
            lambda: "EAAG" + b62(180),
            [
                "WHATSAPP_TOKEN={v}",
                "Token permanen WhatsApp Cloud API (system user): {v}",
                "POST https://graph.facebook.com/v19.0/109876543210987/messages\nAuthorization: Bearer {v}",
            ],
        ),
        (
            "slack_webhook_url",
            lambda: (
                "https://hooks.slack.com/services/T" + ualnum(8) + "/B" + ualnum(10) + "/" + b62(24)
            ),
            [
                "SLACK_WEBHOOK_URL={v}",
                "alerts:\n  on_payment_fail:\n    slack: {v}",
                "webhook Slack kênh #booking-fail: {v}",
                'requests.post("{v}", json={"text": "Omise charge failed"})',
            ],
        ),
        (
            "discord_webhook_url",
            lambda: "https://discord.com/api/webhooks/" + dig(19) + "/" + b64u(68),
            [
                "DISCORD_WEBHOOK={v}",
                "Webhook Discord untuk channel #guide-updates: {v}",
                "curl -H 'Content-Type: application/json' -d '{\"content\":\"Tour cancelled\"}' {v}",
            ],
        ),
        (
            "google_chat_webhook_url",
            lambda: (
                "https://chat.googleapis.com/v1/spaces/AAAA"
                + b64u(7)
                + "/messages?key=AIzaSyDdI0hCZtE6vySjMm-WEfRq3CPzqKqqsHI&token="
                + b64u(43)
                + "%3D"
            ),
            [
                "GCHAT_WEBHOOK={v}",
                "Google Chat space 'Sales HCM' incoming webhook: {v}",
                'notify:\n  google_chat_url: "{v}"',
            ],
        ),
        (
            "aws_secret_access_key",
            lambda: b64(40),
            [
                "aws_secret_access_key = {v}",
                "AWS_SECRET_ACCESS_KEY={v}",
                "key IAM cho bucket ảnh tour (s3://sunset-tour-photos): AKIA4QX7ZK2M5NVBR3TD / {v}",
                "Secret access key user ci-deployer (ap-southeast-1): {v}",
            ],
        ),
        (
            "gcp_service_account_private_key",
            None,
            [
                '{"type": "service_account", "project_id": "sunset-booking-prod", "private_key_id": "3f9c1a7e5b", "private_key": "{v}", "client_email": "booking-api@sunset-booking-prod.iam.gserviceaccount.com"}',
                'GOOGLE_PRIVATE_KEY="{v}"',
                "Private key của service account đồng bộ Google Sheets giá tour (dán từ file JSON):\n{v}",
            ],
        ),
        (
            "ssh_private_key",
            None,
            [
                "~/.ssh/id_ed25519 trên máy bastion (copy để deploy):\n{v}",
                "deploy key for the booking-engine repo:\n{v}",
                "Kunci SSH server kasir Ubud (jangan di-commit):\n{v}",
            ],
        ),
        (
            "github_token",
            seq(
                "ghp_" + b62(36),
                "github_pat_11A" + ualnum(19) + "_" + b62(59),
                "ghp_" + b62(36),
                "gho_" + b62(36),
            ),
            [
                "GITHUB_TOKEN={v}",
                "git clone https://{v}@github.com/sunsettravel/booking-engine.git",
                "PAT của bot release (scope repo, packages): {v}",
                "gh auth login --with-token <<< {v}",
            ],
        ),
        (
            "gitlab_token",
            lambda: "glpat-" + b64u(20),
            [
                "GITLAB_TOKEN={v}",
                "Token GitLab CI untuk mirror repo itinerary-builder: {v}",
                "git remote set-url origin https://oauth2:{v}@gitlab.com/nusatrip/itinerary-builder.git",
            ],
        ),
        (
            "npm_token",
            lambda: "npm_" + b62(36),
            [
                "//registry.npmjs.org/:_authToken={v}",
                "NPM_TOKEN={v}",
                "npm publish token cho package @sunset/ui-kit: {v}",
                "Token npm (automation) untuk CI repo widget-pemesanan: {v}",
            ],
        ),
        (
            "docker_hub_token",
            lambda: "dckr_pat_" + b64u(27),
            [
                "echo {v} | docker login -u sunsetops --password-stdin",
                "DOCKERHUB_TOKEN={v}",
                "Docker Hub access token (read/write) cho pipeline build: {v}",
                "docker_hub:\n  username: sunsetops\n  token: {v}",
            ],
        ),
        (
            "sendgrid_api_key",
            lambda: "SG." + b64u(22) + "." + b64u(43),
            [
                "SENDGRID_API_KEY={v}",
                "SendGrid key gửi e-voucher cho khách: {v}",
                "sendgrid:\n  api_key: {v}\n  from: booking@sunsettravel.vn",
            ],
        ),
        (
            "twilio_auth_token",
            lambda: hx(32),
            [
                "TWILIO_AUTH_TOKEN={v}",
                "Twilio SMS OTP: Account SID AC3f1b9e2d7c4a6058e1f2a3b4c5d6e7f8, auth token {v}",
                "auth token Twilio ส่ง SMS แจ้งเวลารับที่โรงแรม: {v}",
                'client = Client("AC3f1b9e2d7c4a6058e1f2a3b4c5d6e7f8", "{v}")  # WhatsApp sandbox for guides',
            ],
        ),
        (
            "openai_api_key",
            lambda: "sk-proj-" + b64u(74) + "T3BlbkFJ" + b64u(74),
            [
                "OPENAI_API_KEY={v}",
                "key dùng cho chatbot tư vấn tour trên Zalo: {v}",
                'client = OpenAI(api_key="{v}")  # itinerary summariser',
            ],
        ),
        (
            "database_connection_string",
            seq(
                "postgresql://booking_app:Tr4vel%40Sgn2026@db-prod.internal:5432/bookings",
                "mysql://crm:Hoian_Crm_88@10.20.1.15:3306/crm_leads",
                "mongodb+srv://tourops:Bali2025Kuta!@cluster0.x7k2p.mongodb.net/tours?retryWrites=true",
                "redis://:Rd!s-Cache-BKK-41@redis.bkk.internal:6379/0",
                "Server=sql-finance.local;Database=Accounting;User Id=sa;Password=Finance#2026vn;",
            ),
            [
                "DATABASE_URL={v}",
                "chuỗi kết nối DB CRM (read-write): {v}",
                'MONGO_URI="{v}"',
                "cache:\n  url: {v}",
                "Connection string phần mềm kế toán: {v}",
            ],
        ),
        (
            "database_password",
            seq("Pg_Bookings!2026", "kuta-beach-77", "Sgn@Replica9", "mysqlRoot#Hn24"),
            [
                "POSTGRES_PASSWORD={v}",
                "password user readonly cho Metabase: {v}",
                "PGPASSWORD='{v}' psql -h db-replica.internal -U report bookings",
                "mysql -u root -p'{v}' -h 10.20.1.15 crm_leads",
            ],
        ),
        (
            "office_wifi_password",
            seq("SunsetTravel2026", "chaoban@123", "nusatrip_guest88", "sawasdee#Office5"),
            [
                "Wi-Fi văn phòng Quận 1: SSID SunsetTravel-Staff, mật khẩu {v}",
                "WPA2 key for the staff SSID at the Hanoi office: {v}",
                "Password WiFi kantor Denpasar (SSID NusaTrip-Office): {v}",
                "รหัส Wi-Fi ออฟฟิศสุขุมวิท: {v}",
            ],
        ),
        (
            "router_admin_password",
            seq("Adm1n@Draytek", "mikrotik!Q1", "Fortigate#Sgn26", "tplink-ops-2025"),
            [
                "DrayTek Vigor 2927 admin login: admin / {v}",
                "Mikrotik hEX di kantor Jakarta: user admin, pass {v}",
                "FortiGate 60F (HCM): admin / {v} — chỉ IT được đổi",
                "TP-Link Omada controller at Chiang Mai branch, admin pw {v}",
            ],
        ),
        (
            "guide_device_pin",
            seq("482915", "0713", "260488", "9157"),
            [
                "PIN mở khoá tablet của hướng dẫn viên đoàn Hạ Long: {v}",
                "Guide phone #07 (Samsung A54) unlock PIN {v}",
                "PIN HP pemandu tur Borobudur: {v}",
                "รหัสปลดล็อกแท็บเล็ตไกด์ทัวร์ภูเก็ต: {v}",
            ],
        ),
        (
            "door_access_code",
            seq("4716#", "2580*", "93017", "1847"),
            [
                "Mã cửa kho tài liệu tầng 3: {v}",
                "Alarm code for the Bangkok office (disarm before 7:30): {v}",
                "Kode pintu gudang perlengkapan snorkeling: {v}",
                "รหัสเปิดประตูห้องเซิร์ฟเวอร์: {v}",
            ],
        ),
        (
            "shared_mailbox_password",
            seq("Booking@Sunset2026", "groupdesk!HN88", "Reservasi2025#", "sales.bkk.4471"),
            [
                "booking@sunsettravel.vn (Google Workspace) mật khẩu chung: {v}",
                "Shared inbox groups@sunsettravel.vn password is {v}, 2FA on Lan's phone",
                "Email reservasi@nusatrip.co.id, sandi: {v}",
                "อีเมลกลาง sales@siamtrips.co.th รหัส {v}",
            ],
        ),
        (
            "google_app_password",
            lambda: " ".join(rs(LO, 4) for _ in range(4)),
            [
                "App password cho máy in scan-to-email: {v}",
                'SMTP_PASSWORD="{v}"  # Gmail app password, booking@',
                "Sandi aplikasi Google untuk Thunderbird kantor: {v}",
            ],
        ),
        (
            "mfa_recovery_codes",
            lambda: " ".join(rs(DI, 4) + "-" + rs(DI, 4) for _ in range(5)),
            [
                "Backup codes tài khoản AWS root: {v}",
                "Recovery codes for the Agoda YCS owner account: {v}",
                "Kode cadangan 2FA akun Xendit: {v}",
            ],
        ),
        (
            "jwt_signing_secret",
            lambda: b64u(48),
            [
                "JWT_SECRET={v}",
                "secret ký JWT cho app đặt tour mobile: {v}",
                'auth:\n  jwt:\n    algorithm: HS256\n    secret: "{v}"',
            ],
        ),
        (
            "app_secret_key",
            seq(
                "django-insecure-" + rs(LO + DI + "!@#$%^&*(-_=+)", 50),
                rs(LO + DI + "!@#$%^&*(-_=+)", 50),
                "base64:" + b64(43) + "=",
                b64u(64),
            ),
            [
                "SECRET_KEY = '{v}'  # booking admin, prod settings",
                "DJANGO_SECRET_KEY={v}",
                "APP_KEY={v}",
                "SECRET_KEY_BASE={v}",
            ],
        ),
        (
            "vpn_preshared_key",
            seq("Sgn-Bkk-IPsec-2026!x", "nUs4Trip_psk_Denpasar", "k8#Lp2Qz!mV7wR4t"),
            [
                "IPsec site-to-site HCM↔BKK, pre-shared key: {v}",
                "PSK VPN kantor Denpasar ke HQ: {v}",
                "set vpn ipsec site-to-site peer 203.0.113.24 authentication pre-shared-secret '{v}'",
            ],
        ),
        (
            "sftp_password",
            seq("RateUp!load26", "gta_ftp_8831", "Contract#Feed9"),
            [
                "SFTP đẩy file giá phòng lên GTA: sftp.gta-travel.com user sunset_rates pass {v}",
                "lftp -u tourfeed,{v} sftp://files.partner-dmc.com",
                "Akun SFTP untuk kirim manifest ke operator kapal: manifest / {v}",
            ],
        ),
        (
            "azure_storage_connection_string",
            lambda: (
                "DefaultEndpointsProtocol=https;AccountName=sunsetdocs;AccountKey="
                + b64(86)
                + "==;EndpointSuffix=core.windows.net"
            ),
            [
                "AZURE_STORAGE_CONNECTION_STRING={v}",
                "Blob lưu scan hộ chiếu khách: {v}",
                "Storage account chứa voucher PDF (prod): {v}",
            ],
        ),
        (
            "fcm_server_key",
            lambda: "AAAA" + b64u(7) + ":APA91b" + b64u(134),
            [
                "FCM_SERVER_KEY={v}",
                "Legacy FCM server key cho app hướng dẫn viên: {v}",
                "Authorization: key={v}",
            ],
        ),
        (
            "totp_seed",
            lambda: rs(UP + "234567", 32),
            [
                "otpauth://totp/Xendit:finance@nusatrip.co.id?secret={v}&issuer=Xendit",
                "Seed 2FA (TOTP) tài khoản Amadeus admin, nhập vào Authy: {v}",
                "TOTP secret สำหรับ Omise dashboard: {v}",
            ],
        ),
        (
            "bank_portal_password",
            seq("Vcb@Corp2026", "BCAbisnis#77", "Kbank!Biz4410"),
            [
                "Vietcombank iB@nking doanh nghiệp: user SUNSETKT01 / {v}",
                "KlikBCA Bisnis kantor Bali, corp id NUSATRIP, password {v}",
                "K BIZ ของบริษัท user: siam_fin รหัสผ่าน {v}",
            ],
        ),
    ]

    BENIGN = [
        (
            "pnr_record_locator",
            lambda: ualnum(6),
            [
                "PNR {v} — đoàn 18 khách SGN-HAN VN213, đã xuất vé",
                "Rebooked pax LEE/MINJI on record locator {v}, seat 23C",
                "Kode booking maskapai {v} (Garuda GA404 CGK-DPS)",
                "PNR {v} ยกเลิกแล้ว คืนเงินผ่าน BSP",
            ],
        ),
        (
            "eticket_number",
            seq("738-2401987654", "2172405518830", "126-2219904531", "8172409917723"),
            [
                "Số vé điện tử VN: {v}",
                "e-ticket {v} exchanged, ADC 1,250,000 VND collected",
                "Nomor tiket {v} sudah di-void di hari yang sama",
                "เลขตั๋ว {v} (TG) เปลี่ยนวันเดินทางแล้ว",
            ],
        ),
        (
            "iata_agency_number",
            seq("37312345", "96254781", "35201846", "35304712"),
            [
                "IATA agency code của công ty: {v}",
                "BSP Thailand settlement for IATA number {v} is due on the 15th",
                "Nomor IATA kantor Jakarta: {v}",
                "เลข IATA สาขากรุงเทพฯ: {v}",
            ],
        ),
        (
            "gds_office_id",
            seq("SGNVN2100", "3KQF", "BKKTH38AB", "P7141733"),
            [
                "Amadeus office ID {v} — queue 50 là vé chờ xuất",
                "Sabre PCC {v} is emulated from the Bangkok home PCC",
                "Office ID Amadeus kantor Bangkok: {v}",
                "Travelport TargetBranch {v} (pre-prod và prod giống nhau)",
            ],
        ),
        (
            "hotel_confirmation_number",
            seq("HB-4471-228913", "70918823", "RES-PQ-2026-00871", "KBV-118204"),
            [
                "Mã xác nhận khách sạn: {v} (Hotelbeds)",
                "Hotel confirmation no. {v}, guest ARUNEE S., 2 nights",
                "Nomor konfirmasi villa Seminyak: {v}",
                "เลขยืนยันโรงแรมกระบี่: {v}",
            ],
        ),
        (
            "midtrans_client_key",
            lambda: "Mid-client-" + b62(16),
            [
                "MIDTRANS_CLIENT_KEY={v}  # public, dipakai di snap.js",
                '<script src="https://app.midtrans.com/snap/snap.js" data-client-key="{v}"></script>',
                "Client key Midtrans (boleh di frontend): {v}",
            ],
        ),
        (
            "omise_public_key",
            lambda: "pkey_5" + rs(LO + DI, 18),
            [
                "OMISE_PUBLIC_KEY={v}",
                "Omise.setPublicKey('{v}');",
                "public key Omise ใช้ในหน้า checkout ได้: {v}",
            ],
        ),
        (
            "stripe_publishable_key",
            lambda: "pk_live_51" + b62(97),
            [
                "NEXT_PUBLIC_STRIPE_PUBLISHABLE_KEY={v}",
                "const stripe = Stripe('{v}');",
                "Publishable key (safe in browser) for the SG site: {v}",
            ],
        ),
        (
            "xendit_public_key",
            lambda: "xnd_public_production_" + b62(40),
            [
                "XENDIT_PUBLIC_KEY={v}",
                "Xendit.setPublishableKey('{v}');  // tokenisasi kartu",
                "Public key Xendit dùng ở frontend, không phải secret: {v}",
            ],
        ),
        (
            "recaptcha_site_key",
            lambda: "6L" + b64u(38),
            [
                "reCAPTCHA site key form đặt tour: {v}",
                '<div class="g-recaptcha" data-sitekey="{v}"></div>',
                "RECAPTCHA_SITE_KEY={v}",
            ],
        ),
        (
            "line_channel_id",
            seq("1657012345", "2003518827", "1661409921"),
            [
                "LINE Login channel ID: {v}",
                "LINE_CHANNEL_ID={v}",
                "channel id ของ OA @siamtrips คือ {v}",
            ],
        ),
        (
            "telegram_chat_id",
            seq("-1001873346612", "-1002145098713", "538201947"),
            [
                "TELEGRAM_CHAT_ID={v}",
                "Grup Telegram 'Guide Bali' chat_id {v}",
                "chat id của chị Hằng (nhận báo cáo ngày): {v}",
            ],
        ),
        (
            "aws_account_id",
            seq("418273659014", "902315748266", "155837204913"),
            [
                "AWS account prod: {v} (ap-southeast-1)",
                "arn:aws:iam::{v}:role/booking-api-task",
                "Tài khoản AWS staging: {v}",
            ],
        ),
        (
            "documented_example_key",
            seq(
                "AKIAIOSFODNN7EXAMPLE",
                "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
                "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
            ),
            [
                "The AWS docs use {v} as the sample access key id; copy the format, not the value",
                "Ví dụ trong tài liệu AWS: aws_secret_access_key = {v}",
                "Stripe docs sample key {v} appears in our README snippet only",
            ],
        ),
        (
            "placeholder_value",
            seq(
                "<your-server-key>",
                "changeme",
                "xxxxxxxxxxxxxxxxxxxx",
                "REPLACE_WITH_VNPAY_SECRET",
                "sk_live_...",
            ),
            [
                "MIDTRANS_SERVER_KEY={v}",
                "db:\n  password: {v}  # set trong .env.local",
                "LINE_CHANNEL_SECRET={v}",
                "vnp_HashSecret={v}",
                "STRIPE_SECRET_KEY={v} (điền key thật từ vault)",
            ],
        ),
        (
            "env_var_reference",
            seq(
                "${XENDIT_SECRET_KEY}",
                "$OMISE_SECRET_KEY",
                'os.environ["VNPAY_HASH_SECRET"]',
                "process.env.LINE_CHANNEL_ACCESS_TOKEN",
            ),
            [
                "xendit:\n  secret_key: {v}",
                "curl https://api.omise.co/charges -u {v}: -d amount=100000",
                "secret = {v}",
                "const client = new line.Client({ channelAccessToken: {v} });",
            ],
        ),
        (
            "vault_path",
            seq(
                "secret/data/payments/vnpay",
                "kv/prod/line-oa/siamtrips",
                "secret/data/gds/amadeus",
                "arn:aws:secretsmanager:ap-southeast-1:418273659014:secret:prod/xendit-AbC123",
            ),
            [
                "HashSecret VNPay để ở {v}, không để trong repo",
                "vault kv get {v}",
                "Kredensial Amadeus disimpan di {v}",
                "Secret Manager ARN: {v}",
            ],
        ),
        (
            "masked_secret",
            seq(
                "sk_live_****************3kQz",
                "Mid-server-********************aB9x",
                "xnd_production_••••••••••1f2e",
                "skey_5*************q7",
            ),
            [
                "Stripe dashboard shows {v} as the active key",
                "Log: using server key {v}",
                "Dashboard Xendit menampilkan {v}",
                "Omise key ปัจจุบัน (ปิดบังไว้): {v}",
            ],
        ),
        (
            "redacted_value",
            seq("[REDACTED]", "***", "<hidden>"),
            [
                "2026-11-02T08:14:22Z INFO vnpay callback ok, vnp_SecureHash={v}",
                "DATABASE_URL=postgresql://booking_app:{v}@db-prod.internal:5432/bookings",
                "Authorization: Bearer {v}",
            ],
        ),
        (
            "sha256_checksum",
            lambda: hx(64),
            [
                "sha256 của file giá phòng Q1-2026.xlsx: {v}",
                "{v}  guide-app-3.4.1.apk",
                "Checksum SHA-256 manifest penumpang: {v}",
            ],
        ),
        (
            "git_commit_sha",
            lambda: hx(40),
            [
                "Bug VNPay callback fixed in commit {v}",
                "deploy booking-engine@{v} lên prod lúc 22:00",
                "revert {v} (breaks Agoda mapping)",
            ],
        ),
        (
            "docker_image_digest",
            lambda: "sha256:" + hx(64),
            [
                "image: registry.sunsettravel.vn/booking-api@{v}",
                "Digest của bản build ổn định: {v}",
                "docker pull ghcr.io/nusatrip/guide-api@{v}",
            ],
        ),
        (
            "ssh_public_key",
            lambda: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + b64(43),
            [
                "Thêm public key này vào authorized_keys của bastion: {v} hung@laptop",
                "{v} deploy@ci-runner",
                "Public key pemandu IT Bali: {v}",
            ],
        ),
        (
            "cert_fingerprint",
            lambda: colon_hex(32),
            [
                "SHA-256 fingerprint chứng chỉ api.sunsettravel.vn: {v}",
                "Pin this cert fingerprint in the guide app: {v}",
                "Fingerprint sertifikat callback Xendit: {v}",
            ],
        ),
        (
            "pem_certificate",
            None,
            [
                "Chứng chỉ public của VNPay để verify (không phải private key):\n{v}",
                "Partner DMC's public TLS cert, for mTLS allow-list:\n{v}",
                "ใบรับรองสาธารณะของ 2C2P สำหรับตรวจลายเซ็น callback:\n{v}",
            ],
        ),
        (
            "request_uuid",
            lambda: "%s-%s-4%s-%s%s-%s" % (hx(8), hx(4), hx(3), R.choice("89ab"), hx(3), hx(12)),
            [
                "X-Request-Id: {v}",
                "Hotelbeds trả lỗi 500, requestId {v}",
                "Amadeus correlation id {v} — gửi cho support",
                "idempotency_key={v}",
            ],
        ),
        (
            "invoice_number",
            seq("INV-2026-004871", "HD/2026/SGN/00912", "INV/BALI/2026/XI/0331", "IV6911-00427"),
            [
                "Hoá đơn {v} đã gửi cho khách đoàn MICE",
                "Invoice {v} overdue, remind the agent in Singapore",
                "Invoice Xendit {v} status PAID",
                "ใบแจ้งหนี้ {v} ชำระแล้ว",
            ],
        ),
        (
            "tax_id",
            seq("0312456789", "01.234.567.8-901.000", "0105559012345"),
            [
                "Mã số thuế công ty: {v}",
                "NPWP PT Nusa Trip Indonesia: {v}",
                "เลขประจำตัวผู้เสียภาษี บริษัท สยามทริปส์ จำกัด: {v}",
            ],
        ),
        (
            "tourism_license_number",
            seq("79-1234/2024/TCDL-GP LHQT", "11/09876", "NIB 9120304561782"),
            [
                "Giấy phép lữ hành quốc tế số {v}",
                "TAT licence no. {v} must appear on every Thai quotation",
                "Izin usaha biro perjalanan: {v}",
            ],
        ),
        (
            "bank_account_number",
            seq("0071001234567", "8730245516", "123-4-56789-0"),
            [
                "STK nhận cọc tour: Vietcombank {v} - CONG TY TNHH SUNSET TRAVEL",
                "Transfer deposit ke BCA {v} a.n. PT Nusa Trip Indonesia",
                "บัญชีกสิกรไทย {v} ชื่อบัญชี บจก. สยามทริปส์",
            ],
        ),
        (
            "device_serial_number",
            seq("R58T30ABC1X", "SN: 2231QK7PZ9", "FGT60FTK22041234", "DMPXK2LLJF8K"),
            [
                "Tablet hướng dẫn viên #07 serial {v}",
                "Label on guide radio #3: {v}",
                "FortiGate serial {v} — contract hết hạn 03/2027",
                "iPad sales counter BKK serial {v}",
            ],
        ),
        (
            "mac_address",
            lambda: ":".join(hx(2) for _ in range(6)),
            [
                "MAC máy in quầy vé: {v} (đặt IP tĩnh)",
                "DHCP reservation for the GDS terminal PC: {v}",
                "MAC tablet pemandu yang hilang: {v}",
            ],
        ),
        (
            "ip_address",
            seq("10.20.1.15", "203.0.113.24", "192.168.88.0/24", "198.51.100.77"),
            [
                "Server CRM nội bộ: {v}",
                "Whitelist IP for VNPay IPN callback: {v}",
                "Subnet kantor Jakarta {v}",
                "IP tĩnh văn phòng Hà Nội {v}",
            ],
        ),
        (
            "wifi_ssid",
            seq("SunsetTravel-Staff", "NusaTrip-Guest", "SiamTrips_5G", "NusaTrip-Tamu"),
            [
                "SSID cho nhân viên: {v} (mật khẩu hỏi IT)",
                "Guests use {v}; captive portal, no key",
                "ชื่อ Wi-Fi ออฟฟิศ: {v}",
                "SSID tamu: {v}, tanpa sandi",
            ],
        ),
        (
            "build_version",
            seq("3.4.1+build.218", "v2026.11.3", "1.18.0-rc.2", "4.0.2 (build 5127)"),
            [
                "App hướng dẫn viên bản {v} đã lên Play Store",
                "booking-engine {v} deployed to prod",
                "Versi aplikasi kasir {v}",
                "เวอร์ชันแอปไกด์ {v}",
            ],
        ),
        (
            "revoked_key",
            seq("sk_live_51Nq2Z" + b62(20), "xnd_production_" + b62(32), "glpat-" + b64u(20)),
            [
                "Key {v} đã bị revoke ngày 02/11 sau khi lộ trên GitHub, không dùng nữa",
                "REVOKED (rotated 2026-10-14, dead): {v}",
                "Token {v} sudah dicabut, sekarang pakai yang di vault",
            ],
        ),
        (
            "password_policy",
            seq(
                "min 12 ký tự, có chữ hoa, số và ký tự đặc biệt",
                "Passwords rotate every 90 days; no reuse of the last 5",
                "Sandi minimal 10 karakter dan wajib 2FA",
            ),
            [
                "Chính sách mật khẩu GDS: {v}",
                "IT policy: {v}.",
                "Kebijakan: {v}",
            ],
        ),
        (
            "flight_number",
            seq("VN213", "TG 564", "QZ7510", "FD3012"),
            [
                "Đoàn bay {v} lúc 06:00, hướng dẫn viên đón tại ga quốc nội",
                "Pickup for {v} arriving BKK 14:35",
                "Penerbangan {v} delay 2 jam",
                "เที่ยวบิน {v} ดีเลย์ 40 นาที",
            ],
        ),
        (
            "ota_property_id",
            seq("5521873", "4412907", "hotel_id=1000234567"),
            [
                "Agoda hotel ID của resort Phú Quốc: {v}",
                "Booking.com property {v} mapped to room codes DLX/SUP",
                "Traveloka {v} (villa Ubud)",
            ],
        ),
        (
            "payment_merchant_id",
            seq("TRVLSG01", "764764000012345", "MOMOTVL20240101", "2553"),
            [
                "vnp_TmnCode={v}",
                "2C2P merchant ID {v} (THB)",
                "partnerCode MoMo: {v}",
                "ZaloPay app_id = {v}",
            ],
        ),
        (
            "promo_code",
            seq("HALONG2026", "SONGKRAN15", "BALIHEMAT", "EARLYBIRD26"),
            [
                "Mã giảm giá trên website: {v} giảm 10% tour Hạ Long",
                "โค้ดส่วนลดสงกรานต์ {v} ลด 15%",
                "Kode promo publik {v} untuk paket Bali",
                "Promo code {v} is printed on the flyers, fine to share",
            ],
        ),
        (
            "ticket_reference",
            seq("OPS-1742", "BOOK-388", "#INC-20261102-07", "IT-2291"),
            [
                "Xem ticket {v} về lỗi đồng bộ giá SiteMinder",
                "Tracked in {v}: Amadeus timeout on fare search",
                "Insiden {v} sudah ditutup",
                "ตั๋วแจ้งปัญหา {v} รอ vendor ตอบ",
            ],
        ),
        (
            "ga_measurement_id",
            seq("G-7KQ2XR9PLM", "G-H3D8ZN1T4B", "G-QW41MZ8C2R"),
            [
                "GA4 measurement ID site tour: {v}",
                "gtag('config', '{v}');",
                "Measurement ID GA4 untuk situs paket Bali: {v}",
            ],
        ),
        (
            "meta_pixel_id",
            seq("1187342065523981", "904215667318254", "771830264419025"),
            [
                "Meta Pixel ID trang landing Đà Lạt: {v}",
                "fbq('init', '{v}');",
                "Pixel ID โฆษณาทัวร์ญี่ปุ่น: {v}",
            ],
        ),
        (
            "slack_channel_id",
            seq("C05K7QH2LMN", "C04TB8Z1VQX", "C06M2PZ9R4K"),
            [
                "Post alerts to channel {v} (#booking-fail)",
                "SLACK_CHANNEL_ID={v}",
                "ID kênh Slack #guides-hcm: {v}",
            ],
        ),
        (
            "ci_secret_reference",
            seq(
                "${{ secrets.XENDIT_SECRET_KEY }}",
                "${{ secrets.DOCKERHUB_TOKEN }}",
                "$CI_JOB_TOKEN",
            ),
            [
                "env:\n  XENDIT_SECRET_KEY: {v}",
                "run: echo {v} | docker login -u sunsetops --password-stdin",
                "git clone https://gitlab-ci-token:{v}@gitlab.com/nusatrip/itinerary-builder.git",
            ],
        ),
        (
            "k8s_secret_reference",
            seq("booking-api-secrets", "line-oa-credentials", "vnpay-credentials"),
            [
                "valueFrom:\n  secretKeyRef:\n    name: {v}\n    key: VNPAY_HASH_SECRET",
                "kubectl -n prod describe secret {v}",
                "Secret VNPay nằm trong k8s secret {v} (namespace prod), không in ra log",
            ],
        ),
        (
            "test_card_number",
            seq("4111 1111 1111 1111", "4242424242424242", "5555555555554444"),
            [
                "Thẻ test sandbox VNPay/Stripe: {v}, CVV bất kỳ",
                "Omise test card {v} (docs), exp 12/30",
                "Kartu uji sandbox: {v}",
            ],
        ),
        (
            "device_imei",
            seq("356938035643809", "353012110294731", "359881204471625"),
            [
                "IMEI điện thoại HDV bị mất: {v}, đã báo nhà mạng",
                "IMEI HP pemandu #12: {v}",
                "IMEI เครื่องไกด์ที่ส่งซ่อม: {v}",
            ],
        ),
        (
            "package_integrity_hash",
            lambda: "sha512-" + b64(86) + "==",
            [
                '"integrity": "{v}"',
                "lockfile integrity for @sunset/ui-kit: {v}",
                "integrity của gói line-bot-sdk trong package-lock: {v}",
            ],
        ),
        (
            "pgp_fingerprint",
            seq(
                "4A1F 9C2E 7B3D 55E0 81AC  2F6D 0E9B 7C31 A4D2 6F88",
                "9E31B7A20C4D58F6E1A3276B0D9C4E5F12A7B8C3",
                "0x7C31A4D26F88B0E1",
            ),
            [
                "PGP fingerprint của kế toán để gửi file lương: {v}",
                "Verify the DMC's public key fingerprint: {v}",
                "Sidik jari kunci publik PGP tim finance: {v}",
            ],
        ),
        (
            "tour_code",
            seq("VN-HLB-3D2N", "TH-CNX-4D3N-GOLD", "ID-BALI-5D4N"),
            [
                "Tour {v} còn 4 chỗ ngày 12/01",
                "รหัสทัวร์ {v} เต็มแล้ว",
                "Paket {v} harga naik mulai Januari",
            ],
        ),
        (
            "vehicle_plate",
            seq("51B-123.45", "DK 1847 AB", "1กข 4471"),
            [
                "Xe 29 chỗ đón đoàn: biển số {v}",
                "Bus pariwisata nomor polisi {v}",
                "รถตู้ทะเบียน {v} รับที่สนามบิน",
            ],
        ),
        (
            "twilio_account_sid",
            lambda: "AC" + hx(32),
            [
                "TWILIO_ACCOUNT_SID={v}",
                "Twilio account SID (not a secret on its own): {v}",
                "Account SID Twilio (chỉ là ID tài khoản): {v}",
            ],
        ),
        (
            "ota_booking_id",
            seq("1284937712", "BK-88231904", "872019334", "1291046658"),
            [
                "Agoda booking ID {v} — khách xin đổi ngày",
                "Booking.com reservation {v} marked no-show",
                "Traveloka itinerary ID {v}",
                "Mã đặt phòng Agoda {v} đã hoàn tiền",
            ],
        ),
        (
            "zalo_oa_id",
            seq("4318207745120984321", "1290437716628805142", "2987710435561029837"),
            [
                "Zalo OA ID của Sunset Travel: {v}",
                "ZALO_OA_ID={v}",
                "OA ID Zalo chi nhánh Hà Nội: {v}",
            ],
        ),
        (
            "unix_timestamp",
            seq("1794556800", "1796011200", "1797638400"),
            [
                "vnp_CreateDate tương ứng epoch {v}",
                "Token expires_at={v} (epoch seconds)",
                "Waktu check-in dalam epoch: {v}",
            ],
        ),
    ]

    SPECIAL = {
        "gcp_service_account_private_key": lambda i: pem_private_key(escaped=(i == 0 or i == 1)),
        "ssh_private_key": lambda i: openssh_key(),
        "pem_certificate": lambda i: pem_cert(),
    }
    return SECRET, BENIGN, SPECIAL


def corpus() -> list[dict]:
    R.seed(SEED)
    SECRET, BENIGN, SPECIAL = _tables()
    rows = []
    for label, table in (("secret", SECRET), ("benign", BENIGN)):
        for kind, gen, templates in table:
            for i, tpl in enumerate(templates):
                value = SPECIAL[kind](i) if gen is None else gen()
                text = tpl.replace("{v}", value)
                assert value in text, (kind, tpl)
                rows.append({"label": label, "kind": kind, "text": text, "value": value})
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

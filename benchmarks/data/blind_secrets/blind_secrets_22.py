"""Blind secrets corpus 22: non-engineers writing into a team memory through an agent.

Brief: operations, finance, HR, sales, customer support and office managers write
memories through an agent. Secrets are shared logins for SaaS tools (banking portals,
payroll, CRM, design tools, social media accounts, domain registrars), door and alarm
codes, Wi-Fi, voicemail PINs and API keys pasted from vendor emails, in plain prose and
messy formatting. Look-alikes are order and invoice numbers, IBANs and account numbers
that grant no access, tracking numbers, coupon codes, ticket ids, masked card numbers,
references to the password manager, public ids and placeholders.

Written blind on 2026-12-06: the author did not read the detector, its tests or any
earlier corpus.

Run: python blind_secrets_22.py [out.jsonl]   (JSONL to the path, or stdout)

Kinds, grouped as secret / benign:

secret (67):
    airtable_pat, alarm_disarm_code, alarm_verbal_passphrase, asana_pat,
    aws_access_key_pair, aws_secret_access_key, bamboohr_api_key, bank_portal_password,
    browser_session_cookie, calendly_pat, company_card_pin, copier_admin_password,
    credentials_in_url, crm_shared_password, design_tool_password,
    domain_registrar_password, domain_transfer_auth_code, door_code,
    dropbox_access_token, facebook_page_access_token, facebook_page_password,
    github_pat, google_server_api_key, guest_wifi_password, hr_system_password,
    hubspot_private_app_token, instagram_password, jira_atlassian_api_token,
    klaviyo_private_key, magic_login_link, mailchimp_api_key, mailgun_api_key,
    mobile_carrier_port_pin, new_hire_temp_password, notion_integration_token,
    online_banking_pin, openai_api_key, password_manager_master_password,
    password_manager_secret_key, password_reset_link, paypal_client_secret,
    payroll_login, pipedrive_api_token, postmark_server_token, quickbooks_client_secret,
    router_admin_password, safe_combination, salesforce_security_token,
    security_question_answer, sendgrid_api_key, shared_google_admin_password,
    shipping_api_secret, shopify_admin_token, slack_bot_token, slack_webhook_url,
    square_access_token, stripe_restricted_key, stripe_secret_key,
    stripe_webhook_secret, totp_seed, twilio_auth_token, two_factor_backup_codes,
    voicemail_pin, wifi_password, x_twitter_password, zendesk_api_token, zoom_host_key
benign (74):
    air_waybill, alarm_zone_numbers, app_bundle_id, aws_account_id, badge_number,
    bank_account_number, bank_reference, brand_color_key, check_number,
    commit_hash_from_vendor, coupon_code, device_serial_number, dkim_public_record,
    domain_verification_txt, door_code_reference, duns_number, employee_id,
    fedex_tracking, file_checksum, forgot_password_support, ga4_measurement_id,
    google_ads_customer_id, hubspot_portal_id, iban_de, iban_uk,
    insurance_policy_number, invoice_number, lot_number, mac_address,
    mailchimp_audience_id, mapbox_public_token, masked_card_number, meta_business_id,
    meta_pixel_id, order_number, other_sense_key, other_sense_secret, other_sense_token,
    password_manager_reference, password_policy_talk, password_rotation_note,
    paypal_transaction_id, pgp_fingerprint, phone_extensions, placeholder_credential,
    product_sku, purchase_order, recaptcha_site_key, redacted_key, revoked_stated_dead,
    rma_number, routing_number, sales_order_number, slack_channel_id,
    square_location_id, ssh_public_key, stripe_customer_id, stripe_payment_intent_id,
    stripe_payout_id, stripe_publishable_key, support_request_uuid, support_ticket_id,
    swift_bic, twilio_account_sid, two_factor_no_code, uk_sort_code_account,
    ups_tracking, usps_tracking, utm_string, vat_number, vendor_case_number,
    wifi_ssid_only, wire_imad, zoom_meeting_id
"""

from __future__ import annotations

import json
import random
import string
import sys

# ruff: noqa: E501  (corpus texts are long string literals)

SEED = 522022


def corpus() -> list[dict]:
    rng = random.Random(SEED)
    low, up, dig = string.ascii_lowercase, string.ascii_uppercase, string.digits
    aln = low + up + dig

    def pick(chars: str, n: int) -> str:
        return "".join(rng.choice(chars) for _ in range(n))

    def hexs(n: int) -> str:
        return pick("0123456789abcdef", n)

    def num(n: int) -> str:
        return str(rng.randint(1, 9)) + pick(dig, n - 1)

    def human_pw() -> str:
        words = [
            "Harbor",
            "Maple",
            "Sunflower",
            "Tiger",
            "Falcon",
            "Walnut",
            "Pebble",
            "Orchid",
            "Copper",
            "Juniper",
            "Lantern",
            "Meadow",
            "Rocket",
            "Velvet",
            "Cobalt",
            "Biscuit",
            "Saffron",
            "Glacier",
            "Thistle",
            "Puffin",
        ]
        w = rng.choice(words) + rng.choice(["", rng.choice(words).lower()])
        return w + num(rng.choice([2, 3, 4])) + rng.choice("!#$%&*?@")

    def strong_pw() -> str:
        s = pick(aln, rng.randint(12, 16)) + rng.choice("!#%&*^~") + pick(aln, 3)
        return s

    def uuid() -> str:
        return f"{hexs(8)}-{hexs(4)}-4{hexs(3)}-{rng.choice('89ab')}{hexs(3)}-{hexs(12)}"

    g = {
        "hpw": human_pw,
        "spw": strong_pw,
        "pin4": lambda: pick(dig, 4),
        "pin6": lambda: pick(dig, 6),
        "door": lambda: pick(dig, rng.choice([4, 5, 6])) + rng.choice(["#", "*", ""]),
        "wifi": lambda: (
            rng.choice(["Coffee", "Blue", "Office", "Lemon", "Quiet"])
            + rng.choice(["Beans", "Door", "Fern", "Otter", "Kite"])
            + num(4)
        ),
        "sf_token": lambda: pick(aln, 25),
        "epp": lambda: pick(aln + "#!$", 16),
        "sk_live": lambda: "sk_live_" + pick(aln, 99),
        "rk_live": lambda: "rk_live_" + pick(aln, 99),
        "whsec": lambda: "whsec_" + pick(aln, 32),
        "sendgrid": lambda: "SG." + pick(aln + "-_", 22) + "." + pick(aln + "-_", 43),
        "mailchimp": lambda: hexs(32) + "-us" + str(rng.randint(2, 21)),
        "twilio_tok": lambda: hexs(32),
        "xoxb": lambda: f"xoxb-{num(12)}-{num(13)}-{pick(aln, 24)}",
        "slack_hook": lambda: (
            "https://hooks.slack.com/services/T"
            + pick(up + dig, 10)
            + "/B"
            + pick(up + dig, 10)
            + "/"
            + pick(aln, 24)
        ),
        "hubspot": lambda: "pat-na1-" + uuid(),
        "shpat": lambda: "shpat_" + hexs(32),
        "ghp": lambda: "ghp_" + pick(aln, 36),
        "aiza": lambda: "AIza" + pick(aln + "-_", 35),
        "aws_secret": lambda: pick(aln + "/+", 40),
        "openai": lambda: "sk-proj-" + pick(aln + "-_", 48) + "T3BlbkFJ" + pick(aln + "-_", 48),
        "zendesk": lambda: pick(aln, 40),
        "backup_codes": lambda: " ".join(
            f"{pick(dig, 4)}-{pick(dig, 4)}" for _ in range(rng.choice([3, 4, 5]))
        ),
        "totp": lambda: " ".join(pick(low + "234567", 4) for _ in range(8)),
        "zoom_host": lambda: pick(dig, 6),
        "bamboo": lambda: hexs(40),
        "mailgun": lambda: "key-" + hexs(32),
        "postmark": lambda: uuid(),
        "fb_page": lambda: "EAAG" + pick(aln, 150),
        "paypal_secret": lambda: "E" + pick(aln + "-_", 79),
        "square": lambda: "EAAA" + pick(aln + "-_", 60),
        "notion": lambda: "ntn_" + pick(dig, 11) + pick(aln, 35),
        "airtable": lambda: "pat" + pick(aln, 14) + "." + hexs(64),
        "klaviyo": lambda: "pk_" + hexs(34),
        "op_secret_key": lambda: "A3-" + "-".join(pick(up + dig, k) for k in (6, 6, 5, 5, 5, 5)),
        "qbo_secret": lambda: pick(aln, 40),
        "reset_link": lambda: (
            "https://app.gusto.com/accounts/password/edit?reset_password_token="
            + pick(aln + "-_", 20)
        ),
        "magic_link": lambda: "https://app.bill.com/login/magic?t=" + pick(aln + "-_", 43),
        "basic_url": lambda: "ftp://webvendor:" + pick(aln, 14) + "@ftp.bluepinedesign.co",
        "answer": lambda: (
            rng.choice(["Biscuit", "Lisbon", "Greenwood", "Mrs Halloran", "Corolla"]) + num(2)
        ),
        "carrier_pin": lambda: pick(dig, rng.choice([6, 8])),
        "cookie": lambda: "sess=" + pick(aln + "%-_", 120),
        "combo": lambda: f"{rng.randint(10, 39)}-{rng.randint(10, 39)}-{rng.randint(10, 39)}",
        "atl_token": lambda: "ATATT3xFfGF0" + pick(aln + "-_", 180) + "=" + hexs(8).upper(),
        "dropbox": lambda: "sl." + pick(aln + "-_", 136),
        "ups_secret": lambda: pick(aln, 64),
        "asana": lambda: "2/" + num(16) + "/" + num(16) + ":" + hexs(32),
        "pipedrive": lambda: hexs(40),
        "calendly": lambda: (
            "eyJraWQiOiIxY2UxZTEzNjE3ZGNmNzY2YjNjZWJjY2Y4ZGM1YmFmYThhNjVlNjg0MDIzZjdjMzJiZTgzNDliMjM4MDEzNWI0IiwidHlwIjoiUEFUIiwiYWxnIjoiRVMyNTYifQ."
            + pick(aln + "-_", 120)
            + "."
            + pick(aln + "-_", 86)
        ),
        "temp_pw": lambda: (
            rng.choice(["Welcome", "Start", "Hello", "Newhire"])
            + str(rng.randint(2025, 2027))
            + rng.choice("!#?")
            + pick(up, 2)
        ),
        "cardpin": lambda: pick(dig, 4),
    }
    g.update(
        {
            "order": lambda: "#" + num(5),
            "inv": lambda: "INV-" + str(rng.randint(2024, 2026)) + "-" + pick(dig, 5),
            "iban": lambda: (
                "GB"
                + pick(dig, 2)
                + " BARC "
                + " ".join(pick(dig, 4) for _ in range(3))
                + " "
                + pick(dig, 2)
            ),
            "iban_de": lambda: "DE" + pick(dig, 20),
            "acct": lambda: pick(dig, rng.choice([9, 10, 12])),
            "ups": lambda: "1Z" + pick(up + dig, 16),
            "fedex": lambda: num(12),
            "usps": lambda: "9400" + pick(dig, 18),
            "coupon": lambda: (
                rng.choice(["SPRING", "WELCOME", "VIP", "FRIENDS", "BFCM"]) + pick(up + dig, 6)
            ),
            "ticket": lambda: num(6),
            "masked": lambda: "**** **** **** " + pick(dig, 4),
            "pk_live": lambda: "pk_live_" + pick(aln, 99),
            "ga4": lambda: "G-" + pick(up + dig, 10),
            "pixel": lambda: num(15),
            "recaptcha": lambda: "6L" + pick(aln + "-_", 38),
            "hs_portal": lambda: num(8),
            "mc_list": lambda: hexs(10),
            "swift": lambda: rng.choice(
                ["BARCGB22", "CHASUS33", "DEUTDEFF", "BOFAUS3N", "NWBKGB2L"]
            ),
            "vat": lambda: "GB" + pick(dig, 9),
            "po": lambda: "PO-" + pick(dig, 6),
            "sha256": lambda: hexs(64),
            "sha1": lambda: hexs(40),
            "uuid": uuid,
            "twilio_sid": lambda: "AC" + hexs(32),
            "aws_acct": lambda: pick(dig, 4) + "-" + pick(dig, 4) + "-" + pick(dig, 4),
            "slack_id": lambda: "C0" + pick(up + dig, 9),
            "cus": lambda: "cus_" + pick(aln, 14),
            "pi": lambda: "pi_3" + pick(aln, 23),
            "po_stripe": lambda: "po_1" + pick(aln, 23),
            "zoom_id": lambda: f"{num(3)} {pick(dig, 4)} {pick(dig, 4)}",
            "emp": lambda: "E" + pick(dig, 5),
            "sku": lambda: "TP-" + pick(up, 3) + "-" + pick(dig, 3),
            "gsv": lambda: "google-site-verification=" + pick(aln + "-_", 43),
            "dkim": lambda: (
                "v=DKIM1; k=rsa; p=MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQ"
                + pick(aln + "+/", 150)
                + "IDAQAB"
            ),
            "ssh_pub": lambda: (
                "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + pick(aln + "+/", 43) + " it@fernhill"
            ),
            "pgp_fp": lambda: " ".join(pick("0123456789ABCDEF", 4) for _ in range(10)),
            "gads": lambda: f"{pick(dig, 3)}-{pick(dig, 3)}-{pick(dig, 4)}",
            "duns": lambda: pick(dig, 9),
            "sq_loc": lambda: "L" + pick(up + dig, 12),
            "pp_txn": lambda: pick(up + dig, 17),
            "imad": lambda: "2026" + pick(dig, 4) + "QMGFT" + pick(dig, 3) + pick(dig, 6),
            "policy": lambda: pick(up, 3) + "-" + pick(dig, 7),
            "case": lambda: "CS" + pick(dig, 8),
            "rma": lambda: "RMA" + pick(dig, 7),
            "serial": lambda: pick(up + dig, 10),
            "mac": lambda: ":".join(hexs(2).upper() for _ in range(6)),
            "mapbox_pk": lambda: (
                "pk.eyJ1Ijoib3JjaGFyZGxhbmUiLCJhIjoi"
                + pick(aln, 22)
                + "In0."
                + pick(aln + "-_", 22)
            ),
            "redacted_sk": lambda: "sk_live_" + "*" * 20 + pick(aln, 4),
            "placeholder": lambda: rng.choice(
                [
                    "<YOUR_API_KEY>",
                    "YOUR_PASSWORD_HERE",
                    "xxxxxxxx",
                    "{{api_key}}",
                    "changeme-placeholder",
                ]
            ),
            "routing": lambda: rng.choice(["021000021", "026009593", "121000248", "011401533"]),
            "sortcode": lambda: f"{pick(dig, 2)}-{pick(dig, 2)}-{pick(dig, 2)}",
            "check": lambda: num(4),
            "utm": lambda: (
                "utm_source=newsletter&utm_medium=email&utm_campaign="
                + pick(low, 6)
                + "_"
                + pick(dig, 4)
            ),
            "bundle": lambda: "com.tidepool." + pick(low, 6),
            "badge": lambda: pick(dig, 5),
            "meta_biz": lambda: num(16),
            "pnr_inv": lambda: "SO-" + pick(dig, 7),
            "awb": lambda: f"{pick(dig, 3)}-{pick(dig, 8)}",
            "cheque_ref": lambda: "REF" + pick(up + dig, 12),
            "qr_wifi_ssid": lambda: "Fernhill-" + pick(up, 2) + pick(dig, 2),
            "hexcolor": lambda: "#" + hexs(6).upper(),
            "lot": lambda: "LOT" + pick(dig, 6) + pick(up, 1),
        }
    )
    g["ghp_dead"] = lambda: "ghp_" + pick(aln, 36)

    secret_specs = [
        (
            "bank_portal_password",
            "hpw",
            [
                "Chase business online banking: user ops.finance@northwind-co.com / pw {v} — Dana has the token fob",
                "note from Lucy (finance): the Mercury login for the shared AP inbox is ap@fernhill.io, password is {v}, don't change it without telling me",
                "Bank of the West portal\nUser ID: FERNHILL_AP2\nPassword: {v}\nsecurity image is the lighthouse",
            ],
        ),
        (
            "payroll_login",
            "spw",
            [
                "Gusto admin (payroll runs Thursdays) - login hr@lumenpark.com pass {v}",
                "ADP Workforce Now shared HR login -> hradmin.lumen / {v} (Ana changes it every quarter, last change Oct)",
                "remember for next payroll: Paychex Flex user LMP-HR01, pwd: {v}",
            ],
        ),
        (
            "crm_shared_password",
            "hpw",
            [
                "Salesforce shared SDR seat: sdr-team@brightloom.com / {v}",
                "HubSpot login that the interns use is interns@brightloom.com and the password is {v}",
                "Pipedrive -> sales@brightloom.com  pw={v}  (2FA off for now, sorry IT)",
            ],
        ),
        (
            "salesforce_security_token",
            "sf_token",
            [
                "For the Salesforce data loader you need password + security token. Token (emailed to sdr-team today): {v}",
                "SF security token reset 12/03, new one is {v} -- append it to the password in Dataloader",
                "security token for salesforce integration user: {v}",
            ],
        ),
        (
            "design_tool_password",
            "hpw",
            [
                "Canva Teams brand account: design@orchardlane.co, password {v}",
                "Figma shared seat (marketing) - marketing@orchardlane.co / {v}",
                "Adobe CC license login is creative@orchardlane.co — pw is {v} — only 2 devices at a time!!",
            ],
        ),
        (
            "instagram_password",
            "hpw",
            [
                "IG @orchardlane.bakes login: orchardlane.bakes / {v}",
                "Instagram for the shop -- username tidepoolgoods password {v}. Priya posts Mon/Wed.",
                "new insta pw after the hack scare: {v}",
            ],
        ),
        (
            "x_twitter_password",
            "spw",
            [
                "X (twitter) @TidepoolGoods -> email social@tidepool.shop, pw {v}",
                "twitter acct password changed to {v} by Marco on Tue",
                "Social logins\n- X: social@tidepool.shop : {v}\n- Threads: via IG",
            ],
        ),
        (
            "facebook_page_password",
            "hpw",
            [
                "Facebook login for the page admin account (the shared one): fb@tidepool.shop / {v}",
                "FB business manager admin pw is {v}, 2fa codes go to the office phone",
                "Meta business suite – user marketing@lumenpark.com, password: {v}",
            ],
        ),
        (
            "domain_registrar_password",
            "spw",
            [
                "GoDaddy account #4471920 login: it@fernhill.io password {v} (domains: fernhill.io, fernhill.shop)",
                "Namecheap — username fernhillops, pw {v}, domains auto renew in March",
                "registrar is Gandi. login ops-fernhill / {v}",
            ],
        ),
        (
            "domain_transfer_auth_code",
            "epp",
            [
                "EPP/auth code for moving brightloom.com off GoDaddy: {v} (valid until transfer completes)",
                "transfer code from Namecheap for orchardlane.co is {v} — give it to Cloudflare registrar",
                "Auth-Code (domain transfer) tidepool.shop = {v}",
            ],
        ),
        (
            "door_code",
            "door",
            [
                "Front door keypad code for the Elm St office: {v}",
                "new side entrance code is {v} starting Monday, old one stops working",
                "Code de la porte (quai de chargement) : {v} – ne le donner au livreur que si quelqu'un est là",
            ],
        ),
        (
            "alarm_disarm_code",
            "pin4",
            [
                "Alarm panel by the back door: disarm code {v} then press OFF. 30 seconds to do it.",
                "ADT system — master user code {v}; if it goes off call them and give the passphrase",
                "If you're first in: alarm code is {v}",
            ],
        ),
        (
            "alarm_verbal_passphrase",
            "answer",
            [
                "Monitoring company passphrase (they ask for it when the alarm trips): {v}",
                "ADT verbal password = {v} (don't say the wrong one or they send police)",
                "security co. will ask 'what is your password' - answer is {v}",
            ],
        ),
        (
            "wifi_password",
            "wifi",
            [
                "Office wifi: network ElmSt-Staff, password {v}",
                "WiFi for staff (not guests!) SSID: Fernhill-5G / pw: {v}",
                "Contraseña del wifi de la oficina (red Fernhill-5G): {v}",
            ],
        ),
        (
            "guest_wifi_password",
            "wifi",
            [
                "guest wifi for visitors: Fernhill-Guest, password {v}. changes every month",
                "Event day wifi (Guest network) -> {v}",
                "For the client workshop Thursday, the guest Wi-Fi key is {v}",
            ],
        ),
        (
            "voicemail_pin",
            "pin6",
            [
                "Main line voicemail PIN: {v} (dial *86 from the front desk phone)",
                "sales hotline vm - ext 4410 - pin {v}",
                "RingCentral voicemail for the support queue, PIN is {v}",
            ],
        ),
        (
            "stripe_secret_key",
            "sk_live",
            [
                "Stripe emailed the live secret key for the new shop, pasting so the agency can set it up: {v}",
                "Stripe key for the website (from Jonah): {v}",
                "live secret key -> {v}\npublishable one is in the website settings already",
            ],
        ),
        (
            "stripe_restricted_key",
            "rk_live",
            [
                "restricted Stripe key for the bookkeeping tool (read-only on payouts): {v}",
                "Xero <> Stripe connector needs this restricted key: {v}",
                "Stripe RK for Baremetrics: {v}",
            ],
        ),
        (
            "stripe_webhook_secret",
            "whsec",
            [
                "The web agency asked for the Stripe webhook signing secret: {v}",
                "webhook secret (Stripe dashboard > webhooks > reveal): {v}",
                "signing secret for the order webhook = {v}",
            ],
        ),
        (
            "sendgrid_api_key",
            "sendgrid",
            [
                "SendGrid API key for the newsletter form (from vendor email): {v}",
                "Our email vendor said to put this key in the website plugin: {v}",
                "sendgrid key -> {v} (full access, Ken made it)",
            ],
        ),
        (
            "mailchimp_api_key",
            "mailchimp",
            [
                "Mailchimp API key for the Shopify sync: {v}",
                "mailchimp key that the freelancer uses: {v} — revoke when contract ends in Jan",
                "MC api key = {v}",
            ],
        ),
        (
            "twilio_auth_token",
            "twilio_tok",
            [
                "Twilio (SMS reminders): Account SID AC" + "{sid}" + " auth token {v}",
                "twilio auth token from the vendor email: {v}",
                "SMS provider creds for the booking app – token {v}",
            ],
        ),
        (
            "slack_bot_token",
            "xoxb",
            [
                "Slack bot token for the standup reminder bot: {v}",
                "the IT guy said keep this safe, it's the Slack token for the HR bot: {v}",
                "slack app token ({v}) goes in Zapier",
            ],
        ),
        (
            "slack_webhook_url",
            "slack_hook",
            [
                "Webhook to post new orders into #sales: {v}",
                "incoming webhook for the #support-alerts channel -> {v}",
                "Zapier step 3 posts to {v}",
            ],
        ),
        (
            "hubspot_private_app_token",
            "hubspot",
            [
                "HubSpot private app token for the website forms integration: {v}",
                "Access token (HubSpot > Private apps > Website sync): {v}",
                "hubspot token the agency needs: {v}",
            ],
        ),
        (
            "shopify_admin_token",
            "shpat",
            [
                "Shopify custom app admin API access token (shown only once!): {v}",
                "Shopify admin token for the inventory spreadsheet script: {v}",
                "token for tidepool-goods.myshopify.com: {v}",
            ],
        ),
        (
            "github_pat",
            "ghp",
            [
                "The website contractor gave me this GitHub token so I can update the blog posts: {v}",
                "GitHub token (for the docs site, marketing): {v}",
                "github personal token - {v} - expires in 90 days",
            ],
        ),
        (
            "google_server_api_key",
            "aiza",
            [
                "Google Places API key for the store locator (server key, not restricted yet): {v}",
                "API key from Google Cloud that the agency set up: {v}",
                "Gmaps key {v} — billing is on the company Amex",
            ],
        ),
        (
            "aws_access_key_pair",
            "aws_secret",
            [
                "S3 bucket for invoices archive: access key {akid} secret {v}",
                "AWS creds for the backup tool (from MSP email)\nAccess key ID: {akid}\nSecret access key: {v}",
                "aws keys for the photo bucket -> {akid} / {v}",
            ],
        ),
        (
            "aws_secret_access_key",
            "aws_secret",
            [
                "AWS secret access key for the invoice archive (the ID is in the sheet): {v}",
                "secret key for the backup user on AWS: {v}",
                "Wasabi/S3 secret (backup NAS): {v}",
            ],
        ),
        (
            "openai_api_key",
            "openai",
            [
                "OpenAI key for the support macro tool: {v}",
                "ChatGPT API key (company billing) -> {v}",
                "key for the FAQ bot from Nadia: {v}",
            ],
        ),
        (
            "zendesk_api_token",
            "zendesk",
            [
                "Zendesk API token (admin center > apps > API) for the reporting sheet: {v} user support@tidepool.shop/token",
                "zendesk token: {v}",
                "For Klaus QA integration: Zendesk token {v}",
            ],
        ),
        (
            "two_factor_backup_codes",
            "backup_codes",
            [
                "Backup codes for the shared Google admin account: {v}",
                "Gusto 2FA recovery codes (each works once): {v}",
                "if the office phone dies, the Mercury backup codes are {v}",
            ],
        ),
        (
            "totp_seed",
            "totp",
            [
                "2FA setup key for the shared Amazon Seller account (add to your authenticator): {v}",
                "authenticator secret for the ADP admin (so more than one person can get codes): {v}",
                "QR code didn't scan so here is the text key for the bank 2FA: {v}",
            ],
        ),
        (
            "online_banking_pin",
            "pin6",
            [
                "Telephone banking PIN for the business account: {v}",
                "Barclays business card reader PIN {v}",
                "bank phone line asks for the 6-digit security number: {v}",
            ],
        ),
        (
            "company_card_pin",
            "cardpin",
            [
                "Company fuel card PIN is {v} (card lives in the van glovebox)",
                "PIN for the petty cash debit card: {v}",
                "Brex physical card PIN (office supplies card, kept in the safe): {v}",
            ],
        ),
        (
            "safe_combination",
            "combo",
            [
                "Safe in the supply room: combination {v}",
                "cash safe combo {v} (right-left-right)",
                "Petty cash lockbox is {v}",
            ],
        ),
        (
            "router_admin_password",
            "spw",
            [
                "Router admin page 192.168.1.1 - user admin pw {v}",
                "Comcast business gateway login: cusadmin / {v}",
                "the network box in the closet -> admin / {v}",
            ],
        ),
        (
            "copier_admin_password",
            "pin6",
            [
                "Xerox copier admin (to add scan-to-email addresses): admin / {v}",
                "printer admin password: {v}",
                "Ricoh MFP machine admin code {v}",
            ],
        ),
        (
            "zoom_host_key",
            "zoom_host",
            [
                "Zoom host key for the all-hands account: {v}",
                "claim host on the board meeting room: host key {v}",
                "Host key (zoom) = {v}",
            ],
        ),
        (
            "shared_google_admin_password",
            "spw",
            [
                "Google Workspace super admin: admin@lumenpark.com / {v}",
                "the admin account for Gmail is itadmin@fernhill.io, password {v}",
                "GWS admin pw -> {v}",
            ],
        ),
        (
            "hr_system_password",
            "hpw",
            [
                "BambooHR admin login: people@brightloom.com / {v}",
                "Rippling shared HR login -> password {v}",
                "HiBob: hr@orchardlane.co pw {v}",
            ],
        ),
        (
            "bamboohr_api_key",
            "bamboo",
            [
                "BambooHR API key for the onboarding spreadsheet: {v}",
                "bamboo api key (generated under Ana's profile): {v}",
                "HR system key for the payroll sync: {v}",
            ],
        ),
        (
            "mailgun_api_key",
            "mailgun",
            [
                "Mailgun private API key for the contact form: {v}",
                "mailgun key -> {v}",
                "email sending key from the web guy: {v}",
            ],
        ),
        (
            "postmark_server_token",
            "postmark",
            [
                "Postmark server API token (transactional emails): {v}",
                "postmark token {v} for the receipts server",
                "Server token for Postmark: {v}",
            ],
        ),
        (
            "facebook_page_access_token",
            "fb_page",
            [
                "Page access token for the Tidepool FB page (for the scheduler tool): {v}",
                "meta token from the ads agency: {v}",
                "FB long-lived token: {v}",
            ],
        ),
        (
            "paypal_client_secret",
            "paypal_secret",
            [
                "PayPal REST app (live) client secret: {v}",
                "paypal secret for the checkout plugin -> {v}",
                "PayPal live creds, secret: {v}",
            ],
        ),
        (
            "square_access_token",
            "square",
            [
                "Square production access token for the POS sync: {v}",
                "square token (production) {v}",
                "Square developer dashboard > credentials > production access token: {v}",
            ],
        ),
        (
            "notion_integration_token",
            "notion",
            [
                "Notion internal integration secret for the HR wiki sync: {v}",
                "notion token: {v}",
                "Integration token for the ops Notion: {v}",
            ],
        ),
        (
            "airtable_pat",
            "airtable",
            [
                "Airtable personal access token for the inventory base: {v}",
                "airtable token for the Zap: {v}",
                "PAT (airtable) -> {v}",
            ],
        ),
        (
            "klaviyo_private_key",
            "klaviyo",
            [
                "Klaviyo PRIVATE API key for the review app: {v}",
                "klaviyo private key {v} (the public one is just the 6-letter site id)",
                "Klaviyo private key: {v}",
            ],
        ),
        (
            "password_manager_secret_key",
            "op_secret_key",
            [
                "1Password Secret Key for the ops account (from the Emergency Kit): {v}",
                "emergency kit secret key (needed with the master password on new devices): {v}",
                "Secret Key: {v} — account lumenpark.1password.com",
            ],
        ),
        (
            "password_manager_master_password",
            "hpw",
            [
                "Master password for the shared Bitwarden org owner account: {v}",
                "1Password master pw for ops@lumenpark.com is {v}",
                "LastPass master password (front desk account) -> {v}",
            ],
        ),
        (
            "quickbooks_client_secret",
            "qbo_secret",
            [
                "QuickBooks app client secret for the expense integration: {v}",
                "Intuit developer keys for production: client secret {v}",
                "QBO secret: {v}",
            ],
        ),
        (
            "password_reset_link",
            "reset_link",
            [
                "Reset link for the payroll admin (valid 24h, I haven't used it): {v}",
                "Gusto sent this reset link to hr@, whoever is free can set the new pw: {v}",
                "use this to reset: {v}",
            ],
        ),
        (
            "magic_login_link",
            "magic_link",
            [
                "Bill.com magic login link for Rosa (works once): {v}",
                "Login link from bill.com: {v}",
                "click to sign in to AP without the password -> {v}",
            ],
        ),
        (
            "credentials_in_url",
            "basic_url",
            [
                "Website files live at {v}",
                "the old web vendor's FTP: {v}",
                "FTP for uploading the product photos: {v}",
            ],
        ),
        (
            "security_question_answer",
            "answer",
            [
                "Bank security question 'first pet' answer for the business acct: {v}",
                "GoDaddy support PIN question answer: {v}",
                "Memorable word for the Lloyds online banking: {v}",
            ],
        ),
        (
            "mobile_carrier_port_pin",
            "carrier_pin",
            [
                "Verizon account PIN for the company lines (needed to port numbers): {v}",
                "T-Mobile transfer PIN for the sales phones: {v}",
                "carrier account passcode (AT&T business) {v}",
            ],
        ),
        (
            "browser_session_cookie",
            "cookie",
            [
                "Support agent pasted this from the Shopify admin devtools so the vendor could log in as us: {v}",
                "cookie from my browser for the supplier portal (stays logged in): {v}",
                "session cookie for the old CRM: {v}",
            ],
        ),
        (
            "jira_atlassian_api_token",
            "atl_token",
            [
                "Atlassian API token for the support ticket export: {v}",
                "Jira token under cs-lead@tidepool.shop: {v}",
                "Confluence API token for the HR handbook sync: {v}",
            ],
        ),
        (
            "dropbox_access_token",
            "dropbox",
            [
                "Dropbox access token for the photo backup app: {v}",
                "dropbox token -> {v}",
                "Dropbox API token from the freelancer: {v}",
            ],
        ),
        (
            "shipping_api_secret",
            "ups_secret",
            [
                "UPS developer app client secret (for the label printer integration): {v}",
                "ShipStation API secret: {v}",
                "FedEx API secret key for the warehouse app: {v}",
            ],
        ),
        (
            "asana_pat",
            "asana",
            [
                "Asana personal access token for the ops dashboard: {v}",
                "asana token: {v}",
                "PAT for Asana (Lena's account): {v}",
            ],
        ),
        (
            "pipedrive_api_token",
            "pipedrive",
            [
                "Pipedrive API token (settings > personal > API) for the quotes sheet: {v}",
                "pipedrive api token {v}",
                "Sales CRM api token: {v}",
            ],
        ),
        (
            "calendly_pat",
            "calendly",
            [
                "Calendly personal access token for the demo booking sync: {v}",
                "calendly token {v}",
                "Calendly API token: {v}",
            ],
        ),
        (
            "new_hire_temp_password",
            "temp_pw",
            [
                "Temp password for Jordan's laptop login on day one: {v} (forced change at first login)",
                "New hire accounts all get {v} until they reset",
                "Onboarding: Google account for Sam set up, temporary password {v}",
            ],
        ),
    ]

    benign_specs = [
        (
            "order_number",
            "order",
            [
                "Customer Maria K. says order {v} arrived with a cracked lid; sent replacement, no refund",
                "Shopify order {v} is the wholesale one, do not auto-fulfil",
                "re: missing package — order no. {v}, customer wants it by Friday",
            ],
        ),
        (
            "invoice_number",
            "inv",
            [
                "Invoice {v} from Bluepine Design paid by ACH on 12/02",
                "Pls chase {v} (net 30, overdue 11 days) — contact is ap@harlowsupply.com",
                "Credit note against {v} issued for the damaged pallet",
            ],
        ),
        (
            "iban_uk",
            "iban",
            [
                "Supplier bank details changed (verified by phone with Tom at Harlow): IBAN {v}",
                "Pay the Lisbon venue to IBAN {v}, reference BRIGHTLOOM-OFFSITE",
                "our receiving IBAN for EU customers is {v} (it's on every invoice footer)",
            ],
        ),
        (
            "iban_de",
            "iban_de",
            [
                "Berlin freelancer's IBAN: {v}, BIC DEUTDEFF",
                "IBAN für die Rückerstattung: {v}",
                "wire to {v} for the trade show booth deposit",
            ],
        ),
        (
            "bank_account_number",
            "acct",
            [
                "Operating account number for the auditors' confirmation letter: {v} (Chase, checking)",
                "Payroll funding account is {v}, routing 021000021",
                "Vendor form asks for our account no. — it's {v}",
            ],
        ),
        (
            "routing_number",
            "routing",
            [
                "ABA routing number for wires: {v}",
                "routing {v} (this is the ACH one, wires use a different one)",
                "direct deposit form: routing number {v}, acct type checking",
            ],
        ),
        (
            "uk_sort_code_account",
            "sortcode",
            [
                "Pay the cleaners: sort code {v}, account 41208873",
                "sort code {v} / acc 19374420 for the landlord",
                "Our Lloyds details for customers: {v} 30458812",
            ],
        ),
        (
            "swift_bic",
            "swift",
            [
                "SWIFT for the US account: {v}",
                "BIC is {v} if the supplier asks",
                "international wire instructions: SWIFT/BIC {v}",
            ],
        ),
        (
            "ups_tracking",
            "ups",
            [
                "Replacement shipped UPS {v}",
                "tracking for the new monitors: {v}",
                "UPS says {v} is delayed in Louisville",
            ],
        ),
        (
            "fedex_tracking",
            "fedex",
            [
                "FedEx tracking {v} — signature required",
                "The contracts went out FedEx overnight, {v}",
                "fedex # {v} returned to sender, wrong suite",
            ],
        ),
        (
            "usps_tracking",
            "usps",
            [
                "USPS tracking for Mrs. Patel's order: {v}",
                "sent the sample via USPS {v}",
                "customer refund pending until {v} shows delivered",
            ],
        ),
        (
            "coupon_code",
            "coupon",
            [
                "Holiday promo: code {v} gives 20% off, expires Dec 31",
                "Give angry customers {v} (15% off next order)",
                "influencer discount code: {v}",
            ],
        ),
        (
            "support_ticket_id",
            "ticket",
            [
                "Zendesk ticket #{v}: customer can't log in, told them to use 'forgot password'",
                "escalated #{v} to Tier 2 (billing dispute)",
                "see ticket {v} for the whole password-reset saga",
            ],
        ),
        (
            "masked_card_number",
            "masked",
            [
                "Customer paid with Visa {v}, exp 08/27",
                "The Amex on file for AWS is {v} (Dana's card)",
                "refund to card {v}",
            ],
        ),
        (
            "password_manager_reference",
            "",
            [
                "Bank login is in 1Password > Finance vault > 'Chase Business'. Ask Dana for access.",
                "All social media passwords are in Bitwarden (Marketing collection). Don't paste them in Slack.",
                "Wi-Fi password: see the 'Office Wi-Fi' item in 1Password, it was rotated on 11/30",
            ],
        ),
        (
            "stripe_publishable_key",
            "pk_live",
            [
                "Publishable key for the website checkout (safe to put in the page): {v}",
                "Stripe publishable key: {v}",
                "pk for the donation form is {v}",
            ],
        ),
        (
            "ga4_measurement_id",
            "ga4",
            [
                "Google Analytics measurement ID for the shop: {v}",
                "GA4 tag {v} goes in the header",
                "analytics id {v} (the old UA one is dead)",
            ],
        ),
        (
            "meta_pixel_id",
            "pixel",
            [
                "Meta pixel ID: {v}",
                "FB pixel {v} installed on the thank-you page",
                "the agency needs our pixel id - {v}",
            ],
        ),
        (
            "recaptcha_site_key",
            "recaptcha",
            [
                "reCAPTCHA site key (the public one that goes in the form): {v}",
                "site key {v} is for the contact form; the secret one is with the web agency",
                "captcha site key -> {v}",
            ],
        ),
        (
            "hubspot_portal_id",
            "hs_portal",
            [
                "HubSpot portal ID (hub id) is {v}",
                "our HubSpot account ID: {v} - support will ask for it",
                "Hub ID {v}",
            ],
        ),
        (
            "mailchimp_audience_id",
            "mc_list",
            [
                "Mailchimp audience ID for the newsletter: {v}",
                "list id {v} (Newsletter - Main)",
                "MC audience {v} is the wholesale list",
            ],
        ),
        (
            "vat_number",
            "vat",
            [
                "Our VAT number for EU invoices: {v}",
                "VAT reg {v}",
                "supplier's VAT no. is {v}, add it to the vendor record",
            ],
        ),
        (
            "purchase_order",
            "po",
            [
                "Raised {v} for the new standing desks",
                "Acme wants the PO on the invoice: {v}",
                "{v} approved by Lena, £2,400",
            ],
        ),
        (
            "file_checksum",
            "sha256",
            [
                "The vendor sent the SHA-256 of the installer so we can check it: {v}",
                "checksum for the signed contract PDF: {v}",
                "hash of the backup file {v}",
            ],
        ),
        (
            "commit_hash_from_vendor",
            "sha1",
            [
                "Web agency says the fix is in release {v}",
                "website build {v} is what's live now",
                "agency changelog: deployed {v} on Tuesday",
            ],
        ),
        (
            "support_request_uuid",
            "uuid",
            [
                "Gusto support reference: {v}",
                "Request ID from the Shopify error page: {v}",
                "when you call Stripe support give them this request id: {v}",
            ],
        ),
        (
            "twilio_account_sid",
            "twilio_sid",
            [
                "Twilio Account SID (not secret, the auth token is in 1Password): {v}",
                "our twilio SID is {v}",
                "Account SID {v} - support asked for it",
            ],
        ),
        (
            "aws_account_id",
            "aws_acct",
            [
                "AWS account ID for the invoice bucket: {v}",
                "MSP needs our AWS account number {v}",
                "billing is under AWS account {v}",
            ],
        ),
        (
            "slack_channel_id",
            "slack_id",
            [
                "#support-alerts channel ID is {v}",
                "Slack channel {v} is the one for wins",
                "channel id for the Zap: {v}",
            ],
        ),
        (
            "stripe_customer_id",
            "cus",
            [
                "Stripe customer for Harlow Supply: {v}",
                "refund issued to {v}",
                "customer {v} disputed the Nov charge",
            ],
        ),
        (
            "stripe_payment_intent_id",
            "pi",
            [
                "Payment {v} failed - card declined",
                "payment intent {v} succeeded after retry",
                "look up {v} in the Stripe dashboard",
            ],
        ),
        (
            "stripe_payout_id",
            "po_stripe",
            [
                "Payout {v} landed on 12/04",
                "reconcile Stripe payout {v} against the bank deposit",
                "missing payout {v}, opened a case",
            ],
        ),
        (
            "zoom_meeting_id",
            "zoom_id",
            [
                "Weekly sales call: Zoom meeting ID {v} (passcode in the calendar invite)",
                "board meeting zoom {v}",
                "use the all-hands room: {v}",
            ],
        ),
        (
            "employee_id",
            "emp",
            [
                "Jordan's employee ID is {v}",
                "Employee {v} switched to the PPO plan",
                "Payroll correction for {v}",
            ],
        ),
        (
            "product_sku",
            "sku",
            [
                "SKU {v} is out of stock until Jan",
                "bundle {v} replaces the old gift set",
                "reorder {v} x 200",
            ],
        ),
        (
            "domain_verification_txt",
            "gsv",
            [
                "DNS TXT record to verify the domain with Google: {v}",
                "added TXT {v} at the registrar",
                "verification record: {v}",
            ],
        ),
        (
            "dkim_public_record",
            "dkim",
            [
                "DKIM record for google._domainkey: {v}",
                "Mailchimp DKIM TXT value: {v}",
                "DKIM public key published: {v}",
            ],
        ),
        (
            "ssh_public_key",
            "ssh_pub",
            [
                "MSP asked for the office NAS public key, it's: {v}",
                "public key to add to the web host: {v}",
                "this is the PUBLIC key (fine to share): {v}",
            ],
        ),
        (
            "pgp_fingerprint",
            "pgp_fp",
            [
                "Our accountant's PGP fingerprint: {v}",
                "verify the key fingerprint {v} before sending payroll files",
                "fingerprint {v}",
            ],
        ),
        (
            "google_ads_customer_id",
            "gads",
            [
                "Google Ads customer ID {v}",
                "Ads account {v} (Tidepool - Search)",
                "give the agency access to Ads {v}",
            ],
        ),
        (
            "duns_number",
            "duns",
            [
                "D-U-N-S number: {v}",
                "our DUNS is {v} for the supplier portal signup",
                "Dun & Bradstreet number {v}",
            ],
        ),
        (
            "square_location_id",
            "sq_loc",
            [
                "Square location ID for the market stall: {v}",
                "Location {v} = the pop-up shop",
                "square loc id {v}",
            ],
        ),
        (
            "paypal_transaction_id",
            "pp_txn",
            [
                "PayPal transaction ID {v} refunded",
                "Customer's PayPal txn: {v}",
                "dispute on PayPal {v}",
            ],
        ),
        (
            "wire_imad",
            "imad",
            [
                "Wire sent, IMAD {v}",
                "Fed reference for the deposit wire: {v}",
                "IMAD {v} - give to the venue if they can't find it",
            ],
        ),
        (
            "insurance_policy_number",
            "policy",
            [
                "General liability policy number {v}",
                "Workers comp policy {v} renews March 1",
                "certificate of insurance references {v}",
            ],
        ),
        (
            "vendor_case_number",
            "case",
            [
                "Comcast case number {v} for the outage",
                "Opened case {v} with ADP about the W-2",
                "case {v} re: double charge",
            ],
        ),
        (
            "rma_number",
            "rma",
            [
                "Dell RMA {v} for the broken monitor",
                "return authorization {v}",
                "ship back with {v} on the box",
            ],
        ),
        (
            "device_serial_number",
            "serial",
            [
                "Laptop serial for Jordan: {v}",
                "S/N {v} (the conference room TV)",
                "warranty claim for serial {v}",
            ],
        ),
        (
            "mac_address",
            "mac",
            [
                "Printer MAC address {v}, reserved 192.168.1.40",
                "add {v} to the Wi-Fi allow list",
                "the badge reader's MAC is {v}",
            ],
        ),
        (
            "mapbox_public_token",
            "mapbox_pk",
            [
                "Mapbox public token (pk., meant for the browser map on the store locator): {v}",
                "public map token: {v}",
                "mapbox default public token {v}",
            ],
        ),
        (
            "redacted_key",
            "redacted_sk",
            [
                "Stripe shows the key as {v} — the full key is in 1Password",
                "which key is the agency using? dashboard says {v}",
                "key ending ...{tail} ({v}) is the one to rotate",
            ],
        ),
        (
            "placeholder_credential",
            "placeholder",
            [
                "Template for vendor onboarding email: 'Your login is your email and your password is {v}'",
                "In the Zapier doc it says paste {v} in the Authorization field — we haven't done this yet",
                "form field example: password = {v}",
            ],
        ),
        (
            "check_number",
            "check",
            [
                "Paid the plumber by check #{v}",
                "check {v} voided",
                "deposit check no. {v} from Harlow",
            ],
        ),
        (
            "utm_string",
            "utm",
            [
                "Newsletter links use {v}",
                "tag the link with {v}",
                "campaign url params: {v}",
            ],
        ),
        (
            "app_bundle_id",
            "bundle",
            [
                "The loyalty app bundle id is {v}",
                "Apple asks for bundle ID {v}",
                "app id {v}",
            ],
        ),
        (
            "badge_number",
            "badge",
            [
                "Building badge number for the new hire: {v}",
                "badge {v} reported lost, deactivated by building mgmt",
                "visitor badge #{v}",
            ],
        ),
        (
            "meta_business_id",
            "meta_biz",
            [
                "Meta Business Manager ID: {v}",
                "Business ID {v} - share with the agency",
                "our FB business id {v}",
            ],
        ),
        (
            "sales_order_number",
            "pnr_inv",
            [
                "Sales order {v} booked for Q1",
                "{v} is the quote that Harlow accepted",
                "reissue {v} with the new address",
            ],
        ),
        (
            "air_waybill",
            "awb",
            [
                "Air waybill {v} for the trade show crates",
                "AWB {v} cleared customs",
                "freight forwarder ref {v}",
            ],
        ),
        (
            "bank_reference",
            "cheque_ref",
            [
                "Bank transfer reference {v}",
                "Include ref {v} on the payment",
                "ACH trace {v}",
            ],
        ),
        (
            "wifi_ssid_only",
            "qr_wifi_ssid",
            [
                "The new access point broadcasts {v}; password is on the sticker in the server closet, not here",
                "SSID for the warehouse is {v} (ask Marco for the key)",
                "Wi-Fi name changed to {v}, same password as before (in 1Password)",
            ],
        ),
        (
            "brand_color_key",
            "hexcolor",
            [
                "Key brand colour is {v}, secondary is off-white",
                "primary (key) colour hex: {v}",
                "use {v} for the token of appreciation cards",
            ],
        ),
        (
            "lot_number",
            "lot",
            [
                "Recall check: lot {v} is not affected",
                "batch/lot {v} from the candle supplier",
                "customer complaint on lot {v}",
            ],
        ),
        (
            "revoked_stated_dead",
            "ghp_dead",
            [
                "The GitHub token the contractor used ({v}) was deleted on 11/28 and no longer works; new one is in 1Password",
                "old revoked token {v} - revoked by IT, kept here only to match the audit log",
                "FYI {v} was invalidated after the contractor left (GitHub confirms: token revoked)",
            ],
        ),
    ]
    benign_prose = [
        (
            "door_code_reference",
            [
                "Door code changed today. Ask Marta at the front desk for the new one, it's not written anywhere.",
                "The keypad code is on the laminated card inside the key safe (not in here, on purpose).",
                "New alarm codes were handed out individually in sealed envelopes; if you didn't get one, ask Lena.",
            ],
        ),
        (
            "password_policy_talk",
            [
                "IT says passwords must be 14+ characters now and we can't reuse the last 5.",
                "Reminder: never share the payroll password over email. Use the 1Password share link instead.",
                "Policy: voicemail PINs have to be 6 digits and can't be 123456 or your extension.",
            ],
        ),
        (
            "other_sense_key",
            [
                "Key for the supply closet is in the top drawer of the reception desk, on the red keyring.",
                "Key takeaways from the Q3 review: churn up 2%, support CSAT 94%.",
                "The piano key on the lobby display is cracked — facilities ticket opened.",
            ],
        ),
        (
            "other_sense_token",
            [
                "Gave Sam a token of thanks (coffee voucher) for covering the phones.",
                "Parking garage uses tokens now, there's a jar of them at reception.",
                "Arcade tokens for the team outing are in the envelope marked FUN.",
            ],
        ),
        (
            "other_sense_secret",
            [
                "Secret Santa draw is Friday, budget $25, sign up on the sheet.",
                "The 'secret menu' item at the cafe downstairs is the lavender latte.",
                "Don't tell Priya: the surprise party is a secret, Thursday 4pm, conference room B.",
            ],
        ),
        (
            "two_factor_no_code",
            [
                "The bank's 2FA code goes to the office mobile (the Android in the drawer). Text whoever is in that day.",
                "Gusto 2FA moved from Ana's phone to the shared authenticator on 12/01.",
                "If the 6-digit code from ADP doesn't arrive, call them; don't disable 2FA.",
            ],
        ),
        (
            "password_rotation_note",
            [
                "Rotated the Instagram password after the phishing email. New one is in Bitwarden.",
                "Changed the GoDaddy password and turned on 2FA; notified Marco. Nothing to copy here.",
                "The Canva password was reset by Lucy on 12/05 — look in 1Password for the current one.",
            ],
        ),
        (
            "forgot_password_support",
            [
                "Customer asked us to tell them their password. We can't see it — sent the reset link via the app instead.",
                "Macro for 'I forgot my password': point them to tidepool.shop/account/reset, never ask for the old password.",
                "Someone phoned claiming to be the CEO asking for the bank password. Did not give it. Reported to IT.",
            ],
        ),
        (
            "alarm_zone_numbers",
            [
                "Alarm zones: 1 front door, 2 back door, 3 loading dock motion, 4 server closet.",
                "Zone 3 keeps false-alarming (spider in the sensor). Tech visit ref 55120.",
                "Alarm panel model DSC PowerSeries 1864, installed 2021, battery replaced Nov.",
            ],
        ),
        (
            "phone_extensions",
            [
                "Extensions: front desk 4400, sales 4410, support 4420, Dana 4431.",
                "Voicemail access number is 555-0142 then press *; everyone sets their own PIN.",
                "Dial 9 for an outside line, 4499 for the overhead page.",
            ],
        ),
    ]

    rows: list[dict] = []

    def fill(tpl: str, v: str) -> str:
        t = tpl.replace("{v}", v)
        t = t.replace("{sid}", hexs(32))
        t = t.replace("{akid}", "AKIA" + pick(up + "234567", 16))
        t = t.replace("{tail}", v[-4:])
        return t

    for label, specs in (("secret", secret_specs), ("benign", benign_specs)):
        for kind, gen, templates in specs:
            for tpl in templates:
                v = g[gen]() if gen else ""
                rows.append({"label": label, "kind": kind, "text": fill(tpl, v), "value": v})
    for kind, texts in benign_prose:
        for t in texts:
            rows.append({"label": "benign", "kind": kind, "text": t, "value": ""})

    seen = set()
    for r in rows:
        assert r["value"] in r["text"], r
        assert r["text"] not in seen, r["text"]
        seen.add(r["text"])
    return rows


def main() -> None:
    rows = corpus()
    out = "\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n"
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w", encoding="utf-8") as fh:
            fh.write(out)
    else:
        sys.stdout.write(out)


if __name__ == "__main__":
    main()

"""Blind secret-detection corpus 37: e-commerce and marketing operations.

Brief: e-commerce and marketing-operations people and the engineers beside them:
Shopify custom app tokens and API secrets, WooCommerce and Magento REST keys,
BigCommerce, Klaviyo private keys, Mailchimp, HubSpot private app tokens,
Salesforce Marketing Cloud client secrets, Zapier/Make webhook URLs that carry
secrets, affiliate networks, ERP connectors (NetSuite token-based auth,
SAP service users), payment gateway settings in admin panels, shipping carrier
API credentials (UPS, FedEx, DHL, EasyPost, Shippo), SMS providers.
Look-alikes: public storefront tokens, GTM/GA4/Meta pixel ids, SKUs and GTINs,
order numbers, discount codes, tracking numbers, webhook ids, API key ids
without their secret, hashed emails for ad audiences, example keys clearly
marked, masked values.

Written blind on 2026-12-07: the author did not read the detector, its tests or
any earlier corpus.

Run: python benchmarks/data/blind_secrets/blind_secrets_37.py [out.jsonl]
(writes JSONL rows {label, kind, text, value}; stdout without an argument).

Kinds, secret:
    shopify_admin_api_token, shopify_api_secret, shopify_custom_app_token,
    shopify_private_app_password, shopify_theme_access_password,
    woocommerce_consumer_secret, magento_integration_access_token,
    magento_crypt_key, magento_db_password, bigcommerce_access_token,
    bigcommerce_client_secret, klaviyo_private_api_key, mailchimp_api_key,
    mandrill_api_key, hubspot_private_app_token, sfmc_client_secret,
    zapier_catch_hook_url, zapier_webhook_query_secret, make_webhook_url,
    impact_auth_token, cj_personal_access_token, awin_api_token,
    shareasale_api_secret, netsuite_consumer_secret, netsuite_token_secret,
    sap_service_user_password, sap_btp_client_secret, odoo_api_key,
    stripe_secret_key, stripe_restricted_key, stripe_webhook_secret,
    paypal_client_secret, braintree_private_key, authorize_net_transaction_key,
    adyen_api_key, square_access_token, mollie_live_key, ups_client_secret,
    fedex_client_secret, fedex_legacy_password, dhl_api_secret,
    easypost_production_key, shippo_live_token, shipstation_api_secret,
    twilio_auth_token, twilio_api_key_secret, vonage_api_secret,
    messagebird_access_key, plivo_auth_token, sendgrid_api_key,
    postmark_server_token, mailgun_api_key, meta_capi_access_token,
    amazon_lwa_client_secret, amazon_sp_refresh_token, aws_secret_access_key,
    algolia_admin_api_key, smtp_password, sftp_feed_password, gmail_app_password,
    shopify_admin_session_cookie, github_pat_theme_deploy, braze_rest_api_key,
    iterable_api_key, zendesk_api_token, recharge_api_token, pinterest_ads_token,
    payment_admin_password, adyen_hmac_key, klaviyo_webhook_secret,
    attentive_api_key, gorgias_api_key

Kinds, benign:
    shopify_storefront_public_token, shopify_api_key_client_id,
    klaviyo_public_site_id, gtm_container_id, ga4_measurement_id, meta_pixel_id,
    google_ads_conversion_label, tiktok_pixel_code, product_sku, gtin13,
    order_number, shopify_order_gid, discount_code, ups_tracking_number,
    fedex_tracking_number, usps_tracking_number, dhl_waybill,
    shopify_webhook_subscription_id, stripe_webhook_endpoint_id,
    stripe_publishable_key, stripe_object_ids, paypal_client_id,
    braintree_public_key, authorize_net_public_client_key, adyen_client_key,
    square_application_id, algolia_search_only_key, recaptcha_site_key,
    mailchimp_audience_id, mailchimp_campaign_id, hubspot_portal_and_form,
    hubspot_app_client_id, sfmc_tenant_subdomain, hashed_email_audience,
    netsuite_token_id_only, netsuite_internal_id, twilio_account_sid,
    twilio_messaging_service_sid, aws_access_key_id_only, masked_admin_token,
    masked_stripe_key, example_placeholder_key, example_marked_mailchimp,
    template_placeholder, env_var_reference, vault_reference, secret_manager_ref,
    revoked_token_stated, easypost_shipment_id, easypost_tracker_id,
    shippo_object_id, shopify_webhook_hmac_header, stripe_signature_header,
    idempotency_key, git_commit_sha, feed_checksum, bcrypt_hash, ups_shipper_number,
    fedex_account_number, sap_sales_order, sap_material_number, utm_parameters,
    sendgrid_template_id, klaviyo_list_id, klaviyo_profile_id,
    apple_pay_merchant_id, test_card_number, dkim_public_key, password_policy_talk,
    rotation_talk_no_value, metafield_key_sense, design_token_sense, shop_domain,
    shopify_theme_id, make_scenario_id, rma_number, affiliate_publisher_id,
    coupon_hashed_style_id, erp_guid, gtin14, magento_increment_id,
    woocommerce_order_id, dhl_ecommerce_tracking, woocommerce_webhook_id,
    bigcommerce_store_hash, stripe_test_publishable, stripe_customer_id,
    stripe_payment_intent_id, paypal_transaction_id, adyen_psp_reference,
    adyen_merchant_account, square_location_id, algolia_app_id, hcaptcha_sitekey,
    hashed_phone_audience, md5_email_mailchimp, twilio_message_sid,
    twilio_api_key_sid_only, sms_short_code, masked_netsuite_secret,
    masked_consumer_secret, redacted_log_line, example_placeholder_key2,
    example_marked_stripe, easypost_address_id, klaviyo_metric_id, klaviyo_flow_id,
    hubspot_deal_id, sfmc_mid, sfmc_data_extension_key, docker_image_digest,
    magento_admin_password_hash, sap_vendor_number, netsuite_account_id,
    netsuite_script_id, purchase_order_number, invoice_number, gift_card_last4,
    key_sense_other, token_sense_other, secret_sense_other, dhl_account_number,
    affiliate_click_id, affiliate_tracking_link, gclid_value, fbclid_value,
    shopify_checkout_cart_id, uuid_request_id, shopify_location_id, wms_lot_number
"""

# ruff: noqa: E501
import json
import random
import string
import sys

SEED = 3737

HEX = "0123456789abcdef"
LOW = string.ascii_lowercase + string.digits
ALNUM = string.ascii_letters + string.digits
UP = string.ascii_uppercase + string.digits
B64U = ALNUM + "-_"
B64 = ALNUM + "+/"


def corpus() -> list[dict]:
    rng = random.Random(SEED)

    def r(alpha, n):
        return "".join(rng.choice(alpha) for _ in range(n))

    def h(n):
        return r(HEX, n)

    def dig(n):
        return str(rng.randint(1, 9)) + r(string.digits, n - 1)

    def uuid():
        return f"{h(8)}-{h(4)}-4{h(3)}-{rng.choice('89ab')}{h(3)}-{h(12)}"

    def pw():
        words = ["Harbor", "Cobalt", "Maple", "Quartz", "Falcon", "Tundra", "Saffron", "Orbit"]
        return rng.choice(words) + r(ALNUM, 5) + rng.choice("!#%*@$") + dig(3)

    shops = [
        "northwind-goods",
        "lumen-apparel",
        "pinecrest-coffee",
        "atlas-outdoor",
        "bramble-home",
        "kettle-and-co",
        "solstice-skin",
        "drift-surf-supply",
    ]
    people = ["Priya", "Marco", "Jonas", "Ines", "Dana", "Kofi", "Mei", "Tomás"]
    months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov"]

    rows: list[dict] = []

    def k(label, kind, gen, *tmpls):
        for t in tmpls:
            v = gen()
            f = {
                "v": v,
                "shop": rng.choice(shops),
                "who": rng.choice(people),
                "n": dig(4),
                "d": f"{rng.randint(2, 27)} {rng.choice(months)}",
                "h8": h(8),
            }
            text = t.format(**f)
            assert v in text, (kind, t)
            rows.append({"label": label, "kind": kind, "text": text, "value": v})

    S, B = "secret", "benign"

    # ------------------------------------------------------------------ secrets
    k(
        S,
        "shopify_admin_api_token",
        lambda: "shpat_" + h(32),
        "Shopify custom app 'ops-sync' on {shop}.myshopify.com\nAdmin API access token: {v}\n(only shown once, copied on {d})",
        "export SHOPIFY_ADMIN_TOKEN={v}\nexport SHOP={shop}.myshopify.com",
        "curl -H 'X-Shopify-Access-Token: {v}' https://{shop}.myshopify.com/admin/api/2024-10/orders.json?status=any",
        "note to self: inventory cron uses {v} against {shop}; scopes read_products,write_inventory",
    )
    k(
        S,
        "shopify_api_secret",
        lambda: "shpss_" + h(32),
        "{shop} custom app credentials -> API key is in the app settings page, API secret key {v} is what verifies webhook HMACs",
        'SHOPIFY_API_SECRET="{v}"  # used by verifyWebhook() in app/webhooks.ts',
        "{who} pasted the client secret for the embedded app: {v} - rotate after the launch",
    )
    k(
        S,
        "shopify_custom_app_token",
        lambda: "shpca_" + h(32),
        "Partner dashboard custom app install for {shop}: token {v}",
        'shopify.config.json\n  "accessToken": "{v}",\n  "shop": "{shop}"',
    )
    k(
        S,
        "shopify_private_app_password",
        lambda: "shppa_" + h(32),
        "old private app (pre-2022) still running the ERP bridge, password {v}, url https://{shop}.myshopify.com/admin",
        "legacy connector .env: SHOPIFY_PASSWORD={v}",
    )
    k(
        S,
        "shopify_theme_access_password",
        lambda: "shptka_" + h(32),
        "Theme Access app gave the freelancer a password: {v}\nuse with: shopify theme push --store {shop} --password <that>",
        "GitHub Actions secret SHOPIFY_CLI_THEME_TOKEN = {v} (theme deploys for {shop})",
    )
    k(
        S,
        "woocommerce_consumer_secret",
        lambda: "cs_" + h(40),
        "WooCommerce > Settings > Advanced > REST API, key for 'Zapier orders'\nConsumer key: ck_"
        + "{h8}"
        + "...\nConsumer secret: {v}",
        "WC_CONSUMER_SECRET={v}\nWC_URL=https://{shop}.com/wp-json/wc/v3",
        "woo api (read/write) secret for the fulfilment bot -> {v}",
    )
    k(
        S,
        "magento_integration_access_token",
        lambda: r(LOW, 32),
        "Magento 2 admin > System > Integrations > 'NetSuite Celigo'\nAccess Token: {v}",
        'M2_BEARER={v}\ncurl -H "Authorization: Bearer $M2_BEARER" https://{shop}.com/rest/V1/orders?searchCriteria[pageSize]=5',
        "magento integration for the PIM was reactivated, new access token {v}",
    )
    k(
        S,
        "magento_crypt_key",
        lambda: h(32),
        "app/etc/env.php on prod:\n'crypt' => [\n    'key' => '{v}'\n],",
        "Magento encryption key (needed to decrypt saved payment config after migration): {v}",
    )
    k(
        S,
        "magento_db_password",
        pw,
        "env.php db block for {shop}: host db-primary, dbname magento, username m2_app, password '{v}'",
        "mysql -h 10.0.4.12 -u m2_app -p'{v}' magento -e 'select * from sales_order limit 1'",
    )
    k(
        S,
        "bigcommerce_access_token",
        lambda: r(LOW, 31),
        "BigCommerce store-hash abc{h8} API account 'feeds'\nX-Auth-Token: {v}",
        "BC_ACCESS_TOKEN={v}\nBC_STORE_HASH={h8}",
        "bigcommerce v3 catalog script -> headers = X-Auth-Token {v}, Accept json",
    )
    k(
        S,
        "bigcommerce_client_secret",
        lambda: h(64),
        "BigCommerce app (devtools) client secret: {v}",
        "bc app oauth: client_secret={v} ; used to sign the load callback JWT",
    )
    k(
        S,
        "klaviyo_private_api_key",
        lambda: "pk_" + h(34),
        "Klaviyo private API key for {shop} (full access): {v}",
        "headers: Authorization: Klaviyo-API-Key {v}, revision: 2024-07-15",
        "KLAVIYO_PRIVATE_KEY={v}\nKLAVIYO_LIST=Newsletter",
    )
    k(
        S,
        "mailchimp_api_key",
        lambda: h(32) + "-us" + str(rng.randint(2, 21)),
        "Mailchimp marketing API key (account owner {who}): {v}",
        "mailchimp.setConfig(apiKey: '{v}', server: from the suffix)",
        "MC_KEY={v} # audience sync lambda",
    )
    k(
        S,
        "mandrill_api_key",
        lambda: "md-" + r(B64U, 22),
        "Mailchimp Transactional (Mandrill) key for order emails: {v}",
        "SMTP for Mandrill: host smtp.mandrillapp.com, user = any, password = {v}",
    )
    k(
        S,
        "hubspot_private_app_token",
        lambda: f"pat-{rng.choice(['na1', 'eu1'])}-{uuid()}",
        "HubSpot private app 'Shopify deal sync' access token: {v}",
        "HUBSPOT_ACCESS_TOKEN={v}",
        "curl https://api.hubapi.com/crm/v3/objects/contacts -H 'authorization: Bearer {v}'",
    )
    k(
        S,
        "sfmc_client_secret",
        lambda: r(ALNUM, 24),
        "SFMC installed package 'Journey trigger', server-to-server\nclient_id: "
        + "{h8}"
        + "q2x...\nclient_secret: {v}",
        "marketing cloud auth body: grant_type=client_credentials&client_id=...&client_secret={v}&account_id=7{n}",
        "SFMC_CLIENT_SECRET='{v}'  # tenant mc{h8}",
    )
    k(
        S,
        "zapier_catch_hook_url",
        lambda: f"https://hooks.zapier.com/hooks/catch/{dig(7)}/{r(LOW, 6)}/",
        "Zap 'new Woo order -> Slack' trigger URL (anyone with it can post orders): {v}",
        "webhook target in Shopify flow: {v}",
    )
    k(
        S,
        "zapier_webhook_query_secret",
        lambda: r(ALNUM, 28),
        "zapier webhook we call from the ERP: https://hooks.zapier.com/hooks/catch/{n}331/3xk9qz/?secret={v}",
    )
    k(
        S,
        "make_webhook_url",
        lambda: f"https://hook.{rng.choice(['eu1', 'us1', 'eu2'])}.make.com/{r(LOW, 32)}",
        "Make scenario 'Klaviyo -> Sheets' custom webhook: {v}",
        "MAKE_HOOK={v}\n# posting here runs the refund scenario, keep private",
    )
    k(
        S,
        "impact_auth_token",
        lambda: r(ALNUM, 32),
        "impact.com partner API: Account SID IR{h8}Xq9, Auth Token {v}",
        "IMPACT_AUTH_TOKEN={v}",
    )
    k(
        S,
        "cj_personal_access_token",
        lambda: r(LOW, 26),
        "CJ Affiliate personal access token (commission detail API): {v}",
        "cj graphql: Authorization: Bearer {v}",
    )
    k(
        S,
        "awin_api_token",
        uuid,
        "Awin publisher API token from the user menu: {v}",
        "curl 'https://api.awin.com/publishers/{n}12/transactions/' -H 'Authorization: Bearer {v}'",
    )
    k(
        S,
        "shareasale_api_secret",
        lambda: r(ALNUM, 32),
        "ShareASale merchant API: token "
        + "{h8}"
        + "Qz (public-ish), secret key {v}, signature is sha256(token:date:action:secret)",
        "SAS_SECRET_KEY={v}",
    )
    k(
        S,
        "netsuite_consumer_secret",
        lambda: h(64),
        "NetSuite integration record 'Shopify Connector' (acct 54{n}):\nconsumer key shown above, consumer secret {v}",
        "NS_CONSUMER_SECRET={v}",
    )
    k(
        S,
        "netsuite_token_secret",
        lambda: h(64),
        "TBA token for role 'Integration Admin'\ntoken id: see vault, token secret: {v}",
        "netsuite:\n  account: '54{n}_SB1'\n  token_secret: {v}",
        "OAuth 1.0 signing for RESTlet: oauth_token_secret = {v}",
    )
    k(
        S,
        "sap_service_user_password",
        pw,
        "SAP S/4 service user RFC_SHOPSYNC (client 100) password {v}, do not lock it, PI retries 3x",
        "odata call: curl -u SVC_ECOM:{v} https://s4.{shop}.local/sap/opu/odata/sap/API_SALES_ORDER_SRV",
        "{who} reset the SAP comm user for the B2B portal; new pw: {v}",
    )
    k(
        S,
        "sap_btp_client_secret",
        lambda: r(ALNUM, 20) + "$" + r(B64U, 40) + "=",
        "BTP service key for CPI: clientid sb-ecom-flows!b1{n}, clientsecret {v}",
    )
    k(
        S,
        "odoo_api_key",
        lambda: h(40),
        "Odoo 17 API key for user api@{shop}.com (xmlrpc login uses it as password): {v}",
    )
    k(
        S,
        "stripe_secret_key",
        lambda: "sk_live_" + r(ALNUM, 24),
        "Stripe live secret key from the dashboard: {v}",
        "STRIPE_SECRET_KEY={v}\nSTRIPE_PUBLISHABLE_KEY=pk_live_...",
        "WooCommerce Stripe gateway settings > Live secret key: {v}",
    )
    k(
        S,
        "stripe_restricted_key",
        lambda: "rk_live_" + r(ALNUM, 24),
        "restricted key for the refunds tool (charges:write only): {v}",
        "STRIPE_RK={v}",
    )
    k(
        S,
        "stripe_webhook_secret",
        lambda: "whsec_" + r(ALNUM, 32),
        "Stripe endpoint /hooks/stripe signing secret {v}",
        "STRIPE_WEBHOOK_SECRET={v}  # from `stripe listen` on staging",
    )
    k(
        S,
        "paypal_client_secret",
        lambda: "E" + r(B64U, 79),
        "PayPal REST app 'checkout-live'\nClient ID: A{h8}...\nSecret: {v}",
        "PAYPAL_CLIENT_SECRET={v}",
    )
    k(
        S,
        "braintree_private_key",
        lambda: h(32),
        "Braintree production: merchant id {h8}xx, public key tz{n}, private key {v}",
        "BT_PRIVATE_KEY={v}",
    )
    k(
        S,
        "authorize_net_transaction_key",
        lambda: r(ALNUM, 16),
        "Authorize.Net gateway (Magento admin > Payment Methods): API Login ID 7aB{n}Xz, Transaction Key {v}",
        "AUTHNET_TRANSACTION_KEY={v}",
    )
    k(
        S,
        "adyen_api_key",
        lambda: "AQE" + r(B64U, 20) + "/" + r(B64, 60) + "=-" + r(B64, 40) + "=-" + r(ALNUM, 20),
        "Adyen web service user ws@Company.{shop} API key: {v}",
        "x-API-key: {v}",
    )
    k(
        S,
        "square_access_token",
        lambda: "EAAA" + r(B64U, 60),
        "Square production access token for POS sync: {v}",
        "SQUARE_ACCESS_TOKEN={v}",
    )
    k(S, "mollie_live_key", lambda: "live_" + r(ALNUM, 30), "Mollie live API key (NL shop): {v}")
    k(
        S,
        "ups_client_secret",
        lambda: r(ALNUM, 64),
        "UPS developer portal app 'rates-labels'\nClient ID: {h8}AbC...\nClient Secret: {v}",
        "UPS_CLIENT_SECRET={v}\nUPS_ACCOUNT=A1{n}",
    )
    k(
        S,
        "fedex_client_secret",
        lambda: r(LOW, 32),
        "FedEx REST project 'ship-api' production secret key: {v}",
        "fedex oauth: grant_type=client_credentials&client_id=l7{h8}...&client_secret={v}",
    )
    k(
        S,
        "fedex_legacy_password",
        lambda: r(ALNUM, 25),
        "FedEx Web Services (SOAP, old) key/password/meter: password {v}, meter 11{n}",
    )
    k(
        S,
        "dhl_api_secret",
        lambda: r(ALNUM, 16),
        "DHL Express MyDHL API credentials: username {shop}GB, password {v}",
        "DHL_API_SECRET={v}  # eCommerce Europe",
    )
    k(
        S,
        "easypost_production_key",
        lambda: "EZAK" + h(54),
        "EasyPost production API key: {v}",
        "EASYPOST_API_KEY={v}",
    )
    k(
        S,
        "shippo_live_token",
        lambda: "shippo_live_" + h(40),
        "Shippo live token for label purchase: {v}",
        "Authorization: ShippoToken {v}",
    )
    k(S, "shipstation_api_secret", lambda: h(32), "ShipStation API Key {h8}..., API Secret {v}")
    k(
        S,
        "twilio_auth_token",
        lambda: h(32),
        "Twilio (SMS order updates) Account SID AC{h8}" + "{h8}" + "{h8}" + "{h8}, Auth Token {v}",
        "TWILIO_AUTH_TOKEN={v}",
        "twilio api:core:messages:create ... -u AC...:{v}",
    )
    k(
        S,
        "twilio_api_key_secret",
        lambda: r(ALNUM, 32),
        "Twilio API key SK{h8}... secret (shown once): {v}",
    )
    k(
        S,
        "vonage_api_secret",
        lambda: r(ALNUM, 16),
        "Vonage SMS: api_key {h8}, api_secret {v}",
        "NEXMO_API_SECRET={v}",
    )
    k(
        S,
        "messagebird_access_key",
        lambda: r(ALNUM, 25),
        "MessageBird live access key: {v}",
        "Authorization: AccessKey {v}",
    )
    k(S, "plivo_auth_token", lambda: r(ALNUM, 40), "Plivo auth id MA{n}XYZ..., auth token {v}")
    k(
        S,
        "sendgrid_api_key",
        lambda: "SG." + r(B64U, 22) + "." + r(B64U, 43),
        "SendGrid key for transactional order confirmations: {v}",
        "SENDGRID_API_KEY={v}",
    )
    k(
        S,
        "postmark_server_token",
        uuid,
        "Postmark server token (shipping notices stream): {v}",
        "X-Postmark-Server-Token: {v}",
    )
    k(
        S,
        "mailgun_api_key",
        lambda: "key-" + h(32),
        "mailgun private API key {v} (domain mg.{shop}.com)",
    )
    k(
        S,
        "meta_capi_access_token",
        lambda: "EAA" + r(ALNUM, 180),
        "Meta Conversions API access token (system user, never expires): {v}",
        "FB_CAPI_TOKEN={v}",
    )
    k(
        S,
        "amazon_lwa_client_secret",
        lambda: "amzn1.oa2-cs.v1." + h(64),
        "SP-API LWA app client secret: {v}",
    )
    k(
        S,
        "amazon_sp_refresh_token",
        lambda: "Atzr|IwEB" + r(B64U, 120),
        "Seller Central self-authorised refresh token for the listings job: {v}",
    )
    k(
        S,
        "aws_secret_access_key",
        lambda: r(ALNUM + "/+", 40),
        "S3 bucket for product images: AKIA{h8}ABCD1234 / secret {v}",
        "aws_secret_access_key = {v}",
    )
    k(
        S,
        "algolia_admin_api_key",
        lambda: h(32),
        "Algolia app {h8} Admin API key (write, delete indices): {v}",
        "ALGOLIA_ADMIN_KEY={v}  # only the indexer, never the storefront",
    )
    k(
        S,
        "smtp_password",
        pw,
        "store email via Office365 SMTP: orders@{shop}.com / {v}",
        "WP Mail SMTP plugin: password field = {v}",
    )
    k(
        S,
        "sftp_feed_password",
        pw,
        "Google Merchant SFTP upload: user mc-sftp-{n}, password {v}, host partnerupload.google.com:19321",
        "ERP drops the price file on sftp://edi.{shop}.com, login edi_{who} / {v}",
    )
    k(
        S,
        "gmail_app_password",
        lambda: " ".join(r(string.ascii_lowercase, 4) for _ in range(4)),
        "app password for the reports mailbox (gmail): {v}",
    )
    k(
        S,
        "shopify_admin_session_cookie",
        lambda: h(32),
        "HAR from the admin: Cookie: _secure_admin_session_id={v}; _shopify_y=...",
    )
    k(S, "github_pat_theme_deploy", lambda: "ghp_" + r(ALNUM, 36), "theme repo deploy token {v}")
    k(
        S,
        "braze_rest_api_key",
        uuid,
        "Braze REST API key (users.track, campaigns.trigger.send): {v}",
    )
    k(S, "iterable_api_key", lambda: h(32), "Iterable server-side key for purchase events: {v}")
    k(S, "zendesk_api_token", lambda: r(ALNUM, 40), "Zendesk: support@{shop}.com/token:{v}")
    k(
        S,
        "recharge_api_token",
        lambda: "sk_" + r(ALNUM, 2) + "x" + h(50),
        "Recharge subscriptions admin token: {v}",
    )
    k(
        S,
        "pinterest_ads_token",
        lambda: "pina_" + r(UP, 96),
        "Pinterest conversions token (ad account 549{n}): {v}",
    )
    k(
        S,
        "payment_admin_password",
        pw,
        "payment gateway merchant portal admin login: finance@{shop}.com pw {v}",
        "Worldpay MAI login for refunds: username {who}OPS, password {v}",
    )

    # ------------------------------------------------------------------ benign
    k(
        B,
        "shopify_storefront_public_token",
        lambda: h(32),
        "Storefront API public access token (goes in the browser bundle by design): {v}",
        "headless front: X-Shopify-Storefront-Access-Token: {v} (unauthenticated_read_product_listings only)",
        "PUBLIC_STOREFRONT_TOKEN={v}  # safe to ship in NEXT_PUBLIC env",
    )
    k(
        B,
        "shopify_api_key_client_id",
        lambda: h(32),
        "Shopify app client id (the 'API key' field, public, appears in the install URL): {v}",
        'shopify.app.toml\nclient_id = "{v}"\napplication_url = "https://app.{shop}.dev"',
        "install link: https://{shop}.myshopify.com/admin/oauth/authorize?client_id={v}&scope=read_orders",
    )
    k(
        B,
        "klaviyo_public_site_id",
        lambda: r(ALNUM, 6),
        "Klaviyo public API key / site id for onsite.js: {v}",
        '<script src="//static.klaviyo.com/onsite/js/klaviyo.js?company_id={v}"></script>',
    )
    k(
        B,
        "gtm_container_id",
        lambda: "GTM-" + r(UP, 7),
        "GTM container for {shop}: {v} (web), publish after QA",
        "tag manager id {v} is hardcoded in theme.liquid, move to settings",
    )
    k(
        B,
        "ga4_measurement_id",
        lambda: "G-" + r(UP, 10),
        "GA4 measurement id {v}; property 3{n}1234",
        "gtag('config', '{v}', {{ send_page_view: false }});",
    )
    k(
        B,
        "meta_pixel_id",
        lambda: dig(16),
        "Meta pixel id {v} - dataset for CAPI is the same number",
        "fbq('init', '{v}');",
    )
    k(
        B,
        "google_ads_conversion_label",
        lambda: f"AW-{dig(10)}/{r(B64U, 20)}",
        "Google Ads purchase conversion: send_to '{v}'",
    )
    k(
        B,
        "tiktok_pixel_code",
        lambda: "C" + r(UP, 19),
        "TikTok pixel code {v} installed via the Shopify channel app",
    )
    k(
        B,
        "product_sku",
        lambda: f"{r(string.ascii_uppercase, 3)}-{dig(4)}-{r(UP, 3)}",
        "SKU {v} oversold again, set inventory policy to deny",
        "bundle = {v} + two refills; update the PIM",
    )
    k(
        B,
        "gtin13",
        lambda: "0" + dig(12),
        "GTIN/EAN for the 250g bag: {v} (Merchant Center was flagging it as invalid)",
        "barcode field should be {v} not the SKU",
    )
    k(
        B,
        "order_number",
        lambda: "#" + dig(5),
        "Order {v} charged twice, refunded the second capture on {d}",
        "{who} asked about order {v}: split shipment, second box pending",
    )
    k(
        B,
        "shopify_order_gid",
        lambda: "gid://shopify/Order/" + dig(13),
        "failing mutation target: {v}",
    )
    k(
        B,
        "discount_code",
        lambda: rng.choice(["SPRING", "WELCOME", "VIP", "FREESHIP"]) + dig(2),
        "discount code {v} stacked with automatic BOGO, disable combining",
        "influencer code {v} - 15% off, expires end of month",
    )
    k(
        B,
        "ups_tracking_number",
        lambda: "1Z" + r(UP, 6) + dig(10),
        "UPS tracking {v} shows exception: address correction",
        "customer says {v} never moved, opened claim",
    )
    k(B, "fedex_tracking_number", lambda: dig(12), "FedEx tracking {v} delivered to the wrong door")
    k(
        B,
        "usps_tracking_number",
        lambda: "9400" + dig(18),
        "USPS label {v} printed twice, voided the duplicate in ShipStation",
    )
    k(
        B,
        "dhl_waybill",
        lambda: dig(10),
        "DHL waybill {v} stuck in customs, commercial invoice missing HS code",
    )
    k(
        B,
        "shopify_webhook_subscription_id",
        lambda: "gid://shopify/WebhookSubscription/" + dig(13),
        "orders/create webhook registered as {v}; delete before reinstall",
    )
    k(
        B,
        "stripe_webhook_endpoint_id",
        lambda: "we_" + r(ALNUM, 24),
        "Stripe webhook endpoint {v} disabled after 3 days of 500s",
    )
    k(
        B,
        "stripe_publishable_key",
        lambda: "pk_live_" + r(ALNUM, 99),
        "Stripe publishable key for checkout.js: {v}",
        "NEXT_PUBLIC_STRIPE_PK={v}",
    )
    k(
        B,
        "stripe_object_ids",
        lambda: "price_" + r(ALNUM, 24),
        "subscription box monthly price id {v}; product is the 'Starter' one",
    )
    k(
        B,
        "paypal_client_id",
        lambda: "A" + r(B64U, 79),
        'PayPal JS SDK: <script src="https://www.paypal.com/sdk/js?client-id={v}&currency=EUR">',
    )
    k(
        B,
        "braintree_public_key",
        lambda: r(LOW, 16),
        "Braintree public key (an identifier, not the private key): {v}",
    )
    k(
        B,
        "authorize_net_public_client_key",
        lambda: r(ALNUM, 64),
        "Accept.js public client key (meant for the browser form): {v}",
    )
    k(
        B,
        "adyen_client_key",
        lambda: "live_" + r(UP, 32),
        "Adyen Drop-in client key (public, origin-restricted): {v}",
        "ADYEN_CLIENT_KEY={v}  # frontend only",
    )
    k(
        B,
        "square_application_id",
        lambda: "sq0idp-" + r(B64U, 22),
        "Square Web Payments application id {v}",
    )
    k(
        B,
        "algolia_search_only_key",
        lambda: h(32),
        "Algolia search-only API key for the storefront search box: {v}",
        "instantsearch: appId {h8}, searchKey '{v}' (public)",
    )
    k(
        B,
        "recaptcha_site_key",
        lambda: "6L" + r(B64U, 38),
        "reCAPTCHA v3 site key on the contact form: {v}",
    )
    k(
        B,
        "mailchimp_audience_id",
        lambda: h(10),
        "Mailchimp audience id {v} (Newsletter EU)",
        "list_id={v} merge field SHOP_CTRY added",
    )
    k(B, "mailchimp_campaign_id", lambda: h(10), "BFCM email campaign id {v} scheduled {d}")
    k(
        B,
        "hubspot_portal_and_form",
        uuid,
        "HubSpot portal 2{n}12 form guid {v} embedded on wholesale page",
    )
    k(
        B,
        "hubspot_app_client_id",
        uuid,
        "HubSpot public app client id {v} (the secret is not here, it lives in SSM)",
    )
    k(
        B,
        "sfmc_tenant_subdomain",
        lambda: "mc" + r(LOW, 25),
        "SFMC tenant subdomain {v}; auth URL https://{v}.auth.marketingcloudapis.com/",
    )
    k(
        B,
        "hashed_email_audience",
        lambda: h(64),
        "Customer Match upload row (sha256 of normalised email): {v}",
        "hashed em for CAPI test event: {v}",
    )
    k(
        B,
        "netsuite_token_id_only",
        lambda: h(64),
        "NetSuite token ID (the id, not the token secret; secret is in Vault at ecom/netsuite): {v}",
    )
    k(
        B,
        "netsuite_internal_id",
        lambda: dig(6),
        "NetSuite internal id {v} is the sales order that failed to sync (item fulfillment missing)",
    )
    k(
        B,
        "twilio_account_sid",
        lambda: "AC" + h(32),
        "Twilio Account SID {v} - auth token is NOT stored here",
        "account sid: {v} / messaging service MG... (ids only)",
    )
    k(
        B,
        "twilio_messaging_service_sid",
        lambda: "MG" + h(32),
        "SMS campaign sender pool = messaging service {v}",
    )
    k(
        B,
        "aws_access_key_id_only",
        lambda: "AKIA" + r(UP, 16),
        "image bucket IAM user access key id {v} (the secret access key was rotated and is in Secrets Manager)",
    )
    k(
        B,
        "masked_admin_token",
        lambda: "shpat_" + "*" * 28 + h(4),
        "admin token on file: {v} (masked by the app settings page)",
        "the one ending in {v} is the staging token, ask {who} for the real value",
    )
    k(
        B,
        "masked_stripe_key",
        lambda: "sk_live_" + "•" * 20 + r(ALNUM, 4),
        "dashboard shows {v}; reveal needs owner role",
    )
    k(
        B,
        "example_placeholder_key",
        lambda: "shpat_" + "x" * 32,
        "README snippet: SHOPIFY_ADMIN_TOKEN={v} (replace with your own)",
    )
    k(
        B,
        "example_marked_mailchimp",
        lambda: "0123456789abcdef0123456789abcdef-us6",
        "docs example key format: {v} (fake, shows the dc suffix)",
    )
    k(
        B,
        "template_placeholder",
        lambda: "<YOUR_KLAVIYO_PRIVATE_KEY>",
        "in .env.example: KLAVIYO_PRIVATE_KEY={v}",
    )
    k(
        B,
        "env_var_reference",
        lambda: "${NETSUITE_TOKEN_SECRET}",
        "docker-compose: NS_TOKEN_SECRET: {v} injected at deploy",
    )
    k(
        B,
        "vault_reference",
        lambda: "op://Ecom/UPS API/client_secret",
        "ups secret is at {v}, use `op read` in the job",
    )
    k(
        B,
        "secret_manager_ref",
        lambda: (
            "arn:aws:secretsmanager:eu-west-1:" + dig(12) + ":secret:prod/easypost-" + r(ALNUM, 6)
        ),
        "EasyPost key lives in {v}",
    )
    k(
        B,
        "revoked_token_stated",
        lambda: "shppa_" + h(28) + "…",
        "the truncated {v} in old Slack threads is the private app we deleted on {d}; app no longer exists, nothing to rotate",
    )
    k(
        B,
        "easypost_shipment_id",
        lambda: "shp_" + h(32),
        "EasyPost shipment {v} bought twice, refund the second label",
    )
    k(B, "easypost_tracker_id", lambda: "trk_" + h(32), "tracker {v} created for the return")
    k(
        B,
        "shippo_object_id",
        lambda: h(32),
        "Shippo transaction object_id {v} (label PDF url expired)",
    )
    k(
        B,
        "shopify_webhook_hmac_header",
        lambda: r(B64, 43) + "=",
        "captured delivery: X-Shopify-Hmac-Sha256: {v} - our computed value differed because body was re-serialised",
    )
    k(
        B,
        "stripe_signature_header",
        lambda: f"t={dig(10)},v1={h(64)}",
        "Stripe-Signature from the failing event: {v}",
    )
    k(B, "idempotency_key", uuid, "retry used Idempotency-Key {v} so the charge was not duplicated")
    k(B, "git_commit_sha", lambda: h(40), "theme rollback to commit {v} fixed the cart drawer")
    k(B, "feed_checksum", lambda: h(64), "sha256 of products.xml uploaded {d}: {v}")
    k(
        B,
        "bcrypt_hash",
        lambda: "$2y$10$" + r(ALNUM + "./", 53),
        "admin_user.password hash for the break-glass account (bcrypt): {v}",
    )
    k(
        B,
        "ups_shipper_number",
        lambda: r(UP, 6),
        "UPS shipper/account number {v} printed on every label",
    )
    k(B, "fedex_account_number", lambda: dig(9), "FedEx account number {v} for third-party billing")
    k(
        B,
        "sap_sales_order",
        lambda: "00" + dig(8),
        "SAP sales order {v} blocked for credit, release in VKM3",
    )
    k(
        B,
        "sap_material_number",
        lambda: "0000" + dig(14),
        "material {v} maps to SKU TEA-22; fix the mapping table",
    )
    k(
        B,
        "utm_parameters",
        lambda: f"utm_source=klaviyo&utm_medium=email&utm_campaign={r(LOW, 8)}_{dig(4)}",
        "welcome flow links: ?{v}",
    )
    k(B, "sendgrid_template_id", lambda: "d-" + h(32), "order confirmation dynamic template {v}")
    k(
        B,
        "klaviyo_list_id",
        lambda: r(ALNUM, 6),
        "Klaviyo list id {v} for VIP; flow trigger is 'added to list'",
    )
    k(B, "klaviyo_profile_id", lambda: "01" + r(UP, 24), "bounced profile {v} suppressed manually")
    k(
        B,
        "apple_pay_merchant_id",
        lambda: "merchant.com." + r(string.ascii_lowercase, 8),
        "Apple Pay merchant identifier {v}",
    )
    k(
        B,
        "test_card_number",
        lambda: "4242 4242 4242 4242",
        "checkout QA: Stripe test card {v}, any future expiry, any CVC",
    )
    k(
        B,
        "dkim_public_key",
        lambda: "p=MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQ" + r(B64, 60),
        "DNS TXT k1._domainkey: v=DKIM1; k=rsa; {v}",
    )
    k(
        B,
        "password_policy_talk",
        lambda: "",
        "Magento admin password policy: 12+ chars, lifetime 90 days, lockout after 6 failures",
        "{who}: the password field in the UPS settings page is for the old SOAP API, leave it empty",
    )
    k(
        B,
        "rotation_talk_no_value",
        lambda: "",
        "rotated the Klaviyo private key on {d}; updated Vercel env and the Make scenario, old key deleted",
        "reminder: NetSuite TBA token secrets only show once, generate a new token instead of hunting for it",
    )
    k(
        B,
        "metafield_key_sense",
        lambda: "custom.care_instructions",
        "metafield namespace.key = {v} (type multi_line_text_field)",
    )
    k(
        B,
        "design_token_sense",
        lambda: "--color-accent-500",
        "design token {v} used for sale badges",
    )
    k(
        B,
        "shop_domain",
        lambda: rng.choice(shops) + ".myshopify.com",
        "store domain {v}; primary domain redirects to it",
    )
    k(B, "shopify_theme_id", lambda: dig(12), "live theme id {v}, duplicate before editing")
    k(B, "make_scenario_id", lambda: dig(7), "Make scenario {v} errored on the Woo module (429)")
    k(B, "rma_number", lambda: "RMA-" + dig(6), "return {v} approved, label emailed")
    k(
        B,
        "affiliate_publisher_id",
        lambda: dig(6),
        "Awin advertiser id {v} and our publisher id both appear in the tracking link",
    )
    k(
        B,
        "coupon_hashed_style_id",
        lambda: "pc_" + r(ALNUM, 14),
        "Stripe promotion code object {v} (the customer-facing code is SUMMER10)",
    )
    k(B, "erp_guid", uuid, "Business Central item GUID {v} for the gift box")

    # ------------------------------------------------------------ more secrets
    k(
        S,
        "shopify_admin_api_token",
        lambda: "shpat_" + h(32),
        "Agent memory: {shop} store migration. Admin token {v} works for bulkOperationRunQuery, expires never.",
    )
    k(
        S,
        "klaviyo_private_api_key",
        lambda: "pk_" + h(34),
        "klaviyo:\n  private_key: {v}\n  public_key: Xy{n}",
        "Mailchimp -> Klaviyo move, {who} shared the private key in DM: {v}",
    )
    k(
        S,
        "hubspot_private_app_token",
        lambda: f"pat-na1-{uuid()}",
        'hubspot_client = HubSpot(access_token="{v}")',
    )
    k(
        S,
        "netsuite_consumer_secret",
        lambda: h(64),
        "Celigo connection NetSuite TBA -> Consumer Secret field: {v} (from integration record, shown once)",
    )
    k(
        S,
        "woocommerce_consumer_secret",
        lambda: "cs_" + h(40),
        "define( 'WC_API_SECRET', '{v}' ); // wp-config on staging, same as prod oops",
    )
    k(
        S,
        "magento_integration_access_token",
        lambda: r(LOW, 32),
        "env: MAGENTO_TOKEN={v} MAGENTO_BASE=https://b2b.{shop}.com",
    )
    k(
        S,
        "stripe_secret_key",
        lambda: "sk_live_" + r(ALNUM, 99),
        'stripe.api_key = "{v}"  # newer long-form key',
    )
    k(
        S,
        "ups_client_secret",
        lambda: r(ALNUM, 64),
        "ups oauth: curl -u 'kZ{h8}Ux:{v}' -d grant_type=client_credentials https://onlinetools.ups.com/security/v1/oauth/token",
    )
    k(
        S,
        "easypost_production_key",
        lambda: "EZAK" + h(54),
        'client = easypost.EasyPostClient("{v}")',
    )
    k(S, "shippo_live_token", lambda: "shippo_live_" + h(40), "SHIPPO_API_KEY={v}")
    k(
        S,
        "dhl_api_secret",
        lambda: r(ALNUM, 16),
        "DHL Parcel DE (Post & Paket) API: client id from dev portal, secret {v}, GKP user {shop}_api",
    )
    k(S, "fedex_client_secret", lambda: r(LOW, 32), "FEDEX_SECRET_KEY={v}\nFEDEX_ACCOUNT=7{n}12345")
    k(S, "twilio_auth_token", lambda: h(32), "client = Client('AC{h8}{h8}{h8}{h8}', '{v}')")
    k(
        S,
        "sendgrid_api_key",
        lambda: "SG." + r(B64U, 22) + "." + r(B64U, 43),
        "smtp.sendgrid.net:587 user apikey pass {v}",
    )
    k(
        S,
        "mailchimp_api_key",
        lambda: h(32) + "-us19",
        "curl -u anystring:{v} https://us19.api.mailchimp.com/3.0/lists",
    )
    k(
        S,
        "bigcommerce_access_token",
        lambda: r(LOW, 31),
        "BigCommerce API account file (downloaded txt):\nACCESS TOKEN: {v}\nCLIENT NAME: feeds",
    )
    k(
        S,
        "sfmc_client_secret",
        lambda: r(ALNUM, 24),
        '{{"grant_type":"client_credentials","client_id":"3k{h8}","client_secret":"{v}"}}',
    )
    k(
        S,
        "paypal_client_secret",
        lambda: "E" + r(B64U, 79),
        "Magento > Payment Methods > PayPal Express > API credentials: Client Secret {v}",
    )
    k(
        S,
        "braintree_private_key",
        lambda: h(32),
        "gateway = braintree.BraintreeGateway(Configuration(Environment.Production, merchant_id='{h8}', public_key='...', private_key='{v}'))",
    )
    k(
        S,
        "square_access_token",
        lambda: "EAAA" + r(B64U, 60),
        "Square webhook app production token (POS to Shopify) {v}",
    )
    k(
        S,
        "meta_capi_access_token",
        lambda: "EAA" + r(ALNUM, 180),
        "CAPI gateway config: pixel 1{n}..., token {v}",
    )
    k(
        S,
        "zapier_catch_hook_url",
        lambda: f"https://hooks.zapier.com/hooks/catch/{dig(7)}/{r(LOW, 6)}/",
        "Zap 'HubSpot deal won -> ShipStation order': POST {v}",
    )
    k(
        S,
        "make_webhook_url",
        lambda: f"https://hook.eu1.make.com/{r(LOW, 32)}",
        "Klaviyo flow webhook action points to {v}",
    )
    k(S, "netsuite_token_secret", lambda: h(64), "NS_TOKEN_SECRET={v}")
    k(
        S,
        "sap_service_user_password",
        pw,
        "SAP Business One Service Layer login body: CompanyDB SBO_PROD, UserName manager, Password {v}",
    )
    k(
        S,
        "aws_secret_access_key",
        lambda: r(ALNUM + "/+", 40),
        "export AWS_SECRET_ACCESS_KEY={v}  # feed-exporter user",
    )
    k(
        S,
        "vonage_api_secret",
        lambda: r(ALNUM, 16),
        "vonage = Vonage(Auth(api_key='{h8}', api_secret='{v}'))",
    )
    k(S, "postmark_server_token", uuid, "POSTMARK_API_TOKEN={v}")
    k(
        S,
        "adyen_hmac_key",
        lambda: h(64).upper(),
        "Adyen standard notification HMAC key (webhook verification): {v}",
    )
    k(
        S,
        "klaviyo_webhook_secret",
        lambda: r(B64U, 32),
        "signing secret for the Klaviyo system webhook: {v}",
    )
    k(S, "attentive_api_key", lambda: r(ALNUM, 44), "Attentive SMS private app API key: {v}")
    k(S, "gorgias_api_key", lambda: h(64), "Gorgias REST: user support@{shop}.com, API key {v}")

    # ------------------------------------------------------------- more benign
    k(
        B,
        "shopify_storefront_public_token",
        lambda: h(32),
        "Hydrogen .env: PUBLIC_STOREFRONT_API_TOKEN={v}, PRIVATE_STOREFRONT_API_TOKEN stays in Oxygen env",
    )
    k(
        B,
        "shopify_api_key_client_id",
        lambda: h(32),
        "SHOPIFY_API_KEY={v}  # this is the client id; SHOPIFY_API_SECRET comes from vault",
    )
    k(
        B,
        "gtm_container_id",
        lambda: "GTM-" + r(UP, 7),
        "server-side GTM container {v} on sgtm.{shop}.com",
    )
    k(
        B,
        "ga4_measurement_id",
        lambda: "G-" + r(UP, 10),
        "Measurement ID {v} (not the API secret for Measurement Protocol, that one we never wrote down)",
    )
    k(B, "meta_pixel_id", lambda: dig(15), "pixel {v} firing Purchase twice - dedupe via event_id")
    k(B, "tiktok_pixel_code", lambda: "C" + r(UP, 19), "ttq.load('{v}'); ttq.page();")
    k(
        B,
        "product_sku",
        lambda: f"{r(string.ascii_uppercase, 2)}{dig(6)}-{rng.choice(['S', 'M', 'L', 'XL'])}",
        "variant sku {v} missing weight, carrier rates fell back to flat",
    )
    k(
        B,
        "gtin13",
        lambda: "4" + dig(12),
        "EAN {v} duplicate between two variants, GS1 says it belongs to the blue one",
    )
    k(B, "gtin14", lambda: "1" + dig(13), "case pack GTIN-14 {v} for the wholesale listing")
    k(
        B,
        "order_number",
        lambda: f"{r(string.ascii_uppercase, 2)}-{dig(6)}",
        "order {v} fraud analysis: high risk, cancelled and restocked",
    )
    k(
        B,
        "magento_increment_id",
        lambda: "0000" + dig(5),
        "Magento order increment id {v} not exported to the WMS",
    )
    k(
        B,
        "woocommerce_order_id",
        lambda: dig(5),
        "WooCommerce order {v} stuck in pending payment, Stripe shows succeeded",
    )
    k(
        B,
        "discount_code",
        lambda: "BFCM" + r(UP, 6),
        "single-use codes like {v} generated for the SMS list",
    )
    k(B, "ups_tracking_number", lambda: "1Z" + r(UP, 6) + dig(10), "return label tracking {v}")
    k(B, "fedex_tracking_number", lambda: dig(15), "FedEx Ground {v} delayed by weather")
    k(B, "dhl_ecommerce_tracking", lambda: "GM" + dig(18), "DHL eCommerce {v} handed to USPS")
    k(B, "shopify_webhook_subscription_id", lambda: dig(13), "webhook id {v} topic app/uninstalled")
    k(
        B,
        "woocommerce_webhook_id",
        lambda: dig(3),
        "Woo webhook #{v} (order.updated) disabled after 5 failures; delivery URL is our own /wc-hook",
    )
    k(
        B,
        "bigcommerce_store_hash",
        lambda: r(LOW, 10),
        "BigCommerce store hash {v} (appears in every API path, not a credential)",
    )
    k(
        B,
        "stripe_publishable_key",
        lambda: "pk_live_" + r(ALNUM, 24),
        "Payment settings page > publishable key {v} (public)",
    )
    k(
        B,
        "stripe_test_publishable",
        lambda: "pk_test_" + r(ALNUM, 24),
        "test mode publishable key for the staging theme: {v}",
    )
    k(
        B,
        "stripe_customer_id",
        lambda: "cus_" + r(ALNUM, 14),
        "customer {v} has two default payment methods",
    )
    k(
        B,
        "stripe_payment_intent_id",
        lambda: "pi_" + r(ALNUM, 24),
        "disputed payment {v}, evidence due {d}",
    )
    k(B, "paypal_transaction_id", lambda: r(UP, 17), "PayPal transaction {v} refunded partially")
    k(
        B,
        "paypal_client_id",
        lambda: "A" + r(B64U, 79),
        "PAYPAL_CLIENT_ID={v} # public, used in the JS SDK url; secret elsewhere",
    )
    k(B, "adyen_client_key", lambda: "test_" + r(UP, 32), "Adyen test client key {v}")
    k(
        B,
        "adyen_psp_reference",
        lambda: r(UP, 16),
        "Adyen pspReference {v} - AUTHORISATION false, refused by issuer",
    )
    k(
        B,
        "adyen_merchant_account",
        lambda: rng.choice(shops).replace("-", "").title() + "ECOM",
        "merchantAccount: {v}",
    )
    k(
        B,
        "square_location_id",
        lambda: "L" + r(UP, 12),
        "Square location id {v} for the pop-up shop",
    )
    k(B, "algolia_app_id", lambda: r(UP, 10), "Algolia application id {v}")
    k(
        B,
        "recaptcha_site_key",
        lambda: "6L" + r(B64U, 38),
        'data-sitekey="{v}" on the newsletter signup',
    )
    k(B, "hcaptcha_sitekey", uuid, "hCaptcha sitekey {v} (public)")
    k(B, "hashed_email_audience", lambda: h(64), "TikTok audience file row: email_sha256={v}")
    k(B, "hashed_phone_audience", lambda: h(64), "ph (sha256 of +4915...): {v}")
    k(
        B,
        "md5_email_mailchimp",
        lambda: h(32),
        "Mailchimp subscriber_hash (md5 of lowercase email): {v}",
    )
    k(
        B,
        "twilio_account_sid",
        lambda: "AC" + h(32),
        "TWILIO_ACCOUNT_SID={v}\nTWILIO_AUTH_TOKEN=  # set in Render dashboard",
    )
    k(
        B,
        "twilio_message_sid",
        lambda: "SM" + h(32),
        "message {v} failed with 30007 (carrier filtering)",
    )
    k(
        B,
        "twilio_api_key_sid_only",
        lambda: "SK" + h(32),
        "Twilio API key sid {v}; the secret half was shown once and stored in the vault",
    )
    k(
        B,
        "sms_short_code",
        lambda: dig(5),
        "SMS short code {v} approved for T-Mobile; STOP/HELP copy done",
    )
    k(
        B,
        "aws_access_key_id_only",
        lambda: "AKIA" + r(UP, 16),
        "CloudTrail shows calls from {v} (key id only) at 03:12",
    )
    k(
        B,
        "masked_admin_token",
        lambda: "shpat_" + h(4) + "…" + h(4),
        "token {v} (first/last 4) belongs to the ShipBob app",
    )
    k(
        B,
        "masked_netsuite_secret",
        lambda: "****" + h(6),
        "NetSuite token secret shows {v} in the Celigo UI",
    )
    k(
        B,
        "masked_consumer_secret",
        lambda: "cs_" + "*" * 36 + h(4),
        "WooCommerce REST keys table: consumer secret {v}, last access {d}",
    )
    k(
        B,
        "redacted_log_line",
        lambda: "Bearer [REDACTED]",
        "2026-11-{n} ERROR hubspot sync 401 Authorization: {v} url=/crm/v3/objects/deals",
    )
    k(
        B,
        "example_placeholder_key",
        lambda: "pat-na1-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx",
        "HubSpot token format for the onboarding doc: {v}",
    )
    k(
        B,
        "example_placeholder_key2",
        lambda: "EZAK_YOUR_PRODUCTION_KEY_HERE",
        "easypost.api_key = '{v}'  # template, fill from env",
    )
    k(
        B,
        "example_marked_stripe",
        lambda: "sk_live_EXAMPLEEXAMPLEEXAMPLE00",
        "training slide: never paste keys like {v} into Slack (made-up example)",
    )
    k(
        B,
        "template_placeholder",
        lambda: "${{ secrets.UPS_CLIENT_SECRET }}",
        "workflow: UPS_CLIENT_SECRET: {v}",
    )
    k(
        B,
        "env_var_reference",
        lambda: "process.env.SHOPIFY_API_SECRET",
        "hmac check uses {v} - make sure Vercel has it for preview too",
    )
    k(
        B,
        "vault_reference",
        lambda: "vault kv get -field=consumer_secret kv/erp/netsuite",
        "to fetch: {v}",
    )
    k(
        B,
        "secret_manager_ref",
        lambda: "projects/shop-prod/secrets/klaviyo-private-key/versions/latest",
        "Cloud Run mounts {v} as KLAVIYO_KEY",
    )
    k(
        B,
        "easypost_shipment_id",
        lambda: "shp_" + h(32),
        "{v} rate mismatch: predicted $8.12, charged $11.40",
    )
    k(
        B,
        "easypost_address_id",
        lambda: "adr_" + h(32),
        "verified address {v} failed delivery verification (apt missing)",
    )
    k(
        B,
        "shippo_object_id",
        lambda: h(32),
        "Shippo rate object_id {v} chosen (USPS Ground Advantage)",
    )
    k(
        B,
        "shopify_webhook_hmac_header",
        lambda: r(B64, 43) + "=",
        "test webhook sent from admin, hmac {v}, verification OK",
    )
    k(
        B,
        "stripe_signature_header",
        lambda: f"t={dig(10)},v1={h(64)},v0={h(64)}",
        "stripe-signature: {v}",
    )
    k(
        B,
        "klaviyo_metric_id",
        lambda: r(ALNUM, 6),
        "Placed Order metric id {v} used in the flow filter",
    )
    k(
        B,
        "klaviyo_flow_id",
        lambda: r(ALNUM, 6),
        "abandoned checkout flow {v} paused during migration",
    )
    k(
        B,
        "hubspot_deal_id",
        lambda: dig(11),
        "deal {v} stuck in 'closed won' without a Shopify draft order",
    )
    k(B, "sfmc_mid", lambda: "5" + dig(8), "SFMC business unit MID {v} (EU)")
    k(
        B,
        "sfmc_data_extension_key",
        lambda: uuid().upper(),
        "data extension external key {v} for 'Cart_Abandon_DE'",
    )
    k(B, "git_commit_sha", lambda: h(40), "liquid fix merged as {v}")
    k(
        B,
        "docker_image_digest",
        lambda: "sha256:" + h(64),
        "feed-exporter image {v} deployed to prod",
    )
    k(
        B,
        "bcrypt_hash",
        lambda: "$2b$12$" + r(ALNUM + "./", 53),
        "WooCommerce customer password is stored like {v} (phpass/bcrypt), no plaintext",
    )
    k(
        B,
        "magento_admin_password_hash",
        lambda: h(64) + ":" + r(ALNUM, 32) + ":2",
        "admin_user.password row (sha256 + salt + version): {v}",
    )
    k(B, "sap_vendor_number", lambda: "0000" + dig(6), "SAP vendor {v} = DHL Express DE")
    k(
        B,
        "netsuite_account_id",
        lambda: dig(7) + "_SB1",
        "sandbox account id {v} refreshed from prod on {d}",
    )
    k(
        B,
        "netsuite_script_id",
        lambda: "customscript_" + r(string.ascii_lowercase, 8) + "_rl",
        "RESTlet {v} deploy 1 is the order import",
    )
    k(B, "purchase_order_number", lambda: "PO-" + dig(7), "{v} from the 3PL short-shipped 40 units")
    k(B, "invoice_number", lambda: "INV-" + dig(6), "invoice {v} paid by ACH")
    k(
        B,
        "gift_card_last4",
        lambda: "•••• " + r(UP, 4),
        "gift card ending {v} balance check only, full code never stored",
    )
    k(
        B,
        "test_card_number",
        lambda: "4111 1111 1111 1111",
        "Authorize.Net sandbox test card {v}, exp 12/30",
    )
    k(
        B,
        "password_policy_talk",
        lambda: "",
        "FedEx developer portal now wants a password rotation every 90 days, put a reminder for {who}",
    )
    k(
        B,
        "rotation_talk_no_value",
        lambda: "",
        "Shopify app secret rotated via Partner dashboard 'Generate new secret', old secret valid 24h",
    )
    k(
        B,
        "key_sense_other",
        lambda: "key=product_type",
        "collection rule {v} equals 'Candles' broke after rename",
    )
    k(
        B,
        "token_sense_other",
        lambda: "{{ product.title | escape }}",
        "Liquid token {v} renders blank in the email template",
    )
    k(
        B,
        "secret_sense_other",
        lambda: "",
        "the 'Secret Sale' collection is password-protected via the storefront page, password shared in the email blast to VIPs tomorrow - no, we use customer tags now",
    )
    k(B, "ups_shipper_number", lambda: r(UP, 6), "ShipperNumber {v} in the rate request body")
    k(B, "dhl_account_number", lambda: "9" + dig(8), "DHL Express account {v} (import)")
    k(
        B,
        "affiliate_click_id",
        lambda: r(ALNUM, 22),
        "irclickid={v} captured on landing, passed to impact on conversion",
    )
    k(
        B,
        "affiliate_tracking_link",
        lambda: f"https://www.awin1.com/cread.php?awinmid={dig(5)}&awinaffid={dig(6)}",
        "tracking link for the blog partner: {v}",
    )
    k(B, "gclid_value", lambda: "Cj0KCQ" + r(B64U, 80), "order note carried gclid {v}")
    k(B, "fbclid_value", lambda: "IwAR" + r(B64U, 56), "landing url had fbclid={v}")
    k(
        B,
        "shopify_checkout_cart_id",
        lambda: "gid://shopify/Cart/" + r(ALNUM, 26),
        "abandoned cart gid {v} in the Klaviyo event",
    )
    k(B, "uuid_request_id", uuid, "X-Request-Id {v} from the 502 on /admin/api/graphql.json")
    k(
        B,
        "shopify_location_id",
        lambda: "gid://shopify/Location/" + dig(11),
        "warehouse location {v} set as fulfilment priority 1",
    )
    k(
        B,
        "wms_lot_number",
        lambda: "LOT" + dig(6) + r(string.ascii_uppercase, 1),
        "recall: lot {v} pulled from sale",
    )
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

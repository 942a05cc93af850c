"""Blind secrets corpus 25: marketing-tech, media and streaming engineers.

Brief: ad platforms (Google Ads developer tokens, Meta/Facebook and Instagram access
tokens, TikTok, LinkedIn, X/Twitter API keys and bearer tokens), analytics and
attribution, email and SMS marketing tools, CDNs and object storage, video and live
streaming (stream keys, RTMP URLs, signed URLs), social media management tools; plus
hard look-alikes (pixel ids, measurement ids, campaign ids, UTM values, public embed
keys, signed-URL signatures that expired, video ids).

Written blind on 2026-12-06: the author did not read the detector, its tests or any
earlier corpus.

Run: python benchmarks/data/blind_secrets/blind_secrets_25.py OUT.jsonl
(without an argument the JSONL goes to stdout). Standard library only; every random
value comes from random.Random(SEED) inside corpus(). No real credential anywhere.

Kinds
-----
secret: google_ads_developer_token, google_oauth_refresh_token, google_oauth_client_secret,
  google_server_api_key, meta_user_access_token, meta_system_user_token, meta_app_secret,
  instagram_graph_token, tiktok_access_token, tiktok_app_secret, linkedin_access_token,
  linkedin_client_secret, x_bearer_token, x_consumer_secret, x_access_token_pair,
  x_oauth2_client_secret, pinterest_access_token, mailchimp_api_key, sendgrid_api_key,
  mailgun_api_key, klaviyo_private_key, twilio_auth_token, brevo_api_key,
  postmark_server_token, hubspot_private_app_token, mixpanel_service_account_secret,
  amplitude_secret_key, ga4_measurement_protocol_secret, branch_secret_key,
  cloudflare_api_token, fastly_api_token, akamai_edgegrid_secret, aws_secret_access_key,
  gcs_hmac_secret, r2_secret_access_key, backblaze_application_key, azure_storage_key,
  azure_sas_live, youtube_stream_key, twitch_stream_key, facebook_live_stream_key,
  rtmp_url_with_key, srt_passphrase, mux_token_secret, vimeo_access_token,
  cloudfront_signed_url_live, cloudfront_private_key, s3_presigned_url_live,
  buffer_access_token, sfmc_client_secret, iterable_api_key, onesignal_rest_key,
  messagebird_access_key, vonage_api_secret, shopify_admin_token, slack_webhook_url,
  wordpress_app_password, sftp_ingest_password, warehouse_dsn_password,
  gcp_service_account_key, jwplayer_api_secret, brightcove_client_secret,
  kaltura_admin_secret, google_session_cookie, mux_webhook_secret, mailjet_secret_key,
  sparkpost_api_key, telegram_bot_token, discord_webhook_url
benign: meta_pixel_id, ga4_measurement_id, gtm_container_id, google_ads_conversion_tag,
  google_ads_customer_id, campaign_id, utm_parameters, tiktok_pixel_code,
  linkedin_partner_id, x_pixel_id, youtube_video_id, vimeo_video_id, mux_playback_id,
  cloudflare_stream_uid, expired_cloudfront_signature, expired_s3_presigned_url,
  mixpanel_project_token, amplitude_browser_api_key, klaviyo_site_id, mapbox_public_token,
  algolia_search_only_key, youtube_channel_id, instagram_media_id, facebook_page_id,
  meta_app_id, tweet_id, cdn_etag, sri_integrity_hash, cloudfront_key_pair_id,
  aws_access_key_id_only, public_object_url, hls_playlist_url, rtmp_ingest_without_key,
  stream_key_placeholder, redacted_token, vault_reference, revoked_token_stated,
  provider_docs_example, hashed_email_audience, gclid_click_id, fbclid_click_id,
  msclkid_click_id, ga_client_cookie, fbp_cookie, event_dedup_id, git_commit_sha,
  sendgrid_template_id, mailchimp_audience_id, twilio_sid_only, keyframe_sense,
  token_other_sense, password_protected_talk, secret_other_sense, rotation_talk,
  bitly_short_link, linkedin_urn, mux_public_signing_key, dkim_public_record,
  ads_txt_line, adsense_publisher_id, tcf_consent_string, onesignal_app_id,
  firebase_web_config, file_checksum, trace_id, branch_public_key, cloudinary_api_key_id,
  recaptcha_site_key, twitch_client_id, youtube_playlist_id, brightcove_player_id,
  env_template_blank
"""

# ruff: noqa: E501  (corpus texts are long single-line strings)

import json
import random
import string
import sys

SEED = 525025

ALNUM = string.ascii_letters + string.digits
LOWER = string.ascii_lowercase + string.digits
UPPER = string.ascii_uppercase + string.digits
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
B64URL = ALNUM + "-_"


def corpus() -> list[dict]:
    r = random.Random(SEED)

    def s(n: int, alpha: str = ALNUM) -> str:
        return "".join(r.choice(alpha) for _ in range(n))

    def d(n: int) -> str:
        return str(r.randint(1, 9)) + s(n - 1, string.digits)

    def uuid() -> str:
        return "-".join(
            [s(8, HEX), s(4, HEX), "4" + s(3, HEX), r.choice("89ab") + s(3, HEX), s(12, HEX)]
        )

    def pem(head: str, lines: int) -> str:
        body = "\n".join(s(64, B64) for _ in range(lines))
        return (
            f"-----BEGIN {head}-----\nMII{s(61, B64)}\n{body}\n{s(20, B64)}==\n-----END {head}-----"
        )

    rows: list[dict] = []

    def add(label: str, kind: str, gen, *templates: str) -> None:
        for t in templates:
            v = gen()
            text = t.replace("{v}", v)
            fills = {
                "{d}": lambda: d(10),
                "{h}": lambda: s(8, HEX),
                "{u}": uuid,
                "{ak}": lambda: "AKIA" + s(16, string.ascii_uppercase + "234567"),
                "{sid}": lambda: "AC" + s(32, HEX),
            }
            for ph, fill in fills.items():
                while ph in text:
                    text = text.replace(ph, fill(), 1)
            rows.append({"label": label, "kind": kind, "text": text, "value": v})

    S, B = "secret", "benign"

    # ------------------------------------------------------------------ secrets
    add(
        S,
        "google_ads_developer_token",
        lambda: s(22, B64URL),
        "Google Ads API: developer token for MCC 412-880-1934 is {v} (basic access approved).",
        "google-ads.yaml on the reporting box:\ndeveloper_token: {v}\nlogin_customer_id: 4128801934\nuse_proto_plus: True",
        "remember: GOOGLE_ADS_DEVELOPER_TOKEN={v} -- the bid script fails with DEVELOPER_TOKEN_NOT_APPROVED without it",
    )
    add(
        S,
        "google_oauth_refresh_token",
        lambda: "1//0" + s(99, B64URL),
        "refresh_token for the ads-reporting@ service login: {v}",
        "Got a fresh refresh token after consent screen re-approval:\n{v}\nstore it in google-ads.yaml under refresh_token",
        "YouTube upload bot auth -> refresh_token={v}; client id is the one ending .apps.googleusercontent.com",
    )
    add(
        S,
        "google_oauth_client_secret",
        lambda: "GOCSPX-" + s(28, B64URL),
        "OAuth desktop client for the Ads scripts: client_secret {v}",
        '"installed": {"client_id": "{d}-abc.apps.googleusercontent.com", "client_secret": "{v}"}',
        "GA4 admin API app -> secret rotated today, new one is {v}",
    )
    add(
        S,
        "google_server_api_key",
        lambda: "AIza" + s(35, B64URL),
        "YouTube Data API server key (IP-restricted to the ingest workers, NOT the browser one): {v}",
        "YT_API_KEY={v}  # quota 1M/day, used by the comments scraper cron",
        "the backend key for Google Fonts/Sheets export is {v} - do not ship it to the frontend",
    )
    add(
        S,
        "meta_user_access_token",
        lambda: "EAAB" + s(190, ALNUM),
        "Long-lived user token for the Ads Manager pulls (expires in 60 days): {v}",
        "curl -G https://graph.facebook.com/v19.0/act_{d}/insights -d access_token={v}",
        "Marketing API token from Graph Explorer, worked for the audience upload:\n{v}",
    )
    add(
        S,
        "meta_system_user_token",
        lambda: "EAAG" + s(200, ALNUM),
        "System user 'capi-server' never-expiring token: {v}",
        "Conversions API: META_CAPI_TOKEN={v}\npixel 1183427765023419, test_event_code unset in prod",
        "Business Manager > System users > generate token gave me {v}; scopes ads_management, business_management",
    )
    add(
        S,
        "meta_app_secret",
        lambda: s(32, HEX),
        "Facebook app 'Brandwatch Sync' app secret: {v} (used to compute appsecret_proof)",
        "FB_APP_ID=2841937740011 FB_APP_SECRET={v}",
        "appsecret_proof = hmac_sha256(key='{v}', msg=access_token) -- the key is the app secret from Settings > Basic",
    )
    add(
        S,
        "instagram_graph_token",
        lambda: "IGQVJ" + s(170, B64URL),
        "Instagram Basic Display long-lived token for @northwind.outdoors: {v}",
        "IG feed widget backend: INSTAGRAM_TOKEN={v} (refresh every 50 days via /refresh_access_token)",
        "token for the IG insights pull, good until March:\n{v}",
    )
    add(
        S,
        "tiktok_access_token",
        lambda: s(40, HEX),
        "TikTok Marketing API access token (advertiser 7{d}): {v}",
        "curl -H 'Access-Token: {v}' https://business-api.tiktok.com/open_api/v1.3/report/integrated/get/",
        "tiktok long-term token from the auth callback = {v}; it does not expire unless revoked",
    )
    add(
        S,
        "tiktok_app_secret",
        lambda: s(40, HEX),
        "TikTok for Business app: app_id 7{d}, secret {v}",
        "TIKTOK_APP_SECRET={v}\nneeded to exchange auth_code for access_token",
        "tiktok events api webhook - app secret is {v}, keep it server side",
    )
    add(
        S,
        "linkedin_access_token",
        lambda: "AQV" + s(160, B64URL),
        "LinkedIn Marketing API token for the campaign manager sync (r_ads_reporting): {v}",
        "Authorization: Bearer {v}\nLinkedIn-Version: 202401",
        "li 3-legged token, expires in 60 days, from Priya's admin seat:\n{v}",
    )
    add(
        S,
        "linkedin_client_secret",
        lambda: s(16, ALNUM),
        "LinkedIn app 'Lead Gen Sync': client id 86{h}, client secret {v}",
        "LINKEDIN_CLIENT_SECRET={v}",
        "the LinkedIn dev portal shows the primary client secret as {v} - copied before it got masked",
    )
    add(
        S,
        "x_bearer_token",
        lambda: "AAAAAAAAAAAAAAAAAAAAA" + s(22, ALNUM) + "%3D" + s(50, ALNUM),
        "X API v2 bearer token for the mention listener: {v}",
        "TWITTER_BEARER_TOKEN={v}",
        "curl -H \"Authorization: Bearer {v}\" 'https://api.x.com/2/tweets/search/recent?query=%23launchday'",
    )
    add(
        S,
        "x_consumer_secret",
        lambda: s(50, ALNUM),
        "Twitter app keys: API key {h}{h}xq1, API key secret {v}",
        'consumer_secret = "{v}"  # X developer portal, project Social-Listening',
        "X/Twitter API Key Secret (regenerated after intern left): {v}",
    )
    add(
        S,
        "x_access_token_pair",
        lambda: s(45, ALNUM),
        "@brand account user tokens: access token {d}99-{h}, access token secret {v}",
        "ACCESS_TOKEN_SECRET={v}\n(twitter OAuth 1.0a, needed for posting media)",
        "For the scheduler posting as @acme_deals use oauth_token_secret={v}",
    )
    add(
        S,
        "x_oauth2_client_secret",
        lambda: s(50, B64URL),
        "X OAuth 2.0 client secret for the PKCE confidential client: {v}",
        "x_oauth:\n  client_id: {h}TmVx\n  client_secret: {v}",
        "new twitter oauth2 client secret -> {v}",
    )
    add(
        S,
        "pinterest_access_token",
        lambda: "pina_" + s(96, UPPER),
        "Pinterest API v5 token for the catalog feed: {v}",
        "PINTEREST_ACCESS_TOKEN={v}",
        "pin scheduler uses bearer {v} (ads:read, pins:write)",
    )
    add(
        S,
        "mailchimp_api_key",
        lambda: s(32, HEX) + "-us" + str(r.randint(1, 21)),
        "Mailchimp API key for the newsletter sync: {v}",
        "MAILCHIMP_KEY={v}\nMAILCHIMP_LIST=9c1a4e7d2b",
        "mc key (account owner: growth@) {v} - the datacenter suffix tells you the API host",
    )
    add(
        S,
        "sendgrid_api_key",
        lambda: "SG." + s(22, B64URL) + "." + s(43, B64URL),
        "SendGrid full-access key for transactional mail: {v}",
        "SENDGRID_API_KEY='{v}'",
        "mail service env in prod:\nEMAIL_PROVIDER=sendgrid\nSENDGRID_API_KEY={v}\nFROM=hello@northwind.example",
    )
    add(
        S,
        "mailgun_api_key",
        lambda: "key-" + s(32, HEX),
        "Mailgun private API key: {v} (domain mg.northwind.example)",
        "curl -s --user 'api:{v}' https://api.mailgun.net/v3/mg.northwind.example/messages",
        "MAILGUN_API_KEY={v}",
    )
    add(
        S,
        "klaviyo_private_key",
        lambda: "pk_" + s(34, HEX),
        "Klaviyo private API key (full access) for the Shopify flow sync: {v}",
        "Authorization: Klaviyo-API-Key {v}\nrevision: 2024-02-15",
        "klaviyo private key is {v}; the 6-char public site id is different and fine to expose",
    )
    add(
        S,
        "twilio_auth_token",
        lambda: s(32, HEX),
        "Twilio SMS: account {sid}, auth token {v}",
        "TWILIO_ACCOUNT_SID={sid}\nTWILIO_AUTH_TOKEN={v}",
        "for the SMS opt-in webhook signature check use the auth token {v}",
    )
    add(
        S,
        "brevo_api_key",
        lambda: "xkeysib-" + s(64, HEX) + "-" + s(16, ALNUM),
        "Brevo (ex-Sendinblue) API v3 key: {v}",
        "api-key: {v}",
        "BREVO_API_KEY={v} -- used by the abandoned-cart job",
    )
    add(
        S,
        "postmark_server_token",
        lambda: uuid(),
        "Postmark server API token (Transactional stream): {v}",
        "X-Postmark-Server-Token: {v}",
        "POSTMARK_SERVER_TOKEN={v}",
    )
    add(
        S,
        "hubspot_private_app_token",
        lambda: "pat-na1-" + uuid(),
        "HubSpot private app 'forms-to-warehouse' access token: {v}",
        "HUBSPOT_TOKEN={v}",
        "hubspot token w/ crm.objects.contacts.write: {v}",
    )
    add(
        S,
        "mixpanel_service_account_secret",
        lambda: s(32, ALNUM),
        "Mixpanel service account export-bot.{h}.mp-service-account, secret {v}",
        "MP_SA_USERNAME=export-bot.{h}.mp-service-account\nMP_SA_SECRET={v}",
        "the Mixpanel SA secret for the raw export API: {v}",
    )
    add(
        S,
        "amplitude_secret_key",
        lambda: s(32, HEX),
        "Amplitude export API: api key {h}{h}{h}{h} (public), SECRET key {v}",
        "AMPLITUDE_SECRET_KEY={v}",
        "basic auth for amplitude dashboard REST = api_key:secret_key, secret part is {v}",
    )
    add(
        S,
        "ga4_measurement_protocol_secret",
        lambda: s(22, B64URL),
        "GA4 Measurement Protocol api_secret for server events: {v}",
        "POST https://www.google-analytics.com/mp/collect?measurement_id=G-7QK2M9XW1B&api_secret={v}",
        "GA4_API_SECRET={v} (Admin > Data streams > Measurement Protocol API secrets)",
    )
    add(
        S,
        "branch_secret_key",
        lambda: "secret_live_" + s(32, ALNUM),
        "Branch.io secret for the deep-link export API: {v}",
        "BRANCH_SECRET={v}",
        "branch_key is public but the branch_secret is {v} -- keep that one out of the app bundle",
    )
    add(
        S,
        "cloudflare_api_token",
        lambda: s(40, B64URL),
        "Cloudflare API token (Zone.Cache Purge + DNS edit on all zones): {v}",
        "CF_API_TOKEN={v}",
        "curl -X POST .../zones/{h}/purge_cache -H 'Authorization: Bearer {v}'",
    )
    add(
        S,
        "fastly_api_token",
        lambda: s(32, B64URL),
        "Fastly API token for purge-all from CI: {v}",
        "Fastly-Key: {v}",
        "FASTLY_API_TOKEN={v} (global scope, engineering user)",
    )
    add(
        S,
        "akamai_edgegrid_secret",
        lambda: s(43, B64) + "=",
        "~/.edgerc\n[default]\nclient_secret = {v}\nhost = akab-{h}.luna.akamaiapis.net\naccess_token = akab-{h}-{h}",
        "Akamai API client secret for fast purge: {v}",
        "edgegrid creds rotated; client_secret now {v}",
    )
    add(
        S,
        "aws_secret_access_key",
        lambda: s(40, ALNUM + "+/"),
        "media-uploads IAM user: {ak} / {v}",
        "[assets-prod]\naws_access_key_id = {ak}\naws_secret_access_key = {v}",
        "AWS_SECRET_ACCESS_KEY={v} for the thumbnail lambda deploy",
    )
    add(
        S,
        "gcs_hmac_secret",
        lambda: s(40, B64),
        "GCS interoperability HMAC key for the creative bucket: access GOOG1E{h}{h}, secret {v}",
        "rclone gcs-s3 remote: secret_access_key = {v}",
        "HMAC secret for gs://creative-assets (S3-compat mode): {v}",
    )
    add(
        S,
        "r2_secret_access_key",
        lambda: s(64, HEX),
        "Cloudflare R2 token for the video-masters bucket: secret access key {v}",
        "R2_SECRET_ACCESS_KEY={v}\nR2_ENDPOINT=https://{h}{h}{h}{h}.r2.cloudflarestorage.com",
        "r2 s3 creds -> key id {h}{h}{h}{h}, secret {v}",
    )
    add(
        S,
        "backblaze_application_key",
        lambda: "K005" + s(27, ALNUM),
        "B2 app key for the archive bucket: keyID 005{h}{h}0000000003, applicationKey {v}",
        "B2_APPLICATION_KEY={v}",
        "backblaze key (write-only on vod-archive) {v}",
    )
    add(
        S,
        "azure_storage_key",
        lambda: s(86, B64) + "==",
        "DefaultEndpointsProtocol=https;AccountName=mediastoreprod;AccountKey={v};EndpointSuffix=core.windows.net",
        "Azure storage key1 for mediastoreprod: {v}",
        "AZURE_STORAGE_KEY={v}",
    )
    add(
        S,
        "azure_sas_live",
        lambda: s(43, ALNUM) + "%3D",
        "SAS for the upload container, valid till 2028-01-01:\nhttps://mediastoreprod.blob.core.windows.net/uploads?sv=2022-11-02&sp=racwl&se=2028-01-01T00:00:00Z&spr=https&sig={v}",
        "partner drop SAS (write, expires 2027-12-31): ?sv=2023-01-03&ss=b&srt=co&sp=w&se=2027-12-31T23:59:00Z&sig={v}",
        "AZURE_SAS_SIG={v} - container sas, se=2029",
    )
    add(
        S,
        "youtube_stream_key",
        lambda: "-".join(s(4, LOWER) for _ in range(5)),
        "YouTube Live stream key for the Thursday keynote: {v}",
        "OBS > Stream > Service: YouTube - RTMPS, stream key {v}",
        "yt persistent stream key (the 'Default stream key'): {v}",
    )
    add(
        S,
        "twitch_stream_key",
        lambda: "live_" + d(9) + "_" + s(30, ALNUM),
        "Twitch stream key for the brand channel: {v}",
        "ffmpeg ... -f flv rtmp://live.twitch.tv/app/{v}",
        "TWITCH_STREAM_KEY={v}",
    )
    add(
        S,
        "facebook_live_stream_key",
        lambda: "FB-" + d(16) + "-0-" + s(40, B64URL),
        "FB Live persistent stream key for the page: {v}",
        "rtmps://live-api-s.facebook.com:443/rtmp/{v}",
        "facebook live key for Saturday's session {v} (persistent, reusable)",
    )
    add(
        S,
        "rtmp_url_with_key",
        lambda: s(24, LOWER),
        "Restream destination: rtmp://ingest.cdn-live.example.net/live/{v}",
        "Wowza ingest for the venue encoder: rtmp://203.0.113.40:1935/live/{v} (the last path part is the key)",
        "encoder config:\nurl: rtmp://origin.streamhub.example.com/app\nkey: {v}",
    )
    add(
        S,
        "srt_passphrase",
        lambda: s(24, ALNUM),
        "srt://ingest.example.tv:9000?streamid=#!::r=live/main,m=publish&passphrase={v}&pbkeylen=32",
        "SRT caller encryption passphrase for the OB van: {v}",
        "vMix SRT output -> passphrase {v}, latency 2000",
    )
    add(
        S,
        "mux_token_secret",
        lambda: s(75, B64),
        "Mux access token: id {u}, secret {v}",
        "MUX_TOKEN_ID={u}\nMUX_TOKEN_SECRET={v}",
        "mux API secret (video full access) {v}",
    )
    add(
        S,
        "vimeo_access_token",
        lambda: s(32, HEX),
        "Vimeo API personal access token (upload, edit, private): {v}",
        "Authorization: bearer {v}\nAccept: application/vnd.vimeo.*+json;version=3.4",
        "VIMEO_TOKEN={v}",
    )
    add(
        S,
        "cloudfront_signed_url_live",
        lambda: s(170, B64URL) + "__",
        "Signed URL for the reviewer (expires 2027-06-30): https://d3x9example.cloudfront.net/masters/ep04.mp4?Expires=1814400000&Signature={v}&Key-Pair-Id=K2JCJMDEHXQW5F",
        "Partner screener link, valid one year:\nhttps://media.example.com/screeners/film.m3u8?Expires=1830000000&Key-Pair-Id=K1Z3EXAMPLEQ&Signature={v}",
        "CloudFront Signature param for the VIP VOD, good until 2028: {v}",
    )
    add(
        S,
        "cloudfront_private_key",
        lambda: pem("RSA PRIVATE KEY", 6),
        "CloudFront key-group signer private key (key id K2JCJMDEHXQW5F):\n{v}",
        "private_key.pem for signed cookies:\n{v}",
        "{v}",
    )
    add(
        S,
        "s3_presigned_url_live",
        lambda: s(64, HEX),
        "presigned PUT for the agency upload (7 days, created today): https://creative-drop.s3.amazonaws.com/in/brief.zip?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential={ak}%2F20261206%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20261206T220000Z&X-Amz-Expires=604800&X-Amz-SignedHeaders=host&X-Amz-Signature={v}",
        "X-Amz-Signature={v} (the download link I sent the editor, still valid through next week)",
        "still-live presign for the raw footage: ...&X-Amz-Expires=604800&X-Amz-Signature={v}",
    )
    add(
        S,
        "buffer_access_token",
        lambda: "1/" + s(32, HEX),
        "Buffer access token for the scheduling bot: {v}",
        "BUFFER_TOKEN={v}",
        "buffer api: access_token={v} (profile ids in sheet)",
    )
    add(
        S,
        "sfmc_client_secret",
        lambda: s(24, ALNUM),
        "Marketing Cloud installed package 'journey-sync': client_id {h}{h}{h}, client_secret {v}",
        "SFMC_CLIENT_SECRET={v}\nSFMC_AUTH_BASE=https://mc{h}.auth.marketingcloudapis.com/",
        "sfmc api integration secret: {v}",
    )
    add(
        S,
        "iterable_api_key",
        lambda: s(32, HEX),
        "Iterable server-side API key (standard, not JS): {v}",
        "Api-Key: {v}",
        "ITERABLE_API_KEY={v} for the catalog push",
    )
    add(
        S,
        "onesignal_rest_key",
        lambda: "os_v2_app_" + s(110, "abcdefghijklmnopqrstuvwxyz234567"),
        "OneSignal REST API key for server push: {v}",
        "Authorization: Key {v}",
        "ONESIGNAL_REST_API_KEY={v}",
    )
    add(
        S,
        "messagebird_access_key",
        lambda: s(25, ALNUM),
        "MessageBird live access key for SMS campaigns: {v}",
        "Authorization: AccessKey {v}",
        "MESSAGEBIRD_KEY={v} (live, not test_)",
    )
    add(
        S,
        "vonage_api_secret",
        lambda: s(16, ALNUM),
        "Vonage SMS: api_key {h}, api_secret {v}",
        "VONAGE_API_SECRET={v}",
        "nexmo creds for the OTP fallback: secret {v}",
    )
    add(
        S,
        "shopify_admin_token",
        lambda: "shpat_" + s(32, HEX),
        "Shopify custom app Admin API token for the product feed: {v}",
        "X-Shopify-Access-Token: {v}",
        "SHOPIFY_ADMIN_TOKEN={v} (read_products, read_orders)",
    )
    add(
        S,
        "slack_webhook_url",
        lambda: (
            "https://hooks.slack.com/services/T"
            + s(8, UPPER)
            + "/B"
            + s(10, UPPER)
            + "/"
            + s(24, ALNUM)
        ),
        "campaign budget alerts post to {v}",
        "SLACK_WEBHOOK={v}",
        "the #social-alerts incoming webhook is {v}",
    )
    add(
        S,
        "wordpress_app_password",
        lambda: " ".join(s(4, ALNUM) for _ in range(6)),
        "WP application password for the blog auto-poster (user: content-bot): {v}",
        "curl --user 'content-bot:{v}' https://blog.example.com/wp-json/wp/v2/posts",
        "wordpress app pw -> {v}",
    )
    add(
        S,
        "sftp_ingest_password",
        lambda: (
            r.choice(["Tundra", "Falcon", "Meadow", "Copper"])
            + s(4, string.digits)
            + r.choice("!#$%")
            + s(6, ALNUM)
        ),
        "Agency SFTP for raw footage: sftp://ingest@files.example.net password {v}",
        "Aspera login for the broadcaster delivery: user northwind_dl / pass {v}",
        "FTP creds for the DOOH screen playlist upload: login screens, password: {v}",
    )
    add(
        S,
        "warehouse_dsn_password",
        lambda: s(20, ALNUM),
        "attribution warehouse: postgresql://attrib_rw:{v}@warehouse.internal:5432/attribution",
        "DATABASE_URL=postgres://analytics:{v}@10.2.0.14/marketing",
        "ClickHouse for events: user=events_writer password={v} host=ch-events-01",
    )
    add(
        S,
        "gcp_service_account_key",
        lambda: (
            "-----BEGIN PRIVATE KEY-----\\nMIIEv"
            + s(120, B64)
            + "\\n"
            + s(64, B64)
            + "\\n-----END PRIVATE KEY-----\\n"
        ),
        '{"type": "service_account", "project_id": "mkt-bq", "private_key_id": "{h}{h}", "private_key": "{v}", "client_email": "bq-loader@mkt-bq.iam.gserviceaccount.com"}',
        'BigQuery loader SA key - "private_key": "{v}"',
        'GA4 export SA json (partial): private_key="{v}"',
    )
    add(
        S,
        "jwplayer_api_secret",
        lambda: s(24, ALNUM),
        "JW Player API v1 key {h} / secret {v}",
        "JWPLAYER_API_SECRET={v}",
        "jw platform property secret used for signed player URLs: {v}",
    )
    add(
        S,
        "brightcove_client_secret",
        lambda: s(86, B64URL),
        "Brightcove OAuth client secret (CMS + Ingest): {v}",
        "BC_CLIENT_ID={u}\nBC_CLIENT_SECRET={v}",
        "brightcove api creds rotated -> secret {v}",
    )
    add(
        S,
        "kaltura_admin_secret",
        lambda: s(32, HEX),
        "Kaltura partner 2{h} admin secret: {v}",
        "KALTURA_ADMIN_SECRET={v}",
        "ks generation uses the admin secret {v}",
    )
    add(
        S,
        "google_session_cookie",
        lambda: "g.a000" + s(140, B64URL),
        "Ad Manager UI scraping hack: __Secure-1PSID={v}",
        "cookie from my logged-in Google Ads session (works for the report export): __Secure-3PSID {v}",
        "SID cookie copied from Chrome devtools for the YouTube Studio bot: {v}",
    )
    add(
        S,
        "mux_webhook_secret",
        lambda: s(32, LOWER),
        "Mux webhook signing secret: {v}",
        "MUX_WEBHOOK_SECRET={v}",
        "verify mux-signature header with secret {v}",
    )
    add(
        S,
        "mailjet_secret_key",
        lambda: s(32, HEX),
        "Mailjet API key {h}{h}{h}{h} and secret key {v}",
        "MJ_APIKEY_PRIVATE={v}",
        "mailjet private key for the campaign sender: {v}",
    )
    add(
        S,
        "sparkpost_api_key",
        lambda: s(40, HEX),
        "SparkPost API key (transmissions:write): {v}",
        "Authorization: {v}  # sparkpost wants the raw key, no Bearer",
        "SPARKPOST_API_KEY={v}",
    )
    add(
        S,
        "telegram_bot_token",
        lambda: d(10) + ":AA" + s(33, B64URL),
        "Telegram bot that cross-posts our channel updates: token {v}",
        "TELEGRAM_BOT_TOKEN={v}",
        "https://api.telegram.org/bot{v}/sendMessage is what the social cron hits",
    )
    add(
        S,
        "discord_webhook_url",
        lambda: "https://discord.com/api/webhooks/" + d(18) + "/" + s(68, B64URL),
        "community launch announcements go through {v}",
        "DISCORD_WEBHOOK_URL={v}",
        "discord webhook for #drops: {v}",
    )

    # ------------------------------------------------------------------ benign
    add(
        B,
        "meta_pixel_id",
        lambda: d(16),
        "Meta pixel id for the storefront: {v} (public, it's in the page source)",
        "fbq('init', '{v}'); fbq('track', 'PageView');",
        "CAPI events must reuse pixel {v} - the token lives in the vault, not here",
    )
    add(
        B,
        "ga4_measurement_id",
        lambda: "G-" + s(10, UPPER),
        "GA4 measurement ID for the blog stream: {v}",
        "gtag('config', '{v}', { send_page_view: false });",
        "wrong property in staging: it was sending to {v} instead of the test stream",
    )
    add(
        B,
        "gtm_container_id",
        lambda: "GTM-" + s(7, UPPER),
        "GTM container for the EU site: {v}, workspace 14",
        '<noscript><iframe src="https://www.googletagmanager.com/ns.html?id={v}"></iframe></noscript>',
        "publish {v} after the consent-mode tag change is approved",
    )
    add(
        B,
        "google_ads_conversion_tag",
        lambda: "AW-" + d(10) + "/" + s(20, B64URL),
        "gtag('event', 'conversion', {'send_to': '{v}'}); -- purchase conversion label",
        "Google Ads conversion send_to for lead form: {v} (label is public, it's in the tag)",
        "enhanced conversions use the same send_to {v}",
    )
    add(
        B,
        "google_ads_customer_id",
        lambda: f"{d(3)}-{s(3, string.digits)}-{s(4, string.digits)}",
        "Google Ads customer id for the EMEA account: {v}",
        "login_customer_id is the MCC ({v}), not the child account",
        "the bid script crashed on account {v}: CUSTOMER_NOT_ENABLED",
    )
    add(
        B,
        "campaign_id",
        lambda: d(11),
        "Meta campaign {v} ('BF26 prospecting') is overspending, paused at 14:00",
        "campaign_id={v}&adset_id={d}&ad_id={d}",
        "TikTok campaign {v} hit learning limited; rebuilding with broader targeting",
    )
    add(
        B,
        "utm_parameters",
        lambda: "utm_campaign=bf26_" + s(8, LOWER),
        "landing link: https://shop.example.com/sale?utm_source=meta&utm_medium=paid_social&{v}&utm_content=carousel_a",
        "UTM convention: {v}, utm_source lowercase, utm_medium one of cpc|paid_social|email",
        "newsletter links tagged with utm_source=newsletter&utm_medium=email&{v}",
    )
    add(
        B,
        "tiktok_pixel_code",
        lambda: "C" + s(19, UPPER),
        "TikTok pixel code on the checkout: {v}",
        "ttq.load('{v}'); ttq.page();",
        "events manager shows pixel {v} as 'Active' again after the GTM fix",
    )
    add(
        B,
        "linkedin_partner_id",
        lambda: d(7),
        "LinkedIn Insight tag partner id: {v}",
        '_linkedin_partner_id = "{v}"; window._linkedin_data_partner_ids.push(_linkedin_partner_id);',
        "conversion 'demo request' is attached to partner {v}",
    )
    add(
        B,
        "x_pixel_id",
        lambda: "o" + s(4, LOWER),
        "X (Twitter) pixel base code id: {v}",
        "twq('config','{v}');",
        "X conversion event id tw-{v}-{h} for signups",
    )
    add(
        B,
        "youtube_video_id",
        lambda: s(11, B64URL),
        "launch teaser: https://www.youtube.com/watch?v={v}",
        'embed <iframe src="https://www.youtube-nocookie.com/embed/{v}?rel=0"></iframe>',
        "YouTube video id {v} is the one with the wrong end card, re-upload pending",
    )
    add(
        B,
        "vimeo_video_id",
        lambda: d(9),
        "Vimeo showreel: https://vimeo.com/{v}",
        "player.vimeo.com/video/{v}?autoplay=1&muted=1&background=1",
        "vimeo id {v} transcode stuck at 'optimizing' for 2h",
    )
    add(
        B,
        "mux_playback_id",
        lambda: s(40, ALNUM),
        "Mux public playback id for the homepage hero: {v}",
        "https://stream.mux.com/{v}.m3u8 (playback policy: public)",
        '<mux-player playback-id="{v}" metadata-video-title="Hero loop"></mux-player>',
    )
    add(
        B,
        "cloudflare_stream_uid",
        lambda: s(32, HEX),
        "Cloudflare Stream video uid {v} (requireSignedURLs=false)",
        "https://customer-{h}.cloudflarestream.com/{v}/manifest/video.m3u8",
        "stream uid {v} - thumbnail at /thumbnails/thumbnail.jpg?time=12s",
    )
    add(
        B,
        "expired_cloudfront_signature",
        lambda: s(170, B64URL) + "__",
        "EXPIRED (Expires=1672531200, Jan 2023) and the key pair K3OLDEXAMPLE was deleted in the rotation, so this link is dead: https://d3x9example.cloudfront.net/ep01.mp4?Expires=1672531200&Signature={v}&Key-Pair-Id=K3OLDEXAMPLE",
        "Bug repro only - signature from a link that expired in 2024 and whose signing key group was removed:\nSignature={v}",
        "why did the old screener 403? Expires=1700000000 passed long ago; sig {v} is useless now (signer key deleted)",
    )
    add(
        B,
        "expired_s3_presigned_url",
        lambda: s(64, HEX),
        "403 AccessDenied 'Request has expired' on this 2023 presign (the IAM user behind it was deleted): ...X-Amz-Date=20230105T100000Z&X-Amz-Expires=3600&X-Amz-Signature={v}",
        "log line, harmless: GET /raw/take3.mov?X-Amz-Expires=900&X-Amz-Date=20240211T081500Z&X-Amz-Signature={v} -> 403 expired; access key since deleted",
        "the expired presign sig {v} from the ticket is from a deleted user, no need to rotate anything",
    )
    add(
        B,
        "mixpanel_project_token",
        lambda: s(32, HEX),
        "Mixpanel project token (client-side, public by design): {v}",
        "mixpanel.init('{v}', { track_pageview: true });",
        "NB: project token {v} is fine in the bundle; the service-account secret is the sensitive one",
    )
    add(
        B,
        "amplitude_browser_api_key",
        lambda: s(32, HEX),
        "amplitude.init('{v}') -- browser SDK key, shipped to every visitor",
        "Amplitude API key (public half, used by the JS SDK): {v}. Secret key is in 1Password.",
        "web snippet still points to the old project key {v}",
    )
    add(
        B,
        "klaviyo_site_id",
        lambda: s(6, ALNUM),
        "Klaviyo public API key / site id for onsite forms: {v}",
        '<script async src="https://static.klaviyo.com/onsite/js/klaviyo.js?company_id={v}"></script>',
        "klaviyo company_id {v} shows in the embed; the pk_ key is the private one",
    )
    add(
        B,
        "mapbox_public_token",
        lambda: "pk.eyJ1Ijoi" + s(20, B64URL) + "IiwiYSI6I" + s(22, B64URL) + "." + s(22, B64URL),
        "Mapbox public token (URL-restricted to store-locator.example.com): {v}",
        "mapboxgl.accessToken = '{v}'; // pk. = public scope only",
        "store locator map token (pk, public): {v}",
    )
    add(
        B,
        "algolia_search_only_key",
        lambda: s(32, HEX),
        "Algolia search-only API key for the blog search (safe for frontend): {v}",
        "algoliasearch('{h}XY12', '{v}') // search-only key, ACL: search",
        "DocSearch public key {v}; the admin key is only on the indexer",
    )
    add(
        B,
        "youtube_channel_id",
        lambda: "UC" + s(22, B64URL),
        "brand YouTube channel id: {v}",
        "https://www.youtube.com/channel/{v}/videos",
        "RSS for uploads: https://www.youtube.com/feeds/videos.xml?channel_id={v}",
    )
    add(
        B,
        "instagram_media_id",
        lambda: d(19) + "_" + d(11),
        "IG media id of the pinned reel: {v}",
        "GET /{v}/insights?metric=reach,saved (token from the vault)",
        "comment moderation failed for media {v}",
    )
    add(
        B,
        "facebook_page_id",
        lambda: d(15),
        "Facebook page id for Northwind Outdoors: {v}",
        "https://www.facebook.com/profile.php?id={v}",
        "page {v} lost the 'Advertise' task for the agency user",
    )
    add(
        B,
        "meta_app_id",
        lambda: d(16),
        "Meta app id (public, appears in the login dialog URL): {v}",
        '<meta property="fb:app_id" content="{v}" />',
        "FB.init({ appId: '{v}', version: 'v19.0' });",
    )
    add(
        B,
        "tweet_id",
        lambda: "18" + s(17, string.digits),
        "launch post: https://x.com/acme_deals/status/{v}",
        "pin tweet {v} until Friday",
        "quote-tweet metrics for {v}: 1.2k impressions",
    )
    add(
        B,
        "cdn_etag",
        lambda: s(32, HEX),
        'ETag: "{v}" -- same on both POPs, so the purge did go through',
        'x-cache: HIT, etag "{v}-gzip"',
        "origin returned etag {v} for hero.webp",
    )
    add(
        B,
        "sri_integrity_hash",
        lambda: "sha384-" + s(64, B64),
        '<script src="https://cdn.example.com/tag.js" integrity="{v}" crossorigin="anonymous"></script>',
        "SRI for the consent banner bundle: {v}",
        "integrity mismatch: expected {v}, CDN served a new build",
    )
    add(
        B,
        "cloudfront_key_pair_id",
        lambda: "K" + s(13, UPPER),
        "CloudFront public key id in the key group: {v} (private key stays in Secrets Manager)",
        "Key-Pair-Id={v} is just the public key's id, safe to log",
        "distribution E{h}ABCD trusts key group media-signers with public key {v}",
    )
    add(
        B,
        "aws_access_key_id_only",
        lambda: "AKIA" + s(16, string.ascii_uppercase + "234567"),
        "CloudTrail shows PutObject calls from access key id {v} (the uploader user) - the secret is not in the log",
        "which key is this? {v} -> belongs to iam user media-uploader (id only, the secret half is in the vault)",
        "deactivate access key id {v} during the rotation, list it in the ticket",
    )
    add(
        B,
        "public_object_url",
        lambda: s(24, LOWER),
        "public creative: https://creative-assets.s3.amazonaws.com/bf26/{v}.jpg",
        "og:image -> https://cdn.example.com/social/{v}.png",
        "bucket policy allows public read on /press/*, e.g. /press/{v}.pdf",
    )
    add(
        B,
        "hls_playlist_url",
        lambda: s(16, LOWER),
        "public HLS for the trailer: https://vod.example.com/trailers/{v}/master.m3u8",
        "player test stream: https://test-streams.mux.dev/{v}/main.m3u8",
        "ABR ladder at https://cdn.example.tv/hls/{v}/index.m3u8 has 5 renditions",
    )
    add(
        B,
        "rtmp_ingest_without_key",
        lambda: "rtmp://a.rtmp.youtube.com/live2",
        "YouTube ingest server: {v} -- stream key is in 1Password under 'YT Live'",
        "OBS server field = {v}; key field intentionally blank in the shared profile",
        "primary ingest {v}, backup rtmp://b.rtmp.youtube.com/live2?backup=1",
    )
    add(
        B,
        "stream_key_placeholder",
        lambda: "xxxx-xxxx-xxxx-xxxx-xxxx",
        "docs for volunteers: paste your stream key where it says {v}",
        "STREAM_KEY=<your-stream-key>  # format looks like {v}",
        "twitch key format is live_<digits>_<random>; ours is NOT in this note, ask Dana. YouTube: {v}",
    )
    add(
        B,
        "redacted_token",
        lambda: "EAAG" + "*" * 12 + s(4, ALNUM),
        "error log shows access_token={v} (redacted by our logger) -> OAuthException code 190",
        "token in the ticket was masked: {v}",
        "the Graph API debug tool listed token {v}; real one not copied",
    )
    add(
        B,
        "vault_reference",
        lambda: "op://Marketing/TikTok Ads/access_token",
        "TIKTOK_ACCESS_TOKEN is read at deploy from {v}",
        "env: META_CAPI_TOKEN=${{ secrets.META_CAPI_TOKEN }} and tiktok from {v}",
        "don't paste the token; reference {v} in the runbook",
    )
    add(
        B,
        "revoked_token_stated",
        lambda: s(40, HEX),
        "incident closed: leaked TikTok token {v} was revoked by TikTok support on 2026-11-02 and the app was deleted; nothing live remains",
        "post-mortem: the Vimeo token {v} from the public gist was revoked within 10 minutes and the account's tokens were all reset",
        "revoked & dead (app deleted): {v} - keeping for the audit trail only",
    )
    add(
        B,
        "provider_docs_example",
        lambda: "SG.xxxxxxxxxxxxxxxxxxxxxx.yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy",
        "SendGrid docs show keys like {v}; ours is in the secret manager",
        "README example: export SENDGRID_API_KEY='{v}'",
        "placeholder in .env.example: SENDGRID_API_KEY={v}",
    )
    add(
        B,
        "hashed_email_audience",
        lambda: s(64, HEX),
        "Custom audience upload row: em={v} (sha256 of normalised email)",
        'CAPI user_data.em: ["{v}"]',
        "hashed phone for the TikTok audience match: {v}",
    )
    add(
        B,
        "gclid_click_id",
        lambda: "Cj0KCQiA" + s(80, B64URL),
        "offline conversion import row: gclid={v}, conversion_time=2026-12-01 10:22:00+00:00",
        "landing URL in the log: /pricing?gclid={v}",
        "GCLID {v} wasn't found: older than 90 days",
    )
    add(
        B,
        "fbclid_click_id",
        lambda: "IwAR" + s(56, B64URL),
        "referrer: https://shop.example.com/?fbclid={v}",
        "strip fbclid ({v}) before caching the page",
        "fbclid {v} converted to fbc = fb.1.1733480000000.{v}",
    )
    add(
        B,
        "msclkid_click_id",
        lambda: s(32, HEX),
        "Microsoft Ads click id msclkid={v}",
        "ttclid in URL was E.C.P.{v}, attributed to TikTok",
        "UET import row: msclkid {v}, value 49.00 EUR",
    )
    add(
        B,
        "ga_client_cookie",
        lambda: "GA1.1." + d(10) + "." + d(10),
        "_ga={v} - client id for debugging the MP hit",
        "cookie _ga_7QK2M9XW1B=GS1.1.{d}.3.1.{d}.0.0.0; _ga={v}",
        "client_id extracted from {v}",
    )
    add(
        B,
        "fbp_cookie",
        lambda: "fb.1.17" + s(11, string.digits) + "." + d(10),
        "_fbp={v} forwarded to CAPI for dedup",
        "browser id fbp {v} matched 82% after the fix",
        'CAPI payload: {"fbp": "{v}", "event_id": "{u}"}',
    )
    add(
        B,
        "event_dedup_id",
        lambda: uuid(),
        "Purchase event_id {v} sent from both pixel and CAPI, deduped OK",
        "order 10482 -> event_id {v}",
        "idempotency key for the SMS send: {v}",
    )
    add(
        B,
        "git_commit_sha",
        lambda: s(40, HEX),
        "consent-mode v2 fix merged in {v}",
        "deploy of the tag bundle at {v} broke the TikTok pixel",
        "revert {v} if CLS regresses",
    )
    add(
        B,
        "sendgrid_template_id",
        lambda: "d-" + s(32, HEX),
        "SendGrid dynamic template for the welcome email: {v}",
        'template_id: "{v}" (version 3 is active)',
        "swap the abandoned-cart template to {v}",
    )
    add(
        B,
        "mailchimp_audience_id",
        lambda: s(10, HEX),
        "Mailchimp audience (list) id: {v}",
        "POST /3.0/lists/{v}/members with the key from the vault",
        "merge field FNAME missing in audience {v}",
    )
    add(
        B,
        "twilio_sid_only",
        lambda: "MG" + s(32, HEX),
        "Twilio messaging service SID: {v} (identifier, auth token is in Vault)",
        "SMS sends from messaging service {v}, sender pool has 3 long codes",
        "A2P campaign attached to {v} is approved",
    )
    add(
        B,
        "keyframe_sense",
        lambda: "",
        "Set keyframe interval to 2 s in OBS; YouTube warns 'keyframe frequency 4s' otherwise.",
        "The key visual for BF26 is the red tent shot; key message: 'Built for winter'.",
        "ffmpeg -g 60 -keyint_min 60 forces a key frame every 2 s at 30 fps for clean HLS segments.",
    )
    add(
        B,
        "token_other_sense",
        lambda: "",
        "Design tokens for the email templates: color.brand.primary = #D7263D, spacing.md = 16px.",
        "The caption generator burns ~1.8k tokens per video; cap max_tokens at 400.",
        "Loyalty 'tokens' in the app are just points, 100 tokens = 5 EUR voucher.",
    )
    add(
        B,
        "password_protected_talk",
        lambda: "",
        "Vimeo review links are password protected; the password is shared by the producer over the phone, not written here.",
        "Client asked for a password on the staging landing page - use Cloudflare Access instead.",
        "Reminder: the press kit page has 'password: required' turned on; request it from comms.",
    )
    add(
        B,
        "secret_other_sense",
        lambda: "",
        "Secret sale for VIPs starts Friday 08:00 - email goes to the 'VIP' segment only.",
        "Our 'secret sauce' in the Q4 deck is creative testing velocity, not budget.",
        "Secret Santa for the growth team: sign-up sheet in Notion.",
    )
    add(
        B,
        "rotation_talk",
        lambda: "",
        "Rotate the Meta system user token every 90 days; update the vault entry, then redeploy capi-server.",
        "TODO: move TikTok and Pinterest tokens from .env to Secret Manager and add a leak scan to CI.",
        "When someone leaves the agency, regenerate all stream keys and the X API key secret.",
    )
    add(
        B,
        "bitly_short_link",
        lambda: "bit.ly/" + s(7, ALNUM),
        "short link for the bio: https://{v}",
        "QR code on the poster points to {v} (redirects with UTMs)",
        "{v} has 4.3k clicks, mostly from IG stories",
    )
    add(
        B,
        "linkedin_urn",
        lambda: "urn:li:sponsoredCampaign:" + d(9),
        "LinkedIn campaign {v} is the retargeting one",
        "analytics?q=analytics&pivot=CAMPAIGN&campaigns=List({v})",
        "creative urn:li:sponsoredCreative:{d} belongs to {v}",
    )
    add(
        B,
        "mux_public_signing_key",
        lambda: pem("PUBLIC KEY", 4),
        "Public key used to VERIFY our signed playback JWTs (safe to share):\n{v}",
        "Stream signing public key, uploaded to the CDN:\n{v}",
        "{v}\n(the public half only; private key never leaves KMS)",
    )
    add(
        B,
        "dkim_public_record",
        lambda: "v=DKIM1; k=rsa; p=MIGfMA0GCSqGSIb3DQEBAQUAA4GN" + s(180, B64),
        'DNS TXT s1._domainkey.mail.example.com: "{v}"',
        "Mailgun DKIM record to add at the registrar:\n{v}",
        "dig TXT k1._domainkey.example.com returns {v}",
    )
    add(
        B,
        "ads_txt_line",
        lambda: "google.com, pub-" + d(16) + ", DIRECT, f08c47fec0942fa0",
        "ads.txt must contain: {v}",
        "sellers.json check passed for {v}",
        "app-ads.txt line for the game: {v}",
    )
    add(
        B,
        "adsense_publisher_id",
        lambda: "ca-pub-" + d(16),
        'AdSense client id in the ad unit: data-ad-client="{v}"',
        "publisher {v} got the 'earnings at risk' banner",
        "adsbygoogle.js?client={v}",
    )
    add(
        B,
        "tcf_consent_string",
        lambda: "CP" + s(140, B64URL) + ".YAAAAAAAAAAA",
        "TCF v2 consent string from the CMP test: {v}",
        "euconsent-v2={v}",
        "gdpr_consent={v} passed to the SSP",
    )
    add(
        B,
        "onesignal_app_id",
        lambda: uuid(),
        "OneSignal app id (public, in the web SDK init): {v}",
        'OneSignal.init({ appId: "{v}" });',
        "push app id {v} - the REST key is separate and in the vault",
    )
    add(
        B,
        "firebase_web_config",
        lambda: "AIza" + s(35, B64URL),
        'Firebase web config for the promo PWA (public by design, restricted by App Check): apiKey: "{v}", projectId: "promo-pwa"',
        "const firebaseConfig = { apiKey: '{v}', authDomain: 'promo-pwa.firebaseapp.com', appId: '1:{d}:web:{h}' };",
        "Firebase says the web apiKey {v} isn't a secret; security comes from rules",
    )
    add(
        B,
        "file_checksum",
        lambda: s(32, HEX),
        "md5 of the delivered master ProRes: {v}",
        "sha1 mismatch on upload: local {v}{h}, remote differs",
        "checksum file for ep05.mxf: MD5 ({v})",
    )
    add(
        B,
        "trace_id",
        lambda: s(32, HEX),
        "x-amz-cf-id style trace for the 502: traceparent 00-{v}-{h}{h}-01",
        "Graph API error fbtrace_id {v}",
        "request id {v} - TikTok support asked for it",
    )
    add(
        B,
        "branch_public_key",
        lambda: "key_live_" + s(32, ALNUM),
        "Branch key for the iOS SDK (public, goes in Info.plist): {v}",
        "branch_key: {v}  # safe in the app; branch_secret is not",
        "web SDK: branch.init('{v}')",
    )
    add(
        B,
        "cloudinary_api_key_id",
        lambda: d(15),
        "Cloudinary cloud 'northwind-media', api_key {v} (numeric id; api_secret lives in Vault)",
        "CLOUDINARY_URL=cloudinary://{v}:${CLOUDINARY_API_SECRET}@northwind-media",
        "upload widget uses api_key {v} with a server-side signature",
    )
    add(
        B,
        "recaptcha_site_key",
        lambda: "6L" + s(38, B64URL),
        "reCAPTCHA v3 site key for the newsletter form: {v}",
        '<div class="g-recaptcha" data-sitekey="{v}"></div>',
        "grecaptcha.execute('{v}', {action: 'subscribe'})",
    )
    add(
        B,
        "twitch_client_id",
        lambda: s(30, LOWER),
        "Twitch app Client-ID (public): {v}",
        "Client-Id: {v} header plus an app token from the vault",
        "twitch embed parent check fails for client {v}",
    )
    add(
        B,
        "youtube_playlist_id",
        lambda: "PL" + s(32, B64URL),
        "tutorials playlist: https://www.youtube.com/playlist?list={v}",
        "embed videoseries?list={v}",
        "playlist {v} is unlisted but fine to share internally",
    )
    add(
        B,
        "brightcove_player_id",
        lambda: s(9, B64URL),
        "Brightcove player embed: players.brightcove.net/6{d}/{v}_default/index.html?videoId=6{d}",
        "player id {v} has the ad plugin (IMA3) configured",
        'data-player="{v}" data-embed="default"',
    )
    add(
        B,
        "env_template_blank",
        lambda: "TIKTOK_ACCESS_TOKEN=",
        ".env.example:\nMETA_CAPI_TOKEN=\n{v}\nTWITCH_STREAM_KEY=",
        "required vars (values from the vault): {v} , X_BEARER_TOKEN=, MAILCHIMP_KEY=",
        "CI failed: {v} is empty in the preview env",
    )

    for row in rows:
        assert row["value"] in row["text"], row
    return rows


def main() -> None:
    lines = [json.dumps(row, ensure_ascii=False) for row in corpus()]
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w", encoding="utf-8") as fh:
            fh.write("\n".join(lines) + "\n")
    else:
        sys.stdout.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()

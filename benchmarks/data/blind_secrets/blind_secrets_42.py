"""Blind secret-detection corpus 42: media, broadcast and creative-tools engineering.

Memories that media, broadcast and creative-tools engineers might ask an AI coding agent's
memory tool to store: live-streaming stream keys and ingest URLs, SRT/RTMP/WHIP settings,
CDN URL signing and token auth, DRM and license servers, video platforms' APIs, podcast
hosting, music and stock-asset services, render farms, digital-asset management, design-tool
plugins and their tokens, OBS and encoder configs, newsroom and CMS integrations.

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Run:
    python benchmarks/data/blind_secrets/blind_secrets_42.py out.jsonl   (or no arg: stdout)

Every random value is generated from random.Random(SEED); no real credential appears here.

Kinds
-----
secret:
    twitch_stream_key, youtube_stream_key, facebook_live_stream_key, kick_stream_key,
    restream_stream_key, rtmp_url_embedded_key, srt_passphrase, whip_bearer_token,
    mux_token_secret, mux_signing_private_key, cloudflare_stream_api_token,
    cloudfront_signing_private_key, cloudfront_signed_url, akamai_edgeauth_key,
    fastly_api_token, bunnycdn_token_auth_key, hls_aes128_content_key, widevine_signing_key,
    fairplay_ask, playready_key_seed, drm_license_auth_jwt, aws_secret_access_key,
    vimeo_access_token, jwplayer_api_secret, brightcove_client_secret, kaltura_admin_secret,
    wistia_api_token, apivideo_api_key, spotify_client_secret, spotify_refresh_token,
    apple_p8_private_key, buzzsprout_api_token, soundcloud_oauth_token, lastfm_api_secret,
    shutterstock_access_token, adobe_io_client_secret, frameio_developer_token,
    figma_personal_access_token, conductor_render_api_key, deadline_db_password,
    b2_application_key, cloudinary_api_secret, bynder_permanent_token,
    obs_websocket_password, streamelements_jwt, wordpress_application_password,
    contentful_management_token, sanity_api_token, ghost_admin_api_key, strapi_api_token,
    slack_webhook_url, wowza_publish_password, encoder_admin_password, agora_app_certificate,
    twilio_auth_token, livekit_api_secret, vonage_video_api_secret, dolby_publishing_token,
    openssh_private_key_ingest, google_service_account_key, youtube_oauth_refresh_token,
    youtube_data_api_key, pexels_api_key, unsplash_secret_key, arc_xp_access_token
benign:
    stream_key_placeholder, stream_key_redacted, stream_key_vault_ref, rtmp_ingest_base_url,
    srt_url_no_passphrase, srt_pbkeylen_setting, whip_endpoint_url, mux_playback_id,
    mux_data_env_key, cloudflare_stream_video_uid, cloudfront_key_pair_id,
    cloudfront_public_key, signed_url_signature_redacted, url_signing_design_talk,
    widevine_key_id, pssh_box, fairplay_certificate_public, hls_ext_x_key_line,
    license_server_url, mezzanine_sha256, git_commit_sha, docker_image_digest,
    spotify_client_id, spotify_track_uri, podcast_guid, isrc_upc_codes, adobe_io_client_id,
    figma_file_key, figma_token_placeholder, cloudinary_api_key_public,
    obs_profile_empty_key, obs_hotkey, musical_key, keyframe_interval, chroma_key,
    template_token_placeholder, llm_token_count, password_rotation_note,
    wordpress_app_password_placeholder, contentful_space_id, sanity_project_id,
    ghost_content_api_key, algolia_search_only_key, agora_app_id, livekit_api_key_id,
    twilio_account_sid, aws_access_key_id_alone, eidr_id, deadline_job_id,
    ssh_host_key_fingerprint, ssh_public_key, pgp_public_key_block, jwt_io_example,
    env_var_names_only, twitch_client_id, youtube_channel_and_video_ids, blurhash,
    timecode_and_umid, request_id_uuid, frameio_asset_id, bynder_asset_id, securedrop_onion,
    srt_streamid_syntax, s3_etag_md5, data_uri_thumbnail, obs_websocket_auth_disabled
"""

import json
import random
import re
import string
import sys

SEED = 4242

_HEX = "0123456789abcdef"
_ALNUM = string.ascii_letters + string.digits
_LOW = string.ascii_lowercase + string.digits
_UP = string.ascii_uppercase + string.digits
_B64 = _ALNUM + "+/"
_URL = _ALNUM + "-_"


def corpus() -> list[dict]:
    r = random.Random(SEED)

    def s(alpha: str, n: int) -> str:
        return "".join(r.choice(alpha) for _ in range(n))

    def uuid4() -> str:
        h = s(_HEX, 32)
        return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{r.choice('89ab')}{h[17:20]}-{h[20:]}"

    def b64(nbytes: int) -> str:
        n = (nbytes + 2) // 3 * 4
        pad = (3 - nbytes % 3) % 3
        body = s(_B64, n - pad)
        return body + "=" * pad

    def pem(label: str, lines: int) -> str:
        body = "\n".join(s(_B64, 64) for _ in range(lines))
        return f"-----BEGIN {label}-----\n{body}\n{s(_B64, 40)}==\n-----END {label}-----"

    def jwt(claims: str) -> str:
        import base64

        def enc(x: str) -> str:
            return base64.urlsafe_b64encode(x.encode()).decode().rstrip("=")

        return enc('{"alg":"HS256","typ":"JWT"}') + "." + enc(claims) + "." + s(_URL, 43)

    fill_re = re.compile(r"\{(d|h|a|l|u|U)(\d+)\}|\{uuid\}")

    def fill(t: str) -> str:
        def rep(m: re.Match) -> str:
            if m.group(0) == "{uuid}":
                return uuid4()
            kind, n = m.group(1), int(m.group(2))
            alpha = {
                "d": string.digits,
                "h": _HEX,
                "a": _ALNUM,
                "l": _LOW,
                "u": _UP,
                "U": _HEX.upper(),
            }[kind]
            return s(alpha, n)

        return fill_re.sub(rep, t)

    rows: list[dict] = []

    def add(label: str, kind: str, gen, templates: list[str]) -> None:
        for t in templates:
            v = gen() if gen else ""
            text = fill(t).replace("{v}", v)
            assert v in text, (kind, t)
            rows.append({"label": label, "kind": kind, "text": text, "value": v})

    S, B = "secret", "benign"

    # ------------------------------------------------------------------ secrets
    add(
        S,
        "twitch_stream_key",
        lambda: f"live_{s(string.digits, 9)}_{s(_ALNUM, 30)}",
        [
            "Twitch stream key for the esports channel: {v} (OBS > Settings > Stream > Custom)",
            "twitch key for Friday show -> {v}\ndon't paste it in chat again",
            'obs service.json (studio PC):\n{"settings": {"service": "Twitch", "key": "{v}"}}',
        ],
    )
    add(
        S,
        "youtube_stream_key",
        lambda: "-".join(s(_LOW, 4) for _ in range(5)),
        [
            "YT Live persistent stream key (main channel, 1080p60 profile): {v}",
            "Backup encoder uses rtmp://b.rtmp.youtube.com/live2?backup=1 with key {v}",
            "yt stream key for the town hall is {v} - reusable, don't reset before Thursday",
        ],
    )
    add(
        S,
        "facebook_live_stream_key",
        lambda: f"FB-{s(string.digits, 16)}-0-{s(_ALNUM, 32)}",
        [
            "Facebook Live persistent key for the newsroom page: {v}",
            "fb live: server rtmps://live-api-s.facebook.com:443/rtmp/ , key {v}",
            "The Teradek is pushing to FB with stream key {v}; change it in Core if it leaks",
        ],
    )
    add(
        S,
        "kick_stream_key",
        lambda: f"sk_us-west-2_{s(_ALNUM, 12)}_{s(_ALNUM, 30)}",
        [
            "Kick stream key (creator asked us to set up their rig): {v}",
            "kick ingest = rtmps://fa723fc1b171.global-contribute.live-video.net/app/ key={v}",
            "Kick dashboard -> Stream key -> copied {v} into the vMix output 2",
        ],
    )
    add(
        S,
        "restream_stream_key",
        lambda: f"re_{s(string.digits, 7)}_{s(_HEX, 20)}",
        [
            "Restream.io key for multistreaming the podcast: {v}",
            "restream RTMP: rtmp://live.restream.io/live  stream key {v}",
            "OBS profile 'Multi' -> Restream, key {v} (account: studio@)",
        ],
    )
    add(
        S,
        "rtmp_url_embedded_key",
        lambda: s(_ALNUM, 24),
        [
            "Push URL for the church stream: rtmp://ingest.example-cdn.net/live/{v}",
            "ffmpeg -re -i program.ts -c copy -f flv rtmp://10.20.1.15:1935/app/{v}",
            "nginx-rtmp push target configured as `push rtmp://relay.studio.lan/live/{v};`",
        ],
    )
    add(
        S,
        "srt_passphrase",
        lambda: s(_ALNUM + "!#%", 20),
        [
            "SRT caller to the MCR: srt://203.0.113.40:9710?mode=caller&latency=240&pbkeylen=32&passphrase={v}",
            "Haivision Makito encoder SRT passphrase: {v} (AES-256, listener on 7001)",
            "srt listener on the OB truck: port 5000, passphrase `{v}`, streamid cam2",
        ],
    )
    add(
        S,
        "whip_bearer_token",
        lambda: s(_URL, 48),
        [
            "WHIP publish: POST https://whip.example.org/whip/stage-a\nAuthorization: Bearer {v}",
            "OBS 30 WHIP output -> https://global.whip.example.net/publish , Bearer Token {v}",
            "gstreamer whipclientsink auth-token={v} signaller::whip-endpoint=https://edge.example/whip",
        ],
    )
    add(
        S,
        "mux_token_secret",
        lambda: s(_B64, 75),
        [
            "MUX_TOKEN_ID={uuid}\nMUX_TOKEN_SECRET={v}",
            "Mux API creds (prod env 'newsroom'): id {uuid} secret {v}",
            "curl https://api.mux.com/video/v1/assets -u {uuid}:{v}",
        ],
    )
    add(
        S,
        "mux_signing_private_key",
        lambda: pem("RSA PRIVATE KEY", 4),
        [
            "Mux signing key for signed playback ids (key id {a24}):\n{v}",
            "saved the private key we sign Mux JWTs with, base64-decoded:\n{v}",
            "playback-signing.pem\n{v}",
        ],
    )
    add(
        S,
        "cloudflare_stream_api_token",
        lambda: s(_URL, 40),
        [
            "Cloudflare API token scoped to Stream:Edit for account {h32}: {v}",
            "CF_STREAM_TOKEN={v}",
            "curl -H 'Authorization: Bearer {v}' https://api.cloudflare.com/client/v4/accounts/{h32}/stream",
        ],
    )
    add(
        S,
        "cloudfront_signing_private_key",
        lambda: pem("RSA PRIVATE KEY", 4),
        [
            "CloudFront trusted key group private key (pk-{u20}.pem):\n{v}",
            "VOD signed cookies sign with this key, keep off GitHub:\n{v}",
            "private key for cf url signing (prod):\n{v}",
        ],
    )
    add(
        S,
        "cloudfront_signed_url",
        lambda: f"Expires=2093587200&Signature={s(_URL, 172)}~~&Key-Pair-Id=K{s(_UP, 13)}",
        [
            "Long-lived signed link for the client screening (valid until 2036): "
            "https://d{l13}.cloudfront.net/screeners/final_v7.mp4?{v}",
            "signed manifest url for partner QA:\nhttps://vod.example.tv/hls/master.m3u8?{v}",
            "gave the distributor this, no expiry in practice: https://cdn.example.com/dl/reel.mov?{v}",
        ],
    )
    add(
        S,
        "akamai_edgeauth_key",
        lambda: s(_HEX, 64),
        [
            "Akamai EdgeAuth token key (hdnts, property live-news): {v}",
            "EDGEAUTH_KEY={v}\nEDGEAUTH_WINDOW=300",
            "Token auth key for the Akamai AMD config is {v} - shared with Player team only",
        ],
    )
    add(
        S,
        "fastly_api_token",
        lambda: s(_URL, 32),
        [
            "Fastly purge token for the video service: {v}",
            "curl -X POST -H 'Fastly-Key: {v}' https://api.fastly.com/service/{a22}/purge_all",
            "FASTLY_API_TOKEN={v} # global:read + purge_select",
        ],
    )
    add(
        S,
        "bunnycdn_token_auth_key",
        lambda: uuid4(),
        [
            "Bunny CDN pull zone 'clips' URL token authentication key: {v}",
            "bunny stream library 1{d5} token security key = {v}",
            "BUNNY_TOKEN_KEY={v} (used to sha256 sign ?token=&expires=)",
        ],
    )
    add(
        S,
        "hls_aes128_content_key",
        lambda: s(_HEX, 32),
        [
            "AES-128 key for the paywalled HLS ladder (enc.key as hex): {v}",
            "key info file for ffmpeg, the actual key bytes are {v} - IV 0x{h32}",
            "content key for event 4471 (clear key, don't put in manifest): {v}",
        ],
    )
    add(
        S,
        "widevine_signing_key",
        lambda: s(_HEX, 64),
        [
            "Widevine provider signing key (provider: newsco): {v}\nsigning iv: {h32}",
            "WV_SIGNING_KEY={v}",
            "Packager flags: --signer newsco --aes_signing_key {v} --aes_signing_iv {h32}",
        ],
    )
    add(
        S,
        "fairplay_ask",
        lambda: s(_HEX, 32),
        [
            "FairPlay Application Secret key (ASk) from Apple: {v}",
            "FPS_ASK={v}\nFPS_CERT=fairplay.cer",
            "apple sent the ASk for the FPS deployment package, it is {v}",
        ],
    )
    add(
        S,
        "playready_key_seed",
        lambda: b64(30),
        [
            "PlayReady key seed for the license server: {v}",
            "PR_KEY_SEED={v}",
            "playready test server is fine but prod derives content keys from seed {v}",
        ],
    )
    add(
        S,
        "drm_license_auth_jwt",
        lambda: jwt('{"sub":"svc-packager","iss":"drm-proxy","exp":2051222400,"ent":"all"}'),
        [
            "x-dt-custom-data / auth token the packager sends to the license proxy: {v}",
            "license request header: Authorization: {v}",
            "long-lived DRM entitlement token for the QA devices (no expiry until 2035): {v}",
        ],
    )
    add(
        S,
        "aws_secret_access_key",
        lambda: s(_ALNUM + "/+", 40),
        [
            "MediaConvert job runner IAM user: AKIA{u16} / {v}",
            "[mediapackage]\naws_access_key_id = AKIA{u16}\naws_secret_access_key = {v}",
            "export AWS_SECRET_ACCESS_KEY={v}  # elemental-live archive uploader",
        ],
    )
    add(
        S,
        "vimeo_access_token",
        lambda: s(_HEX, 32),
        [
            "Vimeo API personal access token (upload+edit scopes): {v}",
            "curl -H 'Authorization: bearer {v}' https://api.vimeo.com/me/videos",
            "VIMEO_TOKEN={v}",
        ],
    )
    add(
        S,
        "jwplayer_api_secret",
        lambda: s(_ALNUM, 24),
        [
            "JW Player v1 API key {a8} secret {v}",
            "JWP_API_SECRET={v}",
            "JW Platform property 'web' v2 API secret: {v}",
        ],
    )
    add(
        S,
        "brightcove_client_secret",
        lambda: s(_URL, 86),
        [
            "Brightcove OAuth client for CMS API: client_id {uuid}\nclient_secret {v}",
            "BC_CLIENT_SECRET={v}",
            "brightcove secret (video cloud account 6{d12}): {v}",
        ],
    )
    add(
        S,
        "kaltura_admin_secret",
        lambda: s(_HEX, 32),
        [
            "Kaltura partner 2{d6} admin secret: {v}",
            "KalturaClient.session.start('{v}', 'ops@newsco', SessionType.ADMIN, 2{d6})",
            "KMC > Integration Settings > Administrator Secret = {v}",
        ],
    )
    add(
        S,
        "wistia_api_token",
        lambda: s(_HEX, 64),
        [
            "Wistia API token (full access) for the marketing project: {v}",
            "WISTIA_API_TOKEN={v}",
            "curl 'https://api.wistia.com/v1/medias.json' -H 'Authorization: Bearer {v}'",
        ],
    )
    add(
        S,
        "apivideo_api_key",
        lambda: s(_ALNUM, 43),
        [
            "api.video production API key: {v}",
            "APIVIDEO_KEY={v} (sandbox key is separate)",
            "api.video client init: new ApiVideoClient({ apiKey: '{v}' })",
        ],
    )
    add(
        S,
        "spotify_client_secret",
        lambda: s(_HEX, 32),
        [
            "Spotify app 'podcast-sync': client id {h32}, client secret {v}",
            "SPOTIFY_CLIENT_SECRET={v}",
            "the secret half of the Spotify creds is {v} (id is in the repo, that's fine)",
        ],
    )
    add(
        S,
        "spotify_refresh_token",
        lambda: "AQ" + s(_URL, 129),
        [
            "Spotify refresh token for the station's playlist bot: {v}",
            "refresh_token={v}&grant_type=refresh_token",
            "stored Spotify user refresh token (scope playlist-modify-public): {v}",
        ],
    )
    add(
        S,
        "apple_p8_private_key",
        lambda: pem("PRIVATE KEY", 4),
        [
            "AuthKey_{u10}.p8 for the Apple Podcasts Connect / App Store Connect API:\n{v}",
            "MusicKit key (Key ID {u10}, Team {u10}):\n{v}",
            "the .p8 we sign developer tokens with:\n{v}",
        ],
    )
    add(
        S,
        "buzzsprout_api_token",
        lambda: s(_HEX, 32),
        [
            "Buzzsprout API token for podcast 1{d6}: {v}",
            "curl -H 'Authorization: Token token={v}' https://www.buzzsprout.com/api/1{d6}/episodes.json",
            "BUZZSPROUT_TOKEN={v}",
        ],
    )
    add(
        S,
        "soundcloud_oauth_token",
        lambda: f"2-{s(string.digits, 6)}-{s(string.digits, 9)}-{s(_ALNUM, 14)}",
        [
            "SoundCloud OAuth token for the label account uploads: {v}",
            "Authorization: OAuth {v}",
            "soundcloud access token (doesn't expire, old app): {v}",
        ],
    )
    add(
        S,
        "lastfm_api_secret",
        lambda: s(_HEX, 32),
        [
            "Last.fm scrobbler: api_key {h32}, shared secret {v}",
            "LASTFM_SHARED_SECRET={v}",
            "last.fm api secret = {v}; used for the api_sig md5",
        ],
    )
    add(
        S,
        "shutterstock_access_token",
        lambda: "v2/" + s(_ALNUM, 240),
        [
            "Shutterstock API access token (licensing enabled): {v}",
            "SHUTTERSTOCK_API_TOKEN={v}",
            "stock licensing script uses Bearer {v}",
        ],
    )
    add(
        S,
        "adobe_io_client_secret",
        lambda: "p8e-" + s(_URL, 32),
        [
            "Adobe Developer Console OAuth S2S for Frame/Stock: client_id {h32}, client_secret {v}",
            "ADOBE_CLIENT_SECRET={v}",
            "adobe io secret for the Premiere panel backend: {v}",
        ],
    )
    add(
        S,
        "frameio_developer_token",
        lambda: "fio-u-" + s(_URL, 64),
        [
            "Frame.io developer token (my user): {v}",
            "FRAMEIO_TOKEN={v}",
            "curl -H 'Authorization: Bearer {v}' https://api.frame.io/v2/me",
        ],
    )
    add(
        S,
        "figma_personal_access_token",
        lambda: "figd_" + s(_URL, 40),
        [
            "Figma PAT for the design-tokens export job: {v}",
            "FIGMA_TOKEN={v}",
            "X-Figma-Token: {v}",
        ],
    )
    add(
        S,
        "conductor_render_api_key",
        lambda: b64(96),
        [
            "Conductor render farm API key (project 'feature-vfx'): {v}",
            "CONDUCTOR_API_KEY={v}",
            'ciocore config: api_key = "{v}"',
        ],
    )
    add(
        S,
        "deadline_db_password",
        lambda: s(_ALNUM + "@$%^", 18),
        [
            "Deadline 10 repository MongoDB: mongodb://deadline:{v}@render-db01:27100/deadline10db",
            "Deadline Web Service password for user 'farmadmin': {v}",
            "render farm mongo admin pw = {v}",
        ],
    )
    add(
        S,
        "b2_application_key",
        lambda: "K005" + s(_URL, 27),
        [
            "Backblaze B2 archive bucket: keyID 005{h22}, applicationKey {v}",
            "B2_APPLICATION_KEY={v}",
            "rclone config [b2-archive]\ntype = b2\naccount = 005{h22}\nkey = {v}",
        ],
    )
    add(
        S,
        "cloudinary_api_secret",
        lambda: s(_URL, 27),
        [
            "CLOUDINARY_URL=cloudinary://{d15}:{v}@newsdesk",
            "Cloudinary: cloud newsdesk, api key {d15}, api secret {v}",
            "cloudinary.config(cloud_name='brand-assets', api_key='{d15}', api_secret='{v}')",
        ],
    )
    add(
        S,
        "bynder_permanent_token",
        lambda: s(_HEX, 64),
        [
            "Bynder permanent token for the DAM sync: {v}",
            "BYNDER_PERMANENT_TOKEN={v}",
            "dam.example.com (Bynder) bearer for the CMS connector: {v}",
        ],
    )
    add(
        S,
        "obs_websocket_password",
        lambda: s(_ALNUM, 16),
        [
            "OBS WebSocket server: port 4455, password {v} (stream deck plugin uses it)",
            "obs-cli --host studio-pc --port 4455 --password {v} scene switch 'Wide'",
            "websocket auth for control room OBS is {v}",
        ],
    )
    add(
        S,
        "streamelements_jwt",
        lambda: jwt(
            '{"citadel":"' + s(_HEX, 24) + '","role":"owner","channel":"' + s(_HEX, 24) + '"}'
        ),
        [
            "StreamElements JWT token (Account > Channels > Show secrets): {v}",
            "SE_JWT={v}",
            "overlay bot authenticates to StreamElements with Bearer {v}",
        ],
    )
    add(
        S,
        "wordpress_application_password",
        lambda: " ".join(s(_ALNUM, 4) for _ in range(6)),
        [
            "WP application password for user 'wire-import' on news.example.com: {v}",
            "curl --user 'wire-import:{v}' https://news.example.com/wp-json/wp/v2/posts",
            "WordPress app pw (named 'AP feed importer'): {v}",
        ],
    )
    add(
        S,
        "contentful_management_token",
        lambda: "CFPAT-" + s(_URL, 43),
        [
            "Contentful CMA token for migrations: {v}",
            "CONTENTFUL_MANAGEMENT_TOKEN={v}",
            "contentful space import --space-id {l12} --management-token {v}",
        ],
    )
    add(
        S,
        "sanity_api_token",
        lambda: "sk" + s(_ALNUM, 180),
        [
            "Sanity write token (Editor role) for the studio migration: {v}",
            "SANITY_API_WRITE_TOKEN={v}",
            "createClient({ projectId: '{l8}', dataset: 'production', token: '{v}' })",
        ],
    )
    add(
        S,
        "ghost_admin_api_key",
        lambda: f"{s(_HEX, 24)}:{s(_HEX, 64)}",
        [
            "Ghost Admin API key for the newsletter integration: {v}",
            "GHOST_ADMIN_API_KEY={v}",
            "ghost admin key (id:secret) -> {v}",
        ],
    )
    add(
        S,
        "strapi_api_token",
        lambda: s(_HEX, 256),
        [
            "Strapi full-access API token for the importer: {v}",
            "STRAPI_TOKEN={v}",
            "Authorization: Bearer {v}  (strapi cms.example.org)",
        ],
    )
    add(
        S,
        "slack_webhook_url",
        lambda: f"https://hooks.slack.com/services/T{s(_UP, 8)}/B{s(_UP, 10)}/{s(_ALNUM, 24)}",
        [
            "Breaking-news desk Slack webhook for the CMS publish alerts: {v}",
            "ENCODER_ALERT_WEBHOOK={v}",
            "stream health bot posts to #mcr via {v}",
        ],
    )
    add(
        S,
        "wowza_publish_password",
        lambda: s(_ALNUM + "!*", 14),
        [
            "Wowza publish.password entry for the field encoders: encoder1 {v}",
            "Wowza Streaming Engine source auth: user liveuser / pass {v}",
            "wowza manager admin password on wse-prod-02 is {v}",
        ],
    )
    add(
        S,
        "encoder_admin_password",
        lambda: s(_ALNUM + "#!", 13),
        [
            "Teradek Prism web UI login admin / {v}",
            "Kiloview N40 at 10.1.4.22, admin password {v} (changed from default)",
            "Elemental Live node el-03: ssh elemental@el-03 password {v}",
        ],
    )
    add(
        S,
        "agora_app_certificate",
        lambda: s(_HEX, 32),
        [
            "Agora App ID {h32}, App Certificate {v} (token server needs both)",
            "AGORA_APP_CERTIFICATE={v}",
            "primary certificate for the Agora live-audio project: {v}",
        ],
    )
    add(
        S,
        "twilio_auth_token",
        lambda: s(_HEX, 32),
        [
            "Twilio for the call-in show: Account SID AC{h32}, auth token {v}",
            "TWILIO_AUTH_TOKEN={v}",
            "twilio creds: AC{h32}:{v}",
        ],
    )
    add(
        S,
        "livekit_api_secret",
        lambda: s(_ALNUM, 43),
        [
            "LiveKit Cloud: API key API{a12}, API secret {v}",
            "LIVEKIT_API_SECRET={v}",
            "livekit.yaml\nkeys:\n  API{a12}: {v}",
        ],
    )
    add(
        S,
        "vonage_video_api_secret",
        lambda: s(_HEX, 40),
        [
            "OpenTok/Vonage Video project 4{d7} API secret: {v}",
            "OPENTOK_API_SECRET={v}",
            "vonage video secret for the remote-guest tool: {v}",
        ],
    )
    add(
        S,
        "dolby_publishing_token",
        lambda: s(_HEX, 64),
        [
            "Dolby.io Real-time Streaming publishing token (stream 'studioA'): {v}",
            "millicast publish token = {v}",
            "OBS WHIP to Dolby: https://director.millicast.com/api/whip/studioA , Bearer {v}",
        ],
    )
    add(
        S,
        "openssh_private_key_ingest",
        lambda: pem("OPENSSH PRIVATE KEY", 4),
        [
            "deploy key for the ingest box (rsync of recordings):\n{v}",
            "~/.ssh/id_ed25519 on the playout server:\n{v}",
            "key the render nodes use to pull from the asset NAS:\n{v}",
        ],
    )
    add(
        S,
        "google_service_account_key",
        lambda: pem("PRIVATE KEY", 4).replace("\n", "\\n"),
        [
            '{"type": "service_account", "client_email": "yt-up@newsco.iam.gserviceaccount.com", '
            '"private_key": "{v}"}',
            "service account for YouTube Content ID reports, private_key field: {v}",
            'GCP_SA_PRIVATE_KEY="{v}"',
        ],
    )
    add(
        S,
        "youtube_oauth_refresh_token",
        lambda: "1//0" + s(_URL, 99),
        [
            "YouTube upload OAuth refresh token (channel owner consented): {v}",
            "YT_REFRESH_TOKEN={v}",
            'token.json for the upload bot: {"refresh_token": "{v}"}',
        ],
    )
    add(
        S,
        "youtube_data_api_key",
        lambda: "AIza" + s(_URL, 35),
        [
            "YouTube Data API key (server, unrestricted) for the analytics cron: {v}",
            "YOUTUBE_API_KEY={v}",
            "https://www.googleapis.com/youtube/v3/videos?part=statistics&id=x&key={v}",
        ],
    )
    add(
        S,
        "pexels_api_key",
        lambda: s(_ALNUM, 56),
        [
            "Pexels API key for the b-roll search tool: {v}",
            "PEXELS_API_KEY={v}",
            "curl -H 'Authorization: {v}' 'https://api.pexels.com/videos/search?query=city'",
        ],
    )
    add(
        S,
        "unsplash_secret_key",
        lambda: s(_URL, 43),
        [
            "Unsplash app: access key {a43}, secret key {v}",
            "UNSPLASH_SECRET_KEY={v}",
            "unsplash oauth client_secret={v}",
        ],
    )
    add(
        S,
        "arc_xp_access_token",
        lambda: s(_UP, 32) + s(_ALNUM, 96),
        [
            "Arc XP developer access token (prod, Content API + Draft API): {v}",
            "ARC_ACCESS_TOKEN={v}",
            "curl -H 'Authorization: Bearer {v}' https://api.newsco.arcpublishing.com/draft/v1/story",
        ],
    )

    # ------------------------------------------------------------------ benign
    add(
        B,
        "stream_key_placeholder",
        lambda: "xxxx-xxxx-xxxx-xxxx-xxxx",
        [
            "YT stream key format is {v}; paste yours into OBS, never commit it",
            "docs snippet for streamers: Stream Key: {v} (shown once in YouTube Studio)",
            "the encoder preset template leaves key as {v} so ops fill it per event",
        ],
    )
    add(
        B,
        "stream_key_redacted",
        lambda: f"live_{s(string.digits, 9)}_" + "*" * 30,
        [
            "Twitch key shown in the error log was {v} - already masked by OBS",
            "ticket: stream key {v} (redacted) failed with 'invalid key' after reset",
            "screenshot of settings shows {v}, the rest hidden",
        ],
    )
    add(
        B,
        "stream_key_vault_ref",
        lambda: r.choice(
            [
                "op://Broadcast/Twitch main/stream key",
                "vault:secret/data/streaming/youtube#key",
                "${{ secrets.RESTREAM_STREAM_KEY }}",
            ]
        ),
        [
            "Stream key lives at {v}; CI injects it into the OBS profile",
            "encoder provisioning pulls key from {v} at boot",
            "where's the key? -> {v} (ask the MCR lead for access)",
        ],
    )
    add(
        B,
        "rtmp_ingest_base_url",
        lambda: r.choice(
            [
                "rtmp://live.twitch.tv/app/",
                "rtmp://a.rtmp.youtube.com/live2",
                "rtmps://live-api-s.facebook.com:443/rtmp/",
            ]
        ),
        [
            "Ingest server for the channel: {v} (key goes in a separate field)",
            "Server URL in OBS = {v}",
            "remember the trailing slash issue with {v} on older Wirecast builds",
        ],
    )
    add(
        B,
        "srt_url_no_passphrase",
        lambda: (
            f"srt://203.0.113.{r.randint(2, 250)}:{r.randint(5000, 9999)}?mode=caller&latency=200"
        ),
        [
            "Return feed to the studio over SRT, unencrypted on the private MPLS: {v}",
            "test pattern on {v} - no passphrase, it's bars and tone",
            "vMix SRT caller target: {v}",
        ],
    )
    add(
        B,
        "srt_pbkeylen_setting",
        lambda: f"pbkeylen={r.choice(['16', '24', '32'])}",
        [
            "SRT encryption settings: {v}, passphrase comes from the vault per event",
            "Makito default is {v}; both ends must match or handshake fails",
            "we standardised on {v} (AES) for all contribution links",
        ],
    )
    add(
        B,
        "whip_endpoint_url",
        lambda: f"https://whip.live.example.org/whip/endpoint/{uuid4()}",
        [
            "WHIP resource created: Location: {v} (DELETE it to stop)",
            "publish endpoint for stage B is {v}; the bearer token is issued per session",
            "WHEP playback endpoint mirrors the WHIP one: {v}",
        ],
    )
    add(
        B,
        "mux_playback_id",
        lambda: s(_ALNUM, 44),
        [
            "Mux public playback id for the explainer: {v} -> https://stream.mux.com/<id>.m3u8",
            '<mux-player playback-id="{v}" metadata-video-title="Election night"></mux-player>',
            "playback_id {v} policy=public",
        ],
    )
    add(
        B,
        "mux_data_env_key",
        lambda: s(_LOW, 26),
        [
            "Mux Data env key for the web player (client-side, public): {v}",
            "mux.monitor('#player', { data: { env_key: '{v}', player_name: 'web' } })",
            "MUX_DATA_ENV_KEY={v} - it's meant to ship in the JS bundle",
        ],
    )
    add(
        B,
        "cloudflare_stream_video_uid",
        lambda: s(_HEX, 32),
        [
            "Cloudflare Stream video uid {v} (public video, no signed URLs)",
            "iframe src https://customer-xyz.cloudflarestream.com/{v}/iframe",
            "stream uid for the trailer: {v}",
        ],
    )
    add(
        B,
        "cloudfront_key_pair_id",
        lambda: "K" + s(_UP, 13),
        [
            "CloudFront public key id in the trusted key group: {v}",
            "Key-Pair-Id={v} appears in every signed URL; it identifies the public key",
            "rotate: new public key {v} added to key group 'vod-signers'",
        ],
    )
    add(
        B,
        "cloudfront_public_key",
        lambda: pem("PUBLIC KEY", 4),
        [
            "public key uploaded to CloudFront for signed URLs:\n{v}",
            "verification side only needs this:\n{v}",
            "public_key.pem for the trusted key group\n{v}",
        ],
    )
    add(
        B,
        "signed_url_signature_redacted",
        lambda: f"Expires=1767225600&Signature=REDACTED&Key-Pair-Id=K{s(_UP, 13)}",
        [
            "bug report, signed URL returned 403: https://vod.example.tv/a.mp4?{v}",
            "log line (signature stripped by our logger): ?{v}",
            "example of the query shape we generate: {v}",
        ],
    )
    add(
        B,
        "url_signing_design_talk",
        None,
        [
            "CDN URL signing: HMAC-SHA256 over path + exp, token in ?hdnts=, key rotated from KMS",
            "Decided token auth window is 300s for live, 6h for VOD downloads; signer runs at edge",
            "bunny token = sha256(security_key + path + expires), base64url; key NOT in this repo",
        ],
    )
    add(
        B,
        "widevine_key_id",
        lambda: uuid4(),
        [
            "Widevine/PlayReady key id (KID) for the asset: {v} - safe, it's in the MPD",
            'cenc:default_KID="{v}"',
            "license denied for KID {v}, entitlement missing",
        ],
    )
    add(
        B,
        "pssh_box",
        lambda: "AAAA" + b64(60),
        [
            "pssh from the manifest (Widevine system id edef8ba9...): {v}",
            "<cenc:pssh>{v}</cenc:pssh>",
            "init data the player sent to the license server: {v}",
        ],
    )
    add(
        B,
        "fairplay_certificate_public",
        lambda: "MII" + b64(180),
        [
            "FairPlay application certificate (fairplay.cer, public, served to clients): {v}",
            "serverCertificate base64 for the Safari player: {v}",
            "cert the player fetches from /fps/cert: {v}",
        ],
    )
    add(
        B,
        "hls_ext_x_key_line",
        lambda: (
            f'#EXT-X-KEY:METHOD=AES-128,URI="https://keys.example.tv/k/{s(_LOW, 10)}",'
            f"IV=0x{s(_HEX, 32).upper()}"
        ),
        [
            "media playlist header:\n{v}",
            "player fetches the key via the URI (auth cookie required): {v}",
            "IV is public per spec, this line is fine to log: {v}",
        ],
    )
    add(
        B,
        "license_server_url",
        lambda: r.choice(
            [
                "https://lic.drm.example.com/widevine/getlicense",
                "https://playready.example.net/rightsmanager.asmx",
                "https://fps.example.org/license?contentId=",
            ]
        ),
        [
            "license server URL configured in Shaka: {v}",
            "DRM proxy endpoint: {v} (auth via short-lived session token)",
            "laUrl for the test player: {v}",
        ],
    )
    add(
        B,
        "mezzanine_sha256",
        lambda: s(_HEX, 64),
        [
            "sha256 of the ProRes mezzanine delivered to the OTT partner: {v}",
            "checksum manifest entry: {v}  ep104_master.mov",
            "file fixity check passed, sha256 {v}",
        ],
    )
    add(
        B,
        "git_commit_sha",
        lambda: s(_HEX, 40),
        [
            "packager fix landed in {v}",
            "OBS plugin build is from commit {v} of obs-ndi fork",
            "reverted {v} (broke SCTE-35 passthrough)",
        ],
    )
    add(
        B,
        "docker_image_digest",
        lambda: "sha256:" + s(_HEX, 64),
        [
            "transcoder image pinned to ffmpeg@{v}",
            "srt-live-server image digest {v}",
            "render node base image: {v}",
        ],
    )
    add(
        B,
        "spotify_client_id",
        lambda: s(_HEX, 32),
        [
            "Spotify client id (public, used in the PKCE flow): {v}",
            "SPOTIFY_CLIENT_ID={v}  # fine to expose, no secret with PKCE",
            "client_id={v}&response_type=code&code_challenge_method=S256",
        ],
    )
    add(
        B,
        "spotify_track_uri",
        lambda: s(_ALNUM, 22),
        [
            "bed music: spotify:track:{v}",
            "episode on Spotify: https://open.spotify.com/episode/{v}",
            "show id {v} in Spotify for Podcasters",
        ],
    )
    add(
        B,
        "podcast_guid",
        lambda: uuid4(),
        [
            "<podcast:guid>{v}</podcast:guid>",
            "episode guid {v} - keep stable or apps re-download",
            "podcast index lookup by guid {v}",
        ],
    )
    add(
        B,
        "isrc_upc_codes",
        lambda: f"US{s(_UP, 3)}{s(string.digits, 7)}",
        [
            "ISRC for the theme tune: {v}, UPC {d12}",
            "cue sheet line: 00:01:12 'Opening' ISRC {v}",
            "distributor rejected {v} as duplicate ISRC",
        ],
    )
    add(
        B,
        "adobe_io_client_id",
        lambda: s(_HEX, 32),
        [
            "Adobe IO client id (API key header x-api-key for public Stock search): {v}",
            "UXP plugin manifest id / client id {v}",
            "x-api-key: {v} (identifies the integration; secret is separate and in vault)",
        ],
    )
    add(
        B,
        "figma_file_key",
        lambda: s(_ALNUM, 22),
        [
            "design system file: https://www.figma.com/design/{v}/Broadcast-Graphics",
            "figma file key {v}, node 12:345 for the lower-thirds",
            "export script reads file_key={v}",
        ],
    )
    add(
        B,
        "figma_token_placeholder",
        lambda: "figd_" + "X" * 40,
        [
            "README for the plugin: set FIGMA_TOKEN={v}",
            "example: X-Figma-Token: {v}",
            "token shape is {v} (yours will be different)",
        ],
    )
    add(
        B,
        "cloudinary_api_key_public",
        lambda: s(string.digits, 15),
        [
            "Cloudinary api_key {v} is used by the unsigned upload widget; secret stays in Vault",
            "cloud name brand-assets, api key {v} (public identifier)",
            "upload preset 'ugc_unsigned' with api_key {v}",
        ],
    )
    add(
        B,
        "obs_profile_empty_key",
        lambda: '"key": ""',
        [
            'fresh OBS service.json: {"settings": {"server": "auto", {v}}}',
            "scene collection exported with {v} so it's safe to share",
            "after wipe the profile shows {v} - operator re-enters it",
        ],
    )
    add(
        B,
        "obs_hotkey",
        lambda: r.choice(["Ctrl+Shift+F9", "F13", "Alt+Numpad5"]),
        [
            "OBS hotkey to start streaming: {v}",
            "Stream Deck key 3 sends {v} to toggle the replay buffer",
            "push-to-talk key for the producer mic = {v}",
        ],
    )
    add(
        B,
        "musical_key",
        lambda: r.choice(["F# minor", "Bb major", "D dorian"]),
        [
            "stinger track is in the key of {v}, 128 BPM",
            "key: {v} - tag it in the music library metadata",
            "Epidemic track works, key {v}, matches the bed",
        ],
    )
    add(
        B,
        "keyframe_interval",
        lambda: r.choice(
            ["-g 120 -keyint_min 120", "keyint=60:min-keyint=60", "x264-params keyint=48"]
        ),
        [
            "Twitch needs a 2s key frame interval: {v}",
            "ffmpeg ladder uses {v} so segments align",
            "encoder key setting: {v} (no scenecut)",
        ],
    )
    add(
        B,
        "chroma_key",
        lambda: r.choice(["#00B140", "#00FF00", "#0047BB"]),
        [
            "chroma key colour for studio 2 green screen: {v}, similarity 400",
            "key colour {v}, spill reduction 80",
            "virtual set keyer uses {v}",
        ],
    )
    add(
        B,
        "template_token_placeholder",
        lambda: r.choice(["{{token.headline}}", "{{secret.title}}", "[[password_hint]]"]),
        [
            "lower-third template token: {v} gets replaced by the CMS",
            "CasparCG template field {v} maps to the story's kicker",
            "graphics engine substitutes {v} at playout",
        ],
    )
    add(
        B,
        "llm_token_count",
        lambda: f"{r.randint(2, 32) * 512} tokens",
        [
            "transcripts chunked at {v} before summarising",
            "subtitle translation prompt is ~{v}",
            "context limit hit at {v} on the 3h podcast",
        ],
    )
    add(
        B,
        "password_rotation_note",
        None,
        [
            "Rotated the Wowza publish password today; new one is in 1Password item 'Wowza prod'",
            "Stream keys for all channels reset after the leak; nobody should have the old ones",
            "Encoder UI passwords must be 14+ chars, set per device from the vault",
        ],
    )
    add(
        B,
        "wordpress_app_password_placeholder",
        lambda: "xxxx xxxx xxxx xxxx xxxx xxxx",
        [
            "WP application passwords look like {v}; generate one per integration",
            "docs: --user 'importer:{v}'",
            'config example APP_PASSWORD="{v}"',
        ],
    )
    add(
        B,
        "contentful_space_id",
        lambda: s(_LOW, 12),
        [
            "Contentful space id {v}, environment master",
            "contentful space export --space-id {v} (token from env)",
            "newsroom content model lives in space {v}",
        ],
    )
    add(
        B,
        "sanity_project_id",
        lambda: s(_LOW, 8),
        [
            "Sanity project id {v}, dataset production (public dataset)",
            "sanity.config.ts: projectId: '{v}'",
            "studio url https://{v}.sanity.studio",
        ],
    )
    add(
        B,
        "ghost_content_api_key",
        lambda: s(_HEX, 26),
        [
            "Ghost Content API key (browser-safe, read-only public posts): {v}",
            "new GhostContentAPI({ url: 'https://blog.example.com', key: '{v}', version: 'v5.0' })",
            "content key {v} is fine in the frontend bundle per Ghost docs",
        ],
    )
    add(
        B,
        "algolia_search_only_key",
        lambda: s(_HEX, 32),
        [
            "Algolia search-only API key for the archive search page: {v}",
            "algoliasearch('{u10}', '{v}') // search-only, public",
            "ALGOLIA_SEARCH_KEY={v} (frontend; admin key is in vault)",
        ],
    )
    add(
        B,
        "agora_app_id",
        lambda: s(_HEX, 32),
        [
            "Agora App ID {v} (public identifier; tokens come from our token server)",
            "client.join('{v}', channel, token, uid)",
            "agora project app id = {v}",
        ],
    )
    add(
        B,
        "livekit_api_key_id",
        lambda: "API" + s(_ALNUM, 12),
        [
            "LiveKit API key name {v} (the secret is separate, in k8s secret livekit-keys)",
            "token minted for room 'green-room' by key {v}",
            "rotate LiveKit key {v} next sprint",
        ],
    )
    add(
        B,
        "twilio_account_sid",
        lambda: "AC" + s(_HEX, 32),
        [
            "Twilio account SID {v} for the call-in line",
            "webhooks signed for account {v}",
            "sub-account {v} used for the podcast voicemail",
        ],
    )
    add(
        B,
        "aws_access_key_id_alone",
        lambda: "AKIA" + s(_UP, 16),
        [
            "CloudTrail shows PutObject from access key id {v} (secret not exposed, just the id)",
            "IAM user mediaconvert-runner has key id {v}; secret is in Secrets Manager",
            "deactivated key id {v} in IAM after the offboarding",
        ],
    )
    add(
        B,
        "eidr_id",
        lambda: "10.5240/" + "-".join(s(_HEX.upper(), 4) for _ in range(5)) + "-" + r.choice(_UP),
        [
            "EIDR for the documentary: {v}",
            "Avail sheet row: {v}, territory US, window SVOD",
            "match on EIDR {v} failed in the partner feed",
        ],
    )
    add(
        B,
        "deadline_job_id",
        lambda: s(_HEX, 24),
        [
            "Deadline job {v} stuck at 97% on frames 1001-1012",
            "requeue render job id {v} with priority 80",
            "deadlinecommand -GetJob {v}",
        ],
    )
    add(
        B,
        "ssh_host_key_fingerprint",
        lambda: "SHA256:" + s(_B64, 43),
        [
            "ingest box host key fingerprint {v} (verify on first connect)",
            "known_hosts check: ED25519 key fingerprint is {v}",
            "playout server fingerprint changed to {v} after reinstall",
        ],
    )
    add(
        B,
        "ssh_public_key",
        lambda: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + s(_B64, 43) + " render@farm",
        [
            "add this to authorized_keys on the NAS: {v}",
            "render nodes' public key: {v}",
            "pubkey for the ingest rsync user: {v}",
        ],
    )
    add(
        B,
        "pgp_public_key_block",
        lambda: pem("PGP PUBLIC KEY BLOCK", 4),
        [
            "investigations desk public key for tips:\n{v}",
            "publish on /contact so sources can encrypt:\n{v}",
            "newsroom tips key (public half):\n{v}",
        ],
    )
    add(
        B,
        "jwt_io_example",
        lambda: (
            "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9l"
            "IiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
        ),
        [
            "jwt.io sample token (John Doe) used in the player auth unit docs: {v}",
        ],
    )
    add(
        B,
        "env_var_names_only",
        None,
        [
            "Uploader env: MUX_TOKEN_ID, MUX_TOKEN_SECRET, VIMEO_TOKEN (set in CI, not here)",
            "FIGMA_TOKEN= and FRAMEIO_TOKEN= left empty in .env.example",
            "podcast sync needs SPOTIFY_CLIENT_SECRET, BUZZSPROUT_TOKEN -> GitHub Actions secrets",
        ],
    )
    add(
        B,
        "twitch_client_id",
        lambda: s(_LOW, 30),
        [
            "Twitch app client id (public, sent as Client-Id header): {v}",
            "Client-Id: {v}",
            "extension client id {v} in the manifest",
        ],
    )
    add(
        B,
        "youtube_channel_and_video_ids",
        lambda: "UC" + s(_URL, 22),
        [
            "YT channel id {v}, latest VOD id {a11}",
            "embed https://www.youtube.com/channel/{v}/live",
            "Content ID claims for channel {v}",
        ],
    )
    add(
        B,
        "blurhash",
        lambda: s(_ALNUM + "#$%*+,-.:;=?@[]^_{|}~", 28),
        [
            "poster placeholder blurhash: {v}",
            "thumbnail blurHash {v} stored with the asset",
            "CMS image field blur = '{v}'",
        ],
    )
    add(
        B,
        "timecode_and_umid",
        lambda: "060A2B340101010501010D43130000" + s(_HEX.upper(), 34),
        [
            "SMPTE UMID of the camera clip: {v}, TC 10:02:13:07",
            "MXF material package UMID {v}",
            "UMID {v} mismatched between EDL and the media",
        ],
    )
    add(
        B,
        "request_id_uuid",
        lambda: uuid4(),
        [
            "MediaConvert job failed, request id {v}",
            "x-request-id: {v} (support ticket)",
            "trace {v} shows 2.3s in the packager",
        ],
    )
    add(
        B,
        "frameio_asset_id",
        lambda: uuid4(),
        [
            "Frame.io asset id for the rough cut: {v}",
            "review link points at asset {v}, v3 comments",
            "C2C device uploaded to asset {v}",
        ],
    )
    add(
        B,
        "bynder_asset_id",
        lambda: "-".join(
            [s(_HEX.upper(), 8), s(_HEX.upper(), 4), s(_HEX.upper(), 4), s(_HEX.upper(), 16)]
        ),
        [
            "Bynder media id {v} (logo pack)",
            "DAM asset {v} linked to the article hero",
            "derivative missing for Bynder asset {v}",
        ],
    )
    add(
        B,
        "securedrop_onion",
        lambda: s("abcdefghijklmnopqrstuvwxyz234567", 56) + ".onion",
        [
            "SecureDrop address published on the tips page: {v}",
            "verify onion {v} matches the one in the print edition",
            "tips onion service (public): {v}",
        ],
    )

    add(
        B,
        "srt_streamid_syntax",
        lambda: f"#!::r=live/cam{r.randint(1, 9)},m=request",
        [
            "SRT playback streamid for the confidence monitor: {v} (listener is read-only)",
            "srt-live-server access syntax reminder: streamid={v}",
            "multiviewer pulls with {v}; publishing uses a per-event passphrase from vault",
        ],
    )
    add(
        B,
        "s3_etag_md5",
        lambda: s(_HEX, 32),
        [
            'S3 ETag of the uploaded proxy: "{v}" (single-part, so it is the MD5)',
            "md5 {v} matches what Aspera reported",
            "ETag {v}-12 on the multipart master upload",
        ],
    )
    add(
        B,
        "data_uri_thumbnail",
        lambda: "data:image/webp;base64,UklGR" + b64(48),
        [
            "tiny poster inlined in the AMP story: {v}",
            "LQIP for the hero image: {v}",
            "og fallback thumb (inline) {v}",
        ],
    )
    add(
        B,
        "obs_websocket_auth_disabled",
        lambda: "4455",
        [
            "OBS WebSocket on the lab PC: port {v}, authentication disabled (isolated VLAN)",
            "obs-websocket listens on {v}; password is set per show from the ops vault",
            "Companion connects to OBS ws port {v} - check 'Enable Authentication' before prod",
        ],
    )

    return rows


def main() -> None:
    rows = corpus()
    texts = [r["text"] for r in rows]
    assert len(texts) == len(set(texts)), "duplicate texts"
    lines = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w", encoding="utf-8") as out:
            out.write(lines)
    else:
        sys.stdout.write(lines)


if __name__ == "__main__":
    main()

"""Provider formats: secrets a token's own shape gives away (`sk-ant-api03-...`, `whsec_...`,
a BitLocker recovery password, a dumped NTLM line), which gitleaks' rules (core/secret_rules.py)
miss or know only next to a keyword, and the literals that wake each. core/secrets.py runs them
where their literal is; what a match must be to count is core/secret_values.py. Pure: standard
library only.
"""

from __future__ import annotations

import re

# --- provider formats: the token alone is the secret ------------------------------------------

# gitleaks' rules (core/secret_rules.py) know ~220 providers. These are the formats they miss
# or know only next to a keyword: a memory names keys in prose ("my key is sk-ant-..."), and
# a PostHog personal key and an FCM legacy server key have no gitleaks rule at all. An
# Anthropic key has 93 characters and `AA` after its prefix: in prose, 80 or more are taken
# (cut or not); a shorter run is made up (gitleaks' own false cases are). A Telegram bot token
# has `AA` and 33 more after its bot id: 30 or more are taken, cut short or not.
_PROVIDERS: tuple[tuple[str, str], ...] = (
    ("anthropic-key", r"\bsk-ant-(?:api|admin)\d\d-[A-Za-z0-9_-]{80,}"),
    ("openai-key", r"\bsk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,}"),
    ("openai-key", r"\bsk-[A-Za-z0-9]{48}\b"),
    ("google-oauth-secret", r"\bGOCSPX-[A-Za-z0-9_-]{28}\b"),
    ("mailgun-key", r"\bkey-[0-9a-z]{32}\b"),
    ("shopify-token", r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b"),
    ("databricks-token", r"\bdapi[a-f0-9]{32}(?:-\d)?\b"),
    ("square-token", r"\bsq0(?:atp|csp)-[0-9A-Za-z_-]{22,43}(?![A-Za-z0-9_-])"),
    ("telegram-bot-token", r"(?:\b|(?<=bot))\d{8,10}:AA[0-9A-Za-z_-]{30,33}(?![A-Za-z0-9_-])"),
    (
        "discord-webhook",
        r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d+/[\w-]{30,}",
    ),
    ("azure-storage-key", r"(?i:AccountKey)=[A-Za-z0-9+/]{86}==(?=;|\s|$|[\"'])"),
    # PostHog: `phx_` is a personal API key (its `phc_` project key is public by design).
    ("posthog-personal-api-key", r"\bphx_[A-Za-z0-9]{30,}\b"),
    # Firebase Cloud Messaging's legacy server key: `AAAA` + 7, `:APA91b` + ~134.
    ("fcm-server-key", r"\bAAAA[A-Za-z0-9_-]{7}:APA91b[A-Za-z0-9_-]{100,}"),
    ("dockerhub-pat", r"\bdckr_pat_[A-Za-z0-9_-]{24,}"),
    ("stripe-secret-key", r"\b[rs]k_live_[A-Za-z0-9]{24,}"),
    ("flyio-access-token", r"\bFlyV1 fm[12][ar]?_[A-Za-z0-9+/_=,-]{50,}"),
    ("netlify-token", r"\bnfp_[A-Za-z0-9]{36}\b"),
    ("bitbucket-app-password", r"\bATBB[A-Za-z0-9_=.-]{24,}"),
    ("pulumi-api-token", r"\bpul-[a-f0-9]{40}\b"),
    ("notion-token", r"\b(?:secret_[A-Za-z0-9]{43}|ntn_[A-Za-z0-9]{40,})\b"),
    ("mapbox-secret-token", r"\bsk\.eyJ[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}"),
    ("buildkite-token", r"\bbkua_[0-9a-f]{40}\b"),
    ("xai-api-key", r"\bxai-[A-Za-z0-9]{70,}"),
    ("oracle-jdbc-password", r"jdbc:oracle:thin:[^/\s@]+/[^@\s]{6,}@"),
    ("openvpn-static-key", r"-----BEGIN OpenVPN Static key V1-----\s+[0-9a-f]{32}"),
    ("atlassian-api-token", r"\bATATT3[A-Za-z0-9_=-]{100,}"),
    ("woocommerce-key", r"\bc[ks]_[0-9a-f]{40}\b"),
    ("sendgrid-api-token", r"\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])"),
    ("stripe-webhook-secret", r"\bwhsec_[A-Za-z0-9+/]{24,}"),
    # A Discord bot token: the bot's id in base64 (`M`, `N` or `O` first), a time, an HMAC.
    ("discord-bot-token", r"\b[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}\b"),
    # A BIP-32 extended private key; a Bitcoin private key in WIF after what names one.
    ("bip32-xprv", r"\b[xt]prv[1-9A-HJ-NP-Za-km-z]{100,112}\b"),
    ("bitcoin-wif", r"(?i:wif|privkey)\b[^\n]{0,40}?\b[5KLc][1-9A-HJ-NP-Za-km-z]{50,51}\b"),
    # Node providers' endpoints, whose path is the key.
    ("alchemy-api-key", r"\.g\.alchemy\.com/v2/[A-Za-z0-9_-]{32}\b"),
    ("quicknode-token", r"\.quiknode\.pro/[0-9a-f]{40}\b"),
    ("infura-project-key", r"\binfura\.io/(?:ws/)?v3/[0-9a-f]{32}\b"),
    ("ankr-rpc-key", r"\brpc\.ankr\.com/\w+/[0-9a-f]{64}\b"),
    ("thegraph-api-key", r"\bgateway(?:-[a-z]+)?\.thegraph\.com/api/[0-9a-f]{32}\b"),
    # A Nostr secret key (bech32 `nsec1`); an LND macaroon in hex (v2, location `lnd`), which
    # is the node's bearer credential.
    ("nostr-secret-key", r"\bnsec1[02-9ac-hj-np-z]{58}\b"),
    ("lnd-macaroon", r"\b0201036c6e64[0-9a-f]{60,}"),
    # A Backblaze B2 application key: `K00` and a digit, 27 more.
    # Hugging Face and Sentry user tokens, a New Relic license key, LaunchDarkly's server SDK key.
    ("huggingface-token", r"\bhf_[A-Za-z0-9]{34}\b"),
    ("sentry-user-token", r"\bsntryu_[0-9a-f]{64}\b"),
    ("newrelic-license-key", r"\b[0-9a-f]{36}NRAL\b"),
    (
        "launchdarkly-sdk-key",
        r"\bsdk-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b",
    ),
    # A PKCS#12 bundle (.pfx) in base64: a certificate with its private key.
    ("pkcs12-base64", r"\bMII[A-Za-z0-9+/]{2}QIBAzCC[A-Za-z0-9+/]{60,}"),
    # An Azure Function's key in its URL.
    (
        "azure-function-key",
        r"\.azurewebsites\.net/api/[\w/-]+\?(?:[^\s#]*&)?code=[A-Za-z0-9_-]{40,}={0,2}",
    ),
    # Supabase's secret API keys, Segment's public API tokens (`sgp_`), HubSpot private app
    # tokens, a Meta (Facebook) access token, a Cloudflare tunnel's token by its claims.
    ("supabase-secret-key", r"\bsb_secret_[A-Za-z0-9_-]{20,}"),
    ("segment-api-token", r"\bsgp_[A-Za-z0-9]{64}\b"),
    (
        "hubspot-private-app-token",
        r"\bpat-(?:na|eu|ap)\d-[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}\b",
    ),
    ("facebook-access-token", r"\bEAA[A-Za-z0-9]{8}[A-Za-z0-9]{90,}"),
    ("cloudflare-tunnel-token", r"\beyJhIjoi[A-Za-z0-9+/]{60,}={0,2}"),
    # age's secret key (bech32, loosely), a Salesforce session id, a Mailchimp key with its
    # one-digit data centre, a ThingsBoard device token in its URL.
    ("age-secret-key", r"\bAGE-SECRET-KEY-1[0-9A-Z]{58}\b"),
    ("salesforce-session-id", r"\b00D[A-Za-z0-9]{12,15}![A-Za-z0-9._]{80,}"),
    ("mailchimp-api-key", r"\b[0-9a-f]{32}-us\d{1,2}\b"),
    # Plaid's access tokens outside the sandbox; an Adyen API key (`AQE...=-...=-...`).
    (
        "plaid-access-token",
        r"\baccess-(?:production|development)-[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}\b",
    ),
    ("twitch-stream-key", r"\blive_\d{6,12}_[A-Za-z0-9]{30}\b"),
    ("adyen-api-key", r"\bAQE[A-Za-z0-9+/]{20,}={0,2}-[A-Za-z0-9+/]{20,}={0,2}-[\w+/=,.-]{8,}"),
    ("thingsboard-device-token", r"/api/v1/[A-Za-z0-9]{20}/(?:telemetry|attributes|rpc)\b"),
    # Mercado Pago's access token (its public key is `APP_USR-` and a uuid); an ArcGIS API key
    # or access token; Mailgun's private API key as issued since 2020 (hex, then two groups of
    # 8); a PagerDuty Events v2 integration key, named `routing_key` in its payload.
    ("mercadopago-access-token", r"\bAPP_USR-\d{16}-\d{6}-[0-9a-f]{32}-\d{6,12}\b"),
    ("arcgis-api-key", r"\bAAP[KT][A-Za-z0-9]{32}[A-Za-z0-9_-]{40,}"),
    ("mailgun-private-key", r"\b[0-9a-f]{32}-[0-9a-f]{8}-[0-9a-f]{8}\b"),
    (
        "pagerduty-integration-key",
        r"(?:(?<=routing_key\": \")|(?<=routing_key\":\")|(?<=routing_key: \")|(?<=routing_key: )"
        r"|(?<=routing_key=)|(?<=routing_key=\")|(?<=routing_key: ')|(?<=routing_key = \")"
        r"|(?<=routing key )|(?<=routing key: )|(?<=integration key )|(?<=integration key: ))"
        r"[0-9a-f]{32}\b",
    ),
    ("backblaze-application-key", r"\bK00\d[A-Za-z0-9+/]{27}(?![A-Za-z0-9+/])"),
    # Written ahead of any corpus that shows them, from the providers' documentation: payment
    # and messaging providers' secret keys by their prefixes (Midtrans' server key, Omise's,
    # Checkout.com's sandbox key, Africa's Talking's, Mollie's live key, Cashfree's,
    # Flutterwave's live key beside gitleaks' test one, Infobip's key), developer platforms'
    # (Supabase's and Neon's management keys, OpenRouter's, LangSmith's, NuGet's), an Amazon
    # MWS auth token. Their public halves (`Mid-client-`, `pkey_`, `pk_sbox_`) are not taken.
    ("midtrans-server-key", r"\b(?:SB-)?Mid-server-[A-Za-z0-9_-]{20,40}"),
    ("omise-secret-key", r"\bskey_(?:test_)?[0-9a-z]{19,40}\b"),
    ("checkout-secret-key", r"\bsk_sbox_[a-z0-9]{26,40}\b"),
    ("africastalking-api-key", r"\batsk_[0-9a-f]{64}\b"),
    ("mollie-api-key", r"\blive_[A-Za-z0-9]{30}\b"),
    ("cashfree-secret-key", r"\bcfsk_ma_(?:prod|test)_[A-Za-z0-9_]{30,80}"),
    ("flutterwave-secret-key", r"\bFLWSECK-[0-9a-f]{32}-X\b"),
    ("infobip-api-key", r"\b[0-9a-f]{32}-[0-9a-f]{8}-(?:[0-9a-f]{4}-){3}[0-9a-f]{12}\b"),
    ("supabase-access-token", r"\bsbp_[0-9a-f]{40}\b"),
    ("neon-api-key", r"\bnapi_[a-z0-9]{64}\b"),
    ("openrouter-api-key", r"\bsk-or-v1-[0-9a-f]{64}\b"),
    ("langsmith-api-key", r"\blsv2_(?:pt|sk)_[0-9a-f]{32}_[0-9a-f]{10}\b"),
    ("nuget-api-key", r"\boy2[a-z0-9]{43}\b"),
    # A Teams incoming webhook's older address (outlook.office.com) and a tenant's name with a
    # hyphen, which gitleaks' rule leaves; an ODK Central app user's key in its server URL; a
    # DHIS2 personal access token.
    (
        "microsoft-teams-webhook",
        r"https://(?:outlook\.office(?:365)?\.com/webhook|[a-z0-9-]+\.webhook\.office\.com/webhookb2)"
        r"/[0-9a-f-]{36}@[0-9a-f-]{36}/IncomingWebhook/[0-9a-f]{32}/[0-9a-f-]{36}",
    ),
    ("odk-central-app-user-key", r"/v1/key/[A-Za-z0-9!$]{64}/projects/\d+"),
    ("dhis2-personal-access-token", r"\bd2pat_[A-Za-z0-9]{32,50}\b"),
    # An Azure storage account's key (64 bytes in base64, where storage is named; not an SRI
    # hash's `sha512-...`); a Mews connector's access or client token.
    ("azure-storage-account-key", r"(?<![A-Za-z0-9+/-])[A-Za-z0-9+/]{86}==(?![A-Za-z0-9+/=])"),
    ("mews-token", r"\b[0-9A-F]{32}-[0-9A-F]{31}\b"),
    # An AWS access key id as writers spell it (any digit; AWS issues base32's); a Vault
    # service token of the short form; an AIS provider's key in its API's path; an XML
    # element holding a transaction key.
    ("aws-access-key-id", r"\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b"),
    ("vault-service-token", r"\bhv[sbr]\.[A-Za-z0-9_-]{24}\b"),
    ("ais-api-key", r"/api/[a-z]+/v:\d+/[0-9a-f]{40}(?=/|\b)"),
    # An e-prescription's access code (gematik's `$accept?ac=`); a Hik-Connect device's
    # verification code (six capitals on its label, the key of its stream's encryption).
    ("erezept-access-code", r"\$accept\?ac=[0-9a-f]{64}\b"),
    (
        "hik-connect-verification-code",
        r"(?i:(?:hik-?connect|ezviz)[^\n]{0,60}?v[ée]rifi|v[ée]rifi[^\n]{0,40}?(?:hik-?connect|ezviz))"
        r"[^\n]{0,80}?\b[A-Z]{6}\b",
    ),
    ("amazon-mws-auth-token", r"\bamzn\.mws\.[0-9a-f]{8}-(?:[0-9a-f]{4}-){3}[0-9a-f]{12}\b"),
    # A satellite feed's BISS key: BISS-1's 12 hex digits, BISS-E's 16, after its name.
    (
        "biss-key",
        r"\bBISS(?:-?(?:1|E|CA))?\b[^\n]{0,60}?[:\s][ \t]*"
        r"(?:[0-9A-Fa-f]{4}[ -]?){2}[0-9A-Fa-f]{4}(?:[ -]?[0-9A-Fa-f]{4})?(?![\w-])",
    ),
    # A keypair as a JSON array of 64 bytes (Solana's), a Zigbee network key as 16 bytes.
    ("solana-keypair", r"\[\s*(?:\d{1,3}\s*,\s*){63}\d{1,3}\s*\]"),
    ("zigbee-network-key", r"network_key(?::| is| =)\s*\[\s*(?:\d{1,3}\s*,\s*){15}\d{1,3}\s*\]"),
    # Z-Wave JS's security keys, by their names; minisign's secret key file.
    (
        "zwave-security-key",
        r"\bS(?:0_Legacy|2_(?:Unauthenticated|Authenticated|AccessControl))[\"']?\s*[:=]\s*[\"']?"
        r"[0-9A-Fa-f]{32}\b",
    ),
    ("minisign-secret-key", r"untrusted comment:[^\n]*secret key\s*\n\s*RW[A-Za-z0-9+/]{40,}"),
    # A BitLocker recovery password: eight groups of six digits.
    ("bitlocker-recovery-key", r"\b\d{6}(?:-\d{6}){7}\b"),
    # A dumped Windows hash line (`user:RID:LM:NT:::`), which passes for the password.
    ("ntlm-hash", r"[\w.$-]+:\d+:[0-9a-fA-F]{32}:[0-9a-fA-F]{32}:::"),
    (
        "feishu-webhook",
        r"https://open\.(?:feishu\.cn|larksuite\.com)/open-apis/bot/v2/hook/[0-9a-f-]{36}",
    ),
    # PostgreSQL's stored password verifiers, which log in where they are kept (pgbouncer's
    # userlist, `pg_authid`): `md5` + md5(password + user), a SCRAM verifier.
    ("postgres-md5-verifier", r"\bmd5[0-9a-f]{32}\b"),
    (
        "scram-verifier",
        r"\bSCRAM-SHA-(?:1|256)\$\d+:[A-Za-z0-9+/]+={0,2}\$[A-Za-z0-9+/]+={0,2}:[A-Za-z0-9+/]+={0,2}",
    ),
    ("adafruit-io-key", r"\baio_[A-Za-z0-9]{28}\b"),
    ("tailscale-key", r"\btskey-(?:auth|api|client|scim|webhook)-[A-Za-z0-9]{6,}-[A-Za-z0-9]{20,}"),
    ("helicone-key", r"\bsk-helicone-[a-z0-9]{7}(?:-[a-z0-9]{7}){3}\b"),
    ("resend-api-key", r"\bre_[A-Za-z0-9]{8}_[A-Za-z0-9]{24}\b"),
    ("klaviyo-private-key", r"Klaviyo-API-Key\s+pk_[A-Za-z0-9]{30,}"),
    # Juniper's `$9$` strings, which any tool turns back into the password.
    ("juniper-type9-secret", r"\$9\$[A-Za-z0-9./\-]{10,}"),
    # Capability URLs: whoever holds one triggers a workflow or a deploy.
    ("zapier-webhook", r"https://hooks\.zapier\.com/hooks/catch/\d+/[a-z0-9]{6}\b"),
    ("make-webhook", r"https://hook\.[a-z]{2}\d\.make\.com/[a-z0-9]{32}\b"),
    ("vercel-deploy-hook", r"https://api\.vercel\.com/v1/integrations/deploy/prj_\w+/\w{8,}"),
    ("netlify-build-hook", r"https://api\.netlify\.com/build_hooks/[0-9a-f]{24}\b"),
    ("render-deploy-hook", r"https://api\.render\.com/deploy/srv-[a-z0-9]+\?key=[\w-]{8,}"),
    (
        "cloudflare-tunnel-token",
        r"\bcloudflared\b[^\n]{0,40}?(?:install|--token)\s+eyJ[A-Za-z0-9+/=]{50,}",
    ),
    # An X (Twitter) app's bearer token: a run of `A` and the token.
    ("twitter-bearer-token", r"\bA{20,22}[A-Za-z0-9%]{50,}"),
)


# Each rule runs only when a literal it needs is in the text: `in` is a C scan,
# a regex over a long body is not (benchmarks/secret_detection.py measures what a record costs).
_TRIGGERS: dict[str, tuple[str, ...]] = {
    "anthropic-key": ("sk-ant-",),
    "openai-key": ("sk-",),
    "google-oauth-secret": ("GOCSPX-",),
    "mailgun-key": ("key-",),
    "shopify-token": ("shpat_", "shpca_", "shppa_", "shpss_"),
    "databricks-token": ("dapi",),
    "square-token": ("sq0",),
    "telegram-bot-token": (":AA",),
    "discord-webhook": ("/api/webhooks/",),
    "azure-storage-key": ("ccountKey=", "CCOUNTKEY=", "ccountkey="),
    "posthog-personal-api-key": ("phx_",),
    "fcm-server-key": (":APA91b",),
    "dockerhub-pat": ("dckr_pat_",),
    "stripe-secret-key": ("sk_live_", "rk_live_"),
    "flyio-access-token": ("FlyV1 ",),
    "netlify-token": ("nfp_",),
    "bitbucket-app-password": ("ATBB",),
    "pulumi-api-token": ("pul-",),
    "notion-token": ("secret_", "ntn_"),
    "mapbox-secret-token": ("sk.eyJ",),
    "buildkite-token": ("bkua_",),
    "xai-api-key": ("xai-",),
    "oracle-jdbc-password": ("jdbc:oracle",),
    "openvpn-static-key": ("OpenVPN Static key",),
    "atlassian-api-token": ("ATATT3",),
    "woocommerce-key": ("ck_", "cs_"),
    "sendgrid-api-token": ("SG.",),
    "stripe-webhook-secret": ("whsec_",),
    "discord-bot-token": ("discord", "bot", "token", ".run("),
    "feishu-webhook": ("open-apis/bot",),
    "bitlocker-recovery-key": ("bitlocker", "recovery", "récupération", "wiederherstellung"),
    "ntlm-hash": (":::",),
    "bip32-xprv": ("xprv", "tprv"),
    "bitcoin-wif": ("wif", "privkey"),
    "alchemy-api-key": ("alchemy.com/v2/",),
    "quicknode-token": ("quiknode.pro/",),
    "solana-keypair": ("keypair", "["),
    "infura-project-key": ("infura.io/",),
    "ankr-rpc-key": ("rpc.ankr.com/",),
    "thegraph-api-key": ("thegraph.com/api/",),
    "nostr-secret-key": ("nsec1",),
    "lnd-macaroon": ("0201036c6e64",),
    "backblaze-application-key": ("K00",),
    "midtrans-server-key": ("mid-server-",),
    "omise-secret-key": ("skey_",),
    "checkout-secret-key": ("sk_sbox_",),
    "africastalking-api-key": ("atsk_",),
    "mollie-api-key": ("live_",),
    "cashfree-secret-key": ("cfsk_ma_",),
    "flutterwave-secret-key": ("FLWSECK-",),
    "infobip-api-key": ("infobip", "authorization: app"),
    "supabase-access-token": ("sbp_",),
    "neon-api-key": ("napi_",),
    "openrouter-api-key": ("sk-or-v1-",),
    "langsmith-api-key": ("lsv2_",),
    "nuget-api-key": ("oy2",),
    "amazon-mws-auth-token": ("amzn.mws.",),
    "biss-key": ("biss",),
    "erezept-access-code": ("$accept?ac=",),
    "hik-connect-verification-code": ("hik-connect", "hikconnect", "ezviz"),
    "aws-access-key-id": ("akia", "asia", "abia", "acca"),
    "vault-service-token": ("hvs.", "hvb.", "hvr."),
    "ais-api-key": ("/v:",),
    "azure-storage-account-key": ("storage", "accountkey", "account key", "key1", "key2"),
    "mews-token": ("mews", "accesstoken", "clienttoken"),
    "microsoft-teams-webhook": ("incomingwebhook",),
    "odk-central-app-user-key": ("/v1/key/",),
    "dhis2-personal-access-token": ("d2pat_",),
    "age-secret-key": ("AGE-SECRET-KEY-",),
    "salesforce-session-id": ("00D",),
    "mailchimp-api-key": ("-us",),
    "plaid-access-token": ("access-production-", "access-development-"),
    "adyen-api-key": ("AQE",),
    "twitch-stream-key": ("live_",),
    "mercadopago-access-token": ("APP_USR-",),
    "arcgis-api-key": ("AAPK", "AAPT"),
    "pagerduty-integration-key": ("routing_key", "routing key", "integration key"),
    "mailgun-private-key": ("mailgun",),
    "thingsboard-device-token": ("/api/v1/",),
    "supabase-secret-key": ("sb_secret_",),
    "segment-api-token": ("sgp_",),
    "hubspot-private-app-token": ("pat-na", "pat-eu", "pat-ap"),
    "facebook-access-token": ("EAA",),
    "huggingface-token": ("hf_",),
    "sentry-user-token": ("sntryu_",),
    "newrelic-license-key": ("NRAL",),
    "launchdarkly-sdk-key": ("sdk-",),
    "pkcs12-base64": ("QIBAzCC",),
    "azure-function-key": ("azurewebsites.net/api/",),
    "zigbee-network-key": ("network_key",),
    "postgres-md5-verifier": ("md5",),
    "scram-verifier": ("SCRAM-SHA-",),
    "adafruit-io-key": ("aio_",),
    "tailscale-key": ("tskey-",),
    "helicone-key": ("sk-helicone-",),
    "resend-api-key": ("re_",),
    "klaviyo-private-key": ("Klaviyo-API-Key",),
    "juniper-type9-secret": ("$9$",),
    "zapier-webhook": ("hooks.zapier.com",),
    "make-webhook": ("make.com/",),
    "vercel-deploy-hook": ("integrations/deploy/",),
    "netlify-build-hook": ("build_hooks/",),
    "render-deploy-hook": ("api.render.com/deploy",),
    "cloudflare-tunnel-token": ("cloudflared", "eyJhIjoi"),
    "zwave-security-key": ("S0_Legacy", "S2_"),
    "minisign-secret-key": ("untrusted comment",),
    "twitter-bearer-token": ("AAAAAAAAAAAAAAAAAAAA",),
}
PROVIDER_RULES = tuple((kind, re.compile(pattern), _TRIGGERS[kind]) for kind, pattern in _PROVIDERS)
# lowercase literal -> the provider rules it wakes (indexes into PROVIDER_RULES)
WAKES: dict[str, tuple[int, ...]] = {}
for _i, (_kind, _, _literals) in enumerate(PROVIDER_RULES):
    for _literal in _literals:
        WAKES[_literal.lower()] = (*WAKES.get(_literal.lower(), ()), _i)

"""Blind corpus 52: a logistics company's internal-tools team, one year of shared agent memory.

Warehouse and fleet systems, carrier and shipping APIs (label printing, tracking webhooks, EDI
over AS2 and SFTP), handheld scanners, route optimisation services, maps and geocoding keys, an
ERP connector, Kafka and Postgres, on-call notes, and plenty of ids, tracking numbers, hashes and
talk about credentials with none in it.

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Run: python blind_secrets_52.py OUT.jsonl   (JSONL to OUT, or to stdout without an argument)

Kinds, secret: aws_secret_key, aws_key_pair, google_maps_key, here_api_key, mapbox_secret_token,
ups_client_secret, fedex_client_secret, dhl_api_secret, easypost_prod_key, shippo_live_token,
webhook_signing_secret, stripe_webhook_secret, as2_private_key, sftp_password, openssh_private_key,
postgres_url_password, kafka_sasl_password, confluent_api_secret, slack_bot_token,
slack_webhook_url, pagerduty_routing_key, github_pat, github_fine_grained_pat, gitlab_pat,
bearer_jwt, stripe_secret_key, twilio_auth_token, sendgrid_key, datadog_api_key,
sentry_auth_token, npm_token, docker_pat, azure_storage_conn, gcp_sa_private_key,
redis_url_password, amqp_url_password, erp_rfc_password, netsuite_token_secret, basic_auth_header,
warehouse_wifi_psk, printer_admin_password, vault_token, terraform_cloud_token, openai_key,
anthropic_key, samsara_token, session_cookie, google_refresh_token, jenkins_api_token,
pgp_private_key, totp_seed, env_db_password, k8s_secret_data, mongodb_url_password,
ldap_bind_password, azure_client_secret, opencage_key, newrelic_user_key, shopify_admin_token,
cloudflare_api_token, key_passphrase, url_embedded_credentials, mdm_enrollment_password,
geotab_password, route_opt_api_key.

Kinds, benign: ups_tracking_number, fedex_tracking_number, usps_tracking_number, dhl_waybill,
git_sha, edi_file_sha256, shipment_uuid, aws_documented_example, maps_key_placeholder,
mapbox_public_token, stripe_publishable_key, ssh_public_key, pgp_fingerprint, as2_cert_fingerprint,
vault_path_reference, redacted_value, env_var_reference, password_policy_talk, truncated_revoked,
kafka_consumer_group, image_digest, sscc_pallet_label, gtin, idempotency_key, trace_id,
jwks_kid, sentry_dsn_public, algolia_search_key, scanner_mac, handheld_serial, imei,
vehicle_vin, pagerduty_service_id, slack_channel_id, token_bucket_talk, partition_key_talk,
secret_word_other_sense, secret_key_ref_yaml, isa_control_number, as2_message_id, order_numbers,
google_place_id, base64_label_payload, zpl_snippet, postgres_lsn, kafka_cluster_id,
secretsmanager_arn, ulid, terraform_lock_id, angle_placeholder, test_card_number,
onepassword_reference, api_key_hash_stored, npm_integrity, oauth_client_id, azure_tenant_ids,
stripe_object_ids, ci_run_id, tls_cert_serial, webhook_signature_value, partner_certificate_pem,
known_hosts_line, password_reset_runbook, map_legend_key, session_ttl_config, route_solution_id,
rotation_log_no_value, geohash, customs_hs_codes, aws_account_and_role,
carrier_account_number, fedex_meter_number, edi_qualifier_ids, random_looking_sku,
license_plate_number, hmac_algorithm_talk, public_key_pem, kafka_offsets, lat_lng_pairs,
dock_door_code_talk, jwt_decoded_claims, checksum_crc, ksuid_request_id,
example_connection_string, sandbox_docs_reference.
"""

# ruff: noqa: E501

import json
import random
import string
import sys

SEED = 5252

HEX = "0123456789abcdef"
B62 = string.ascii_letters + string.digits
B64URL = B62 + "-_"
B64 = B62 + "+/"
UPPER_NUM = string.ascii_uppercase + string.digits
B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"


def corpus() -> list[dict]:
    rng = random.Random(SEED)

    def s(alpha: str, n: int) -> str:
        return "".join(rng.choice(alpha) for _ in range(n))

    def hx(n: int) -> str:
        return s(HEX, n)

    def dig(n: int) -> str:
        return s(string.digits, n)

    def uuid() -> str:
        return f"{hx(8)}-{hx(4)}-4{hx(3)}-{rng.choice('89ab')}{hx(3)}-{hx(12)}"

    def pw() -> str:
        words = ["Pallet", "Dock", "Forklift", "Harbor", "Crate", "Tarmac", "Reefer", "Lorry"]
        return rng.choice(words) + s(B62, 6) + rng.choice("!#%&*$@") + dig(2)

    def b64blob(n: int) -> str:
        return s(B64, n)

    def pem(kind: str, lines: int) -> str:
        body = "\n".join(b64blob(64) for _ in range(lines))
        return f"-----BEGIN {kind}-----\n{body}\n{b64blob(24)}==\n-----END {kind}-----"

    def jwt() -> str:
        return "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9." + s(B64URL, 118) + "." + s(B64URL, 86)

    rows: list[dict] = []

    def add(label: str, kind: str, gen, templates: list[str]) -> None:
        for t in templates:
            v = gen()
            f = {
                "v": v,
                "n": dig(4),
                "h": rng.choice(["dc-east", "wh-rot2", "hub-lyon", "xdock-7", "yard-03"]),
                "d": f"2026-{rng.randint(1, 11):02d}-{rng.randint(1, 28):02d}",
                "who": rng.choice(["marta", "ken", "priya", "jonas", "ade", "li wei", "tomasz"]),
            }
            text = t.format(**f)
            assert v in text, (kind, t)
            rows.append({"label": label, "kind": kind, "text": text, "value": v})

    S, B = "secret", "benign"

    # ---------------------------------------------------------------- secrets
    add(
        S,
        "aws_secret_key",
        lambda: s(B64, 40),
        [
            "label-svc S3 bucket for PDFs uses its own IAM user. secret access key: {v} (ask {who} before rotating, print farm caches it)",
            "AWS_SECRET_ACCESS_KEY={v}\nAWS_DEFAULT_REGION=eu-central-1\n# pod manifests for {h}",
            "note {d}: the archiver lambda still reads aws_secret_access_key = {v} from the old config map",
        ],
    )
    add(
        S,
        "aws_key_pair",
        lambda: "AKIA" + s(UPPER_NUM, 16) + ":" + s(B64, 40),
        [
            "boto creds for the POD-photo uploader (id:secret) -> {v}",
            "[edi-archive]\ncredentials {v}\n# id and secret joined, split on ':' in the loader",
        ],
    )
    add(
        S,
        "google_maps_key",
        lambda: "AIza" + s(B64URL, 35),
        [
            "Geocoding server key (not browser-restricted, IP-restricted to the route workers): {v}",
            "routeplanner/.env\nGOOGLE_MAPS_SERVER_KEY={v}\nDISTANCE_MATRIX_QPS=50",
            "distance matrix calls 403'd on {d}; swapped to the billing project key {v}, don't put it in the driver app",
        ],
    )
    add(
        S,
        "here_api_key",
        lambda: s(B64URL, 43),
        [
            "HERE routing apiKey for the truck-restrictions lookup: {v}",
            "here.apikey={v}\nhere.endpoint=https://router.hereapi.com/v8/routes",
            "HERE fleet telematics trial -> prod key {v} (billing owner {who})",
        ],
    )
    add(
        S,
        "mapbox_secret_token",
        lambda: "sk.eyJ1IjoibG9naXN0aWNzIiwiYSI6I" + s(B64URL, 20) + "." + s(B64URL, 22),
        [
            "mapbox secret token w/ styles:write + uploads for the depot tileset job: {v}",
            "MAPBOX_UPLOAD_TOKEN={v}  # the sk. one, never the pk. one in the web app",
        ],
    )
    add(
        S,
        "ups_client_secret",
        lambda: s(B62, 64),
        [
            "UPS OAuth app 'wh-labels-prod': client_id {n}-wh-prod, client_secret {v}",
            "ups:\n  client_id: QnW{n}prodLabels\n  client_secret: {v}\n  account: 9W{n}X",
            "{who}: the UPS client secret after the Jan rotation is {v}, old one dies Friday",
        ],
    )
    add(
        S,
        "fedex_client_secret",
        lambda: s(HEX, 32),
        [
            "FedEx REST (Ship API) prod secret key: {v} - child key/password not needed for the new flow",
            "FEDEX_SECRET_KEY={v}\nFEDEX_ACCOUNT=7{n}10",
            "fedex track api: api key l7{n}... (public-ish) but the SECRET is {v}",
        ],
    )
    add(
        S,
        "dhl_api_secret",
        lambda: s(B62, 16),
        [
            "DHL Express MyDHL API basic auth for {h}: user logiflowGB, password {v}",
            "dhl_ecom api_secret: {v} (sandbox and prod are different, this is prod)",
        ],
    )
    add(
        S,
        "easypost_prod_key",
        lambda: "EZAK" + s(HEX, 54),
        [
            "EasyPost production key used by returns portal: {v}",
            "EASYPOST_API_KEY={v}\n# returns-portal, rotated {d}",
            "If rates come back empty check the key is the EZAK one: {v}",
        ],
    )
    add(
        S,
        "shippo_live_token",
        lambda: "shippo_live_" + s(HEX, 40),
        [
            "Shippo live token for the marketplace connector: {v}",
            "Authorization: ShippoToken {v}",
        ],
    )
    add(
        S,
        "webhook_signing_secret",
        lambda: s(HEX, 64),
        [
            "tracking webhook HMAC secret (carrier aggregator -> /hooks/tracking): {v}",
            "verify X-Hub-Signature with TRACKING_WEBHOOK_SECRET={v}",
            "aftership webhook secret copied from their dashboard {d}: {v}",
        ],
    )
    add(
        S,
        "stripe_webhook_secret",
        lambda: "whsec_" + s(B62, 32),
        [
            "freight-invoice portal stripe endpoint signing secret {v}",
            "STRIPE_WEBHOOK_SECRET={v}",
        ],
    )
    add(
        S,
        "as2_private_key",
        lambda: pem("PRIVATE KEY", 6),
        [
            "AS2 signing key for our station id LOGIFLOW-AS2 (partner: retailer EDI hub):\n{v}",
            "as2/keys/our_sign.key contents, restored {d}:\n{v}",
        ],
    )
    add(
        S,
        "sftp_password",
        pw,
        [
            "SFTP to the 3PL inbound drop: sftp edi_in@ftp.{h}.example-3pl.net, pw {v}",
            "Retailer SFTP (856 ASN pickup) user lgf_asn password: {v}",
            "{who} reset the carrier SFTP account, new password is {v} - update the cron on edi-01",
            "sftp creds for the customs broker: login customsfeed / {v}",
        ],
    )
    add(
        S,
        "openssh_private_key",
        lambda: pem("OPENSSH PRIVATE KEY", 5),
        [
            "deploy key for the edi-gateway box (root of the SFTP chroot):\n{v}",
            "~/.ssh/id_ed25519 from the jump host in {h}:\n{v}",
        ],
    )
    add(
        S,
        "postgres_url_password",
        pw,
        [
            "DATABASE_URL=postgres://wms_app:{v}@pg-wms-primary.internal:5432/wms",
            "read replica for BI: psql 'host=pg-ro.{h} user=bi_reader password={v} dbname=fleet'",
            'pgbouncer userlist.txt line: "route_svc" "{v}"',
        ],
    )
    add(
        S,
        "kafka_sasl_password",
        pw,
        [
            'sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="scan-events" password="{v}";',
            "kafka SCRAM user tracking-consumer, password {v} (cluster: events-prod)",
        ],
    )
    add(
        S,
        "confluent_api_secret",
        lambda: s(B62 + "+/", 64),
        [
            "Confluent Cloud api key {n}PRXJ7, secret {v}",
            "CONFLUENT_API_SECRET={v}\nCONFLUENT_API_KEY=N7Q{n}ZZ4KAB2",
        ],
    )
    add(
        S,
        "slack_bot_token",
        lambda: f"xoxb-{dig(12)}-{dig(13)}-{s(B62, 24)}",
        [
            "#dispatch-alerts bot token: {v}",
            "SLACK_BOT_TOKEN={v}  # late-truck notifier",
            "slack app 'yard-bot' reinstalled {d}, new bot token {v}",
        ],
    )
    add(
        S,
        "slack_webhook_url",
        lambda: (
            f"https://hooks.slack.com/services/T{s(UPPER_NUM, 8)}/B{s(UPPER_NUM, 10)}/{s(B62, 24)}"
        ),
        [
            "on-call ping for stuck EDI queue posts to {v}",
            "webhook_url: {v}",
        ],
    )
    add(
        S,
        "pagerduty_routing_key",
        lambda: s(HEX, 32),
        [
            "PD Events v2 routing key for 'WMS - label printing': {v}",
            "pagerduty integration key (scanner fleet heartbeat): {v}",
        ],
    )
    add(
        S,
        "github_pat",
        lambda: "ghp_" + s(B62, 36),
        [
            "{who}'s PAT used by the tariff-sync action (repo scope): {v}",
            "GH_TOKEN={v} npm run release",
            "git clone https://{v}@github.com/logiflow/edi-maps.git",
        ],
    )
    add(
        S,
        "github_fine_grained_pat",
        lambda: "github_pat_" + s(B62, 22) + "_" + s(B62, 59),
        [
            "fine-grained token for renovate on the handheld-app repo: {v}",
            "GITHUB_TOKEN for the label-template sync: {v}",
        ],
    )
    add(
        S,
        "gitlab_pat",
        lambda: "glpat-" + s(B64URL, 20),
        [
            "gitlab PAT (read_registry) for pulling scanner firmware images: {v}",
            "docker login registry.gitlab.com -u ci-bot -p {v}",
        ],
    )
    add(
        S,
        "bearer_jwt",
        jwt,
        [
            "curl -H 'Authorization: Bearer {v}' https://tms.internal/api/v2/loads/{n}",
            "captured a working admin token from the dispatcher UI for debugging: {v}",
            "ERP connector service-account JWT (valid 1y, yes really): {v}",
        ],
    )
    add(
        S,
        "stripe_secret_key",
        lambda: "sk_live_" + s(B62, 99),
        [
            "freight invoice portal STRIPE_SECRET_KEY={v}",
            "stripe live secret for refunds job: {v}",
        ],
    )
    add(
        S,
        "twilio_auth_token",
        lambda: s(HEX, 32),
        [
            "Twilio SMS (delivery ETA texts) account AC{n}... auth token {v}",
            "TWILIO_AUTH_TOKEN={v}",
        ],
    )
    add(
        S,
        "sendgrid_key",
        lambda: "SG." + s(B64URL, 22) + "." + s(B64URL, 43),
        [
            "proof-of-delivery email sender key {v}",
            "SENDGRID_API_KEY={v}",
        ],
    )
    add(
        S,
        "datadog_api_key",
        lambda: s(HEX, 32),
        [
            "DD_API_KEY={v}  (agent on the route workers)",
            "datadog api key for the scanner gateway: {v}, app key lives in vault",
        ],
    )
    add(
        S,
        "sentry_auth_token",
        lambda: "sntryu_" + s(HEX, 64),
        [
            "sentry-cli auth token for uploading handheld app sourcemaps: {v}",
            "SENTRY_AUTH_TOKEN={v}",
        ],
    )
    add(
        S,
        "npm_token",
        lambda: "npm_" + s(B62, 36),
        [
            "//registry.npmjs.org/:_authToken={v}",
            "npm publish token for @logiflow/zpl-kit: {v}",
        ],
    )
    add(
        S,
        "docker_pat",
        lambda: "dckr_pat_" + s(B64URL, 27),
        [
            "docker hub PAT for the build box (pull rate limits): {v}",
            "echo {v} | docker login -u logiflowci --password-stdin",
        ],
    )
    add(
        S,
        "azure_storage_conn",
        lambda: s(B64, 86) + "==",
        [
            "DefaultEndpointsProtocol=https;AccountName=lgfpodphotos;AccountKey={v};EndpointSuffix=core.windows.net",
            "blob key for the customs docs container: {v}",
        ],
    )
    add(
        S,
        "gcp_sa_private_key",
        lambda: pem("PRIVATE KEY", 4),
        [
            '{{"type": "service_account", "client_email": "route-opt@lgf-routing.iam.gserviceaccount.com", "private_key": "{v}"}}',
            "route-opt SA key (json trimmed to the key part):\n{v}",
        ],
    )
    add(
        S,
        "redis_url_password",
        lambda: s(B62, 32),
        [
            "REDIS_URL=rediss://default:{v}@cache-slots.{h}.internal:6380/0",
            "dock-slot cache AUTH {v}",
        ],
    )
    add(
        S,
        "amqp_url_password",
        pw,
        [
            "amqp://label_worker:{v}@mq-labels:5672/%2Fprint",
            "RabbitMQ admin for the print queues: admin / {v}",
        ],
    )
    add(
        S,
        "erp_rfc_password",
        pw,
        [
            "SAP RFC user RFC_WMS_SYNC (client 100) password: {v}",
            "ERP connector config:\n  ashost: sap-prd-ci\n  user: RFC_WMS_SYNC\n  passwd: {v}",
            "{who} says the ERP service user pw was changed to {v} after the audit",
        ],
    )
    add(
        S,
        "netsuite_token_secret",
        lambda: s(HEX, 64),
        [
            "NetSuite TBA for the invoice bridge: consumer key in vault, token id tk-{n}, token secret {v}",
            "NS_TOKEN_SECRET={v}",
        ],
    )
    add(
        S,
        "basic_auth_header",
        lambda: "Basic " + s(B64, 30) + "==",
        [
            "carrier tracking push arrives with Authorization: {v} - that's our creds for their portal",
            "curl -H 'Authorization: {v}' https://edi-partner.example.org/as2/in",
        ],
    )
    add(
        S,
        "warehouse_wifi_psk",
        lambda: s(B62, 18),
        [
            "WH-SCAN SSID (handhelds only) WPA2 PSK: {v}",
            "scanner staging profile: ssid=LGF-SCAN-{n} psk={v}",
        ],
    )
    add(
        S,
        "printer_admin_password",
        pw,
        [
            "Zebra ZT410s on {h} web admin: admin / {v} (changed from the 1234 default)",
            "label printer admin password for the whole dock row: {v}",
        ],
    )
    add(
        S,
        "vault_token",
        lambda: "hvs." + s(B64URL, 90),
        [
            "VAULT_TOKEN={v}  # root-ish, break glass only",
            "vault login {v}",
        ],
    )
    add(
        S,
        "terraform_cloud_token",
        lambda: s(B62, 14) + ".atlasv1." + s(B62, 67),
        [
            "TFC team token for the fleet-infra workspace: {v}",
            'credentials "app.terraform.io" {{ token = "{v}" }}',
        ],
    )
    add(
        S,
        "openai_key",
        lambda: "sk-proj-" + s(B64URL, 48) + "T3BlbkFJ" + s(B64URL, 48),
        [
            "OPENAI_API_KEY={v} for the claims-email classifier",
            "address-cleanup prototype key {v}",
        ],
    )
    add(
        S,
        "anthropic_key",
        lambda: "sk-ant-api03-" + s(B64URL, 93) + "AA",
        [
            "ANTHROPIC_API_KEY={v}",
            "key for the exception-triage bot: {v}",
        ],
    )
    add(
        S,
        "samsara_token",
        lambda: "samsara_api_" + s(B62, 30),
        [
            "Samsara fleet API token (read vehicles + HOS): {v}",
            "SAMSARA_TOKEN={v}  # telematics ingest",
        ],
    )
    add(
        S,
        "session_cookie",
        lambda: s(B64URL, 48),
        [
            "carrier portal session to replay the manifest upload: Cookie: connect.sid=s%3A{v}",
            "PHPSESSID={v} (3PL portal, logged in as our ops account)",
        ],
    )
    add(
        S,
        "google_refresh_token",
        lambda: "1//0" + s(B64URL, 99),
        [
            "refresh token for the shared dispatch mailbox (gmail api): {v}",
            "GMAIL_REFRESH_TOKEN={v}",
        ],
    )
    add(
        S,
        "jenkins_api_token",
        lambda: "11" + s(HEX, 32),
        [
            "jenkins api token for user deploybot: {v}",
            "curl -u deploybot:{v} https://ci.internal/job/wms-deploy/build",
        ],
    )
    add(
        S,
        "pgp_private_key",
        lambda: pem("PGP PRIVATE KEY BLOCK", 6),
        [
            "secret key we decrypt bank remittance EDI with:\n{v}",
        ],
    )
    add(
        S,
        "totp_seed",
        lambda: s(B32, 32),
        [
            "MFA seed for the shared carrier-portal account (ops@): {v}",
            "otpauth://totp/DHL:ops@logiflow?secret={v}&issuer=DHL",
        ],
    )
    add(
        S,
        "env_db_password",
        pw,
        [
            "DB_PASSWORD={v}\nDB_HOST=yard-db\nDB_USER=yard",
            "yard mgmt .env -> POSTGRES_PASSWORD={v}",
            "MYSQL_ROOT_PASSWORD: {v}  # legacy dock appointment app",
        ],
    )
    add(
        S,
        "k8s_secret_data",
        lambda: s(B64, 20) + "==",
        [
            "apiVersion: v1\nkind: Secret\nmetadata:\n  name: erp-connector\ndata:\n  password: {v}",
            "kubectl get secret sftp-creds -o yaml showed password: {v}",
        ],
    )
    add(
        S,
        "mongodb_url_password",
        pw,
        [
            "MONGO_URI=mongodb+srv://podsvc:{v}@cluster0.ab{n}.mongodb.net/pod",
            "mongosh 'mongodb://telemetry:{v}@mongo-fleet:27017/admin'",
        ],
    )
    add(
        S,
        "ldap_bind_password",
        pw,
        [
            "handheld login uses LDAP, bind DN cn=scanner-bind,ou=svc,dc=lgf bind pw {v}",
            "ldap.bind.password={v}",
        ],
    )
    add(
        S,
        "azure_client_secret",
        lambda: s(B62, 3) + "8Q~" + s(B64URL.replace("-", "."), 31),
        [
            "Entra app 'erp-bridge' client secret (expires {d}): {v}",
            "AZURE_CLIENT_SECRET={v}",
        ],
    )
    add(
        S,
        "opencage_key",
        lambda: s(HEX, 32),
        [
            "OpenCage geocoder key (fallback when google quota blows): {v}",
            "OPENCAGE_API_KEY={v}",
        ],
    )
    add(
        S,
        "newrelic_user_key",
        lambda: "NRAK-" + s(UPPER_NUM, 27),
        [
            "new relic user key for the dashboards-as-code job: {v}",
            "NEW_RELIC_API_KEY={v}",
        ],
    )
    add(
        S,
        "shopify_admin_token",
        lambda: "shpat_" + s(HEX, 32),
        [
            "merchant's Shopify admin token for the fulfillment app: {v}",
            "X-Shopify-Access-Token: {v}",
        ],
    )
    add(
        S,
        "cloudflare_api_token",
        lambda: s(B64URL, 40),
        [
            "Cloudflare API token (DNS edit on tracking.logiflow.example): {v}",
            "CF_API_TOKEN={v}",
        ],
    )
    add(
        S,
        "key_passphrase",
        lambda: (
            "-".join(
                rng.choice(
                    ["amber", "pallet", "north", "crane", "ferry", "gravel", "quay", "lantern"]
                )
                for _ in range(5)
            )
            + dig(2)
        ),
        [
            "passphrase for the AS2 .p12: {v}",
            "openssl pkcs12 -in partner.p12 -passin pass:{v}",
        ],
    )
    add(
        S,
        "url_embedded_credentials",
        pw,
        [
            "tracking webhook target at the retailer wants basic auth in the URL: https://lgfpush:{v}@hooks.retailer-edi.example.com/track",
            "ftp://asn_upload:{v}@ftp.old-3pl.example.net/in/ (still used by Monday batch)",
        ],
    )
    add(
        S,
        "mdm_enrollment_password",
        pw,
        [
            "MDM kiosk exit password for the TC52 scanners: {v}",
            "StageNow profile admin password for handheld enrollment {v}",
        ],
    )

    # ---------------------------------------------------------------- benign
    add(
        B,
        "ups_tracking_number",
        lambda: "1Z" + s(UPPER_NUM, 6) + dig(10),
        [
            "customer says {v} shows delivered but pallet still on dock 4",
            "repro for the duplicate-scan bug: tracking {v}, two DELIVERED events 3 min apart",
            "UPS label reprint loop - tracking number {v}, order SO-{n}",
        ],
    )
    add(
        B,
        "fedex_tracking_number",
        lambda: dig(12),
        [
            "fedex tracking {v} stuck at 'label created' for 4 days, opened case with rep",
            "webhook test payload used trackingNumber {v}",
        ],
    )
    add(
        B,
        "usps_tracking_number",
        lambda: "9400" + dig(18),
        [
            "USPS IMpb {v} - barcode scanned fine, the 420 zip prefix was the problem",
            "returns label {v} voided on {d}",
        ],
    )
    add(
        B,
        "dhl_waybill",
        lambda: dig(10),
        [
            "DHL AWB {v} customs hold, commercial invoice missing HS code",
            "waybill {v} = the one with the wrong pickup date",
        ],
    )
    add(
        B,
        "git_sha",
        lambda: hx(40),
        [
            "label-svc regression started at {v}, reverted in the next deploy",
            "pinned the edi-parser submodule to {v}",
            "bisect says {v} broke the ZPL rotation for 4x6 labels",
        ],
    )
    add(
        B,
        "edi_file_sha256",
        lambda: hx(64),
        [
            "856 batch from retailer had sha256 {v}, same as yesterday's - they resent it",
            "sha256sum of the AS2 payload we archived: {v}",
            "EDI dedupe key = sha256 of the ISA..IEA envelope, e.g. {v}",
        ],
    )
    add(
        B,
        "shipment_uuid",
        uuid,
        [
            "shipment {v} has 3 parcels but only 2 labels printed",
            "replay consumer for load id {v} after the outage",
        ],
    )
    add(
        B,
        "aws_documented_example",
        lambda: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        [
            "the onboarding doc uses AWS's documented sample secret {v} - it's the example from the AWS docs, not ours",
        ],
    )
    add(
        B,
        "aws_documented_example",
        lambda: "AKIAIOSFODNN7EXAMPLE",
        [
            "test fixture for the credential-scrubber uses the AWS docs example id {v} on purpose",
        ],
    )
    add(
        B,
        "maps_key_placeholder",
        lambda: "AIzaSyXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX",
        [
            "README snippet for route workers: GOOGLE_MAPS_SERVER_KEY={v} (placeholder, real one in vault kv/routing)",
            "replace {v} with your own dev key from the GCP console",
        ],
    )
    add(
        B,
        "mapbox_public_token",
        lambda: "pk.eyJ1IjoibG9naXN0aWNzIiwiYSI6I" + s(B64URL, 20) + "." + s(B64URL, 22),
        [
            "driver web map uses the public pk token {v} - URL-restricted, fine to ship in the bundle",
            "mapboxgl.accessToken = '{v}'; // public token, scoped to styles:read",
        ],
    )
    add(
        B,
        "stripe_publishable_key",
        lambda: "pk_live_" + s(B62, 99),
        [
            "invoice portal frontend publishable key {v} (public, goes in the HTML)",
            "STRIPE_PUBLISHABLE_KEY={v}",
        ],
    )
    add(
        B,
        "ssh_public_key",
        lambda: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + s(B64, 43),
        [
            "add to authorized_keys on edi-01 for {who}: {v} {who}@laptop",
            "3PL asked for our public key for their SFTP: {v} logiflow-edi",
        ],
    )
    add(
        B,
        "pgp_fingerprint",
        lambda: " ".join(s("0123456789ABCDEF", 4) for _ in range(10)),
        [
            "bank's PGP public key fingerprint (verified by phone {d}): {v}",
            "our remittance encryption key fingerprint {v} - share this, not the key",
        ],
    )
    add(
        B,
        "as2_cert_fingerprint",
        lambda: ":".join(s("0123456789ABCDEF", 2) for _ in range(32)),
        [
            "retailer AS2 cert SHA-256 fingerprint {v}, expires {d}",
            "partner cert thumbprint to pin in the AS2 profile: {v}",
        ],
    )
    add(
        B,
        "vault_path_reference",
        lambda: rng.choice(
            [
                "kv/edi/sftp/retailer-asn",
                "kv/carriers/ups/prod",
                "kv/erp/rfc_wms_sync",
                "secret/data/fleet/samsara",
            ]
        ),
        [
            "the SFTP password is in vault at {v}, field 'password' - never paste it here",
            "ups client secret moved to {v} on {d}",
            "rotation job reads {v}; if it 403s the approle secret-id expired",
        ],
    )
    add(
        B,
        "redacted_value",
        lambda: rng.choice(
            [
                "********",
                "sk_live_****************",
                "[REDACTED]",
                "xoxb-***-***-****",
                "<redacted>",
            ]
        ),
        [
            "log line: auth failed for carrier=dhl api_key={v} status=401",
            "config dump from {h}: password: {v} (redacted by the tool)",
            "token={v} - masked in the incident doc",
        ],
    )
    add(
        B,
        "env_var_reference",
        lambda: rng.choice(
            [
                "${SFTP_PASSWORD}",
                "$UPS_CLIENT_SECRET",
                "${{ secrets.FEDEX_SECRET_KEY }}",
                "%KAFKA_SASL_PASSWORD%",
            ]
        ),
        [
            "compose file: password: {v} - value injected at deploy",
            "the workflow passes {v} into the label step",
            "env var {v} must be set on {h} or the connector falls back to no auth",
        ],
    )
    add(
        B,
        "password_policy_talk",
        lambda: "",
        [
            "security review asked that handheld passwords be 12+ chars and rotated every 90 days; we agreed, ticket OPS-{n}",
            "{who}: don't put the carrier portal password in the runbook, point at 1Password instead",
            "reminder - the SFTP password for the retailer expires every 60 days, they email ops@ a week before",
        ],
    )
    add(
        B,
        "truncated_revoked",
        lambda: "ghp_" + s(B62, 4) + "…",
        [
            "leaked token {v} (first chars only) was revoked on {d}, new one in vault",
            "GitHub secret-scanning alert for {v} - revoked within 10 min, no use in audit log",
        ],
    )
    add(
        B,
        "kafka_consumer_group",
        lambda: (
            rng.choice(
                ["scan-events.enricher.v3", "tracking-webhooks.fanout", "wms.pick-confirm.sink-pg"]
            )
            + "-"
            + hx(6)
        ),
        [
            "lag alert on consumer group {v}, partition 7 stuck at the poison message",
            "reset offsets for {v} to {d}T00:00Z",
        ],
    )
    add(
        B,
        "image_digest",
        lambda: "sha256:" + hx(64),
        [
            "label-svc image pinned to {v}",
            "rollback target for route-opt: ghcr.io/logiflow/route-opt@{v}",
        ],
    )
    add(
        B,
        "sscc_pallet_label",
        lambda: "00" + "0" + dig(17),
        [
            "pallet SSCC {v} scanned at two docks, the second scan wins",
            "ASN 856 rejected: SSCC {v} has a bad check digit",
        ],
    )
    add(
        B,
        "gtin",
        lambda: "0" + dig(13),
        [
            "GTIN {v} maps to 2 SKUs in the ERP, fix master data",
            "scanner reads {v} as EAN-13 without the leading zero",
        ],
    )
    add(
        B,
        "idempotency_key",
        uuid,
        [
            "UPS ship call retried with same transId {v}, no double label",
            "Idempotency-Key: {v} on the rate-shop request",
        ],
    )
    add(
        B,
        "trace_id",
        lambda: hx(32),
        [
            "trace {v} shows 9s in the geocoder call",
            "traceparent 00-{v}-{n}a1b2c3d4e5f6-01 from the failing label request",
        ],
    )
    add(
        B,
        "jwks_kid",
        lambda: s(B64URL, 43),
        [
            "ERP IdP rotated signing keys; new kid {v} published in the JWKS",
            "token validation failed: kid {v} not found in cached JWKS, refresh interval too long",
        ],
    )
    add(
        B,
        "sentry_dsn_public",
        lambda: f"https://{hx(32)}@o{dig(6)}.ingest.sentry.io/{dig(7)}",
        [
            "handheld app Sentry DSN {v} (DSN is client-side, Sentry says it's fine to embed)",
        ],
    )
    add(
        B,
        "algolia_search_key",
        lambda: hx(32),
        [
            "Algolia search-only API key for the SKU lookup widget {v} - search-only, meant for browsers",
        ],
    )
    add(
        B,
        "scanner_mac",
        lambda: ":".join(s("0123456789ABCDEF", 2) for _ in range(6)),
        [
            "handheld {v} keeps roaming between APs in aisle 12",
            "DHCP reservation for the dock printer {v}",
        ],
    )
    add(
        B,
        "handheld_serial",
        lambda: dig(5) + "52" + dig(7),
        [
            "TC52 serial {v} back from repair, re-enroll",
            "RMA for scanner S/N {v}: cracked trigger",
        ],
    )
    add(
        B,
        "imei",
        lambda: "35" + dig(13),
        [
            "telematics box IMEI {v} stopped reporting on {d}",
            "swap SIM in unit with IMEI {v}",
        ],
    )
    add(
        B,
        "vehicle_vin",
        lambda: "1FUJ" + s("ABCDEFGHJKLMNPRSTUVWXYZ0123456789", 13),
        [
            "truck VIN {v} shows 0 km in Samsara, odometer sensor dead",
            "HOS violation on unit w/ VIN {v}",
        ],
    )
    add(
        B,
        "pagerduty_service_id",
        lambda: "P" + s(UPPER_NUM, 6),
        [
            "PD service for label printing is {v}, escalation policy 'WMS primary'",
            "moved the scanner alerts to service {v}",
        ],
    )
    add(
        B,
        "slack_channel_id",
        lambda: "C0" + s(UPPER_NUM, 9),
        [
            "alerts go to #dispatch-alerts ({v})",
            "bot needs to be invited to {v} before it can post",
        ],
    )
    add(
        B,
        "token_bucket_talk",
        lambda: "",
        [
            "rate limiter for the geocoder: token bucket, 50 tokens, refill 10/s; burst killed by the nightly re-geocode",
            "the tokenizer in the address parser splits 'Unit 4/12' wrong, tokens are [Unit, 4/12]",
        ],
    )
    add(
        B,
        "partition_key_talk",
        lambda: "warehouse_id",
        [
            "scan-events topic partition key = {v}; ordering per dock matters, not global",
            "pick_lines: composite primary key (order_id, line_no) and {v} as the sharding key, no surrogate",
        ],
    )
    add(
        B,
        "secret_word_other_sense",
        lambda: "",
        [
            "the 'secret' to faster wave picking was just sorting by aisle, not by order",
            "{who} kept the new route algorithm a secret until the demo, it's 8% fewer km",
        ],
    )
    add(
        B,
        "secret_key_ref_yaml",
        lambda: "sftp-creds",
        [
            "env:\n  - name: SFTP_PASSWORD\n    valueFrom:\n      secretKeyRef:\n        name: {v}\n        key: password",
            "kubectl create secret generic {v} --from-env-file=./sftp.env  (file is not in git)",
        ],
    )
    add(
        B,
        "isa_control_number",
        lambda: dig(9),
        [
            "997 rejected interchange ISA13={v}, GS control mismatch",
            "ISA*00*          *00*          *ZZ*LOGIFLOW       *ZZ*RETAILHUB      *261201*0930*U*00401*{v}*0*P*>~",
        ],
    )
    add(
        B,
        "as2_message_id",
        lambda: f"<{hx(8)}-{hx(4)}@LOGIFLOW-AS2>",
        [
            "MDN never came back for Message-ID {v}",
            "retransmit AS2 message {v} after the partner's cert swap",
        ],
    )
    add(
        B,
        "order_numbers",
        lambda: f"PO-{dig(8)}",
        [
            "{v} split into 3 shipments, ERP only knows about the first",
            "customer escalation on {v}: promised date missed by 2 days",
        ],
    )
    add(
        B,
        "google_place_id",
        lambda: "ChIJ" + s(B64URL, 23),
        [
            "geocoder returns place_id {v} for both the depot and the gate across the road",
            "cached place id {v} for Hub Lyon; lat 45.7{n}, lng 4.8{n}",
        ],
    )
    add(
        B,
        "base64_label_payload",
        lambda: "XlhBXkZPNTAsNTBeQTBOLDUwLDUwXkZEU0hJUCBUTzpeRlMK" + s(B64, 24),
        [
            "carrier returns the label as base64 ZPL: {v}... decode and send raw to port 9100",
        ],
    )
    add(
        B,
        "zpl_snippet",
        lambda: f"^XA^FO50,50^BCN,100,Y,N,N^FD{dig(12)}^FS^XZ",
        [
            "minimal test label for the ZT410 on {h}: {v}",
            "barcode offset fix: {v}",
        ],
    )
    add(
        B,
        "postgres_lsn",
        lambda: f"{s('0123456789ABCDEF', 2)}/{s('0123456789ABCDEF', 8)}",
        [
            "replica lag: primary at {v}, replica 2GB behind",
            "logical slot wms_cdc confirmed_flush_lsn {v}",
        ],
    )
    add(
        B,
        "kafka_cluster_id",
        lambda: s(B64URL, 22),
        [
            "KRaft cluster id for events-prod is {v} (from meta.properties)",
            "kafka-storage format --cluster-id {v} on the new staging brokers",
        ],
    )
    add(
        B,
        "secretsmanager_arn",
        lambda: f"arn:aws:secretsmanager:eu-central-1:{dig(12)}:secret:prod/edi/sftp-{s(B62, 6)}",
        [
            "label-svc task role can read {v}",
            "the ARN of the SFTP creds is {v}; value itself only via GetSecretValue",
        ],
    )
    add(
        B,
        "ulid",
        lambda: "01J" + s("0123456789ABCDEFGHJKMNPQRSTVWXYZ", 23),
        [
            "pick task {v} assigned twice",
            "event id {v} in the scan outbox never published",
        ],
    )
    add(
        B,
        "terraform_lock_id",
        uuid,
        [
            "terraform state locked by {who}, Lock Info ID {v}; force-unlock after confirming",
        ],
    )
    add(
        B,
        "angle_placeholder",
        lambda: rng.choice(
            [
                "<SFTP_PASSWORD>",
                "<your-ups-client-secret>",
                "<paste token here>",
                "YOUR_API_KEY_HERE",
            ]
        ),
        [
            "template for new carrier integrations:\n  client_id: <id>\n  client_secret: {v}",
            "curl -H 'Authorization: Bearer {v}' https://tms.internal/api/v2/health",
            "DB_PASSWORD={v}  # in .env.example only",
        ],
    )
    add(
        B,
        "test_card_number",
        lambda: "4242424242424242",
        [
            "invoice portal e2e uses stripe test card {v}, any future expiry, CVC 123",
        ],
    )
    add(
        B,
        "onepassword_reference",
        lambda: rng.choice(
            [
                "op://Ops/Carrier Portals/DHL/password",
                "op://Infra/erp-rfc-user/credential",
                "op://Ops/Zebra printers/admin",
            ]
        ),
        [
            'script pulls it with `op read "{v}"` at runtime',
            "printer admin login: see {v}",
        ],
    )
    add(
        B,
        "api_key_hash_stored",
        lambda: hx(64),
        [
            "partner API keys are stored as sha256 only; partner 'retailhub' row key_hash={v}",
            "lookup by key hash {v} found no partner - they were sending the sandbox key",
        ],
    )
    add(
        B,
        "npm_integrity",
        lambda: "sha512-" + s(B64, 86) + "==",
        [
            "lockfile integrity for zpl-kit 2.3.1: {v}",
        ],
    )
    add(
        B,
        "oauth_client_id",
        lambda: (
            f"{dig(12)}-{s(string.ascii_lowercase + string.digits, 32)}.apps.googleusercontent.com"
        ),
        [
            "dispatch mailbox OAuth client id {v} (client id is public; secret is in vault)",
            "consent screen shows client {v}",
        ],
    )
    add(
        B,
        "azure_tenant_ids",
        uuid,
        [
            "erp-bridge app: tenant id {v}, subscription in the infra sheet",
            "AZURE_TENANT_ID={v}",
        ],
    )
    add(
        B,
        "stripe_object_ids",
        lambda: "evt_" + s(B62, 24),
        [
            "replayed webhook event {v} after fixing the signature check",
            "stripe event {v} = invoice.paid for freight invoice FI-{n}",
        ],
    )
    add(
        B,
        "ci_run_id",
        lambda: dig(10),
        [
            "flaky label snapshot test, see actions run {v}",
            "build {v} produced the bad scanner APK",
        ],
    )
    add(
        B,
        "tls_cert_serial",
        lambda: ":".join(s("0123456789abcdef", 2) for _ in range(16)),
        [
            "tracking.logiflow.example cert serial {v}, renews via certbot",
            "AS2 partner cert serial {v} listed in their CRL? no - checked {d}",
        ],
    )
    add(
        B,
        "webhook_signature_value",
        lambda: "sha256=" + hx(64),
        [
            "failing delivery had X-Signature: {v}, our computed one differed -> body was re-encoded by the proxy",
            "signature in the aftership retry was {v}; the secret was fine, timestamp skew was the issue",
        ],
    )
    add(
        B,
        "partner_certificate_pem",
        lambda: pem("CERTIFICATE", 5),
        [
            "retailer's AS2 public certificate (encryption), import into partner profile:\n{v}",
        ],
    )
    add(
        B,
        "known_hosts_line",
        lambda: "ftp.example-3pl.net ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + s(B64, 43),
        [
            "add to known_hosts on edi-01:\n{v}",
        ],
    )
    add(
        B,
        "password_reset_runbook",
        lambda: "",
        [
            "runbook: scanner user locked out -> reset in AD, tell them the temp password by phone, never Slack",
            "carrier portal password reset goes to ops@ inbox; {who} owns the mailbox",
        ],
    )
    add(
        B,
        "map_legend_key",
        lambda: "",
        [
            "map key on the yard dashboard: red = door blocked, amber = trailer > 4h, green = free",
            "the 'key' column in dock_config is the door code like D-{n}, not a credential",
        ],
    )
    add(
        B,
        "session_ttl_config",
        lambda: "session_timeout_minutes=480",
        [
            "handheld app {v} so pickers aren't logged out mid-shift",
            "TMS web: {v}, remember-me off",
        ],
    )
    add(
        B,
        "route_solution_id",
        lambda: "sol_" + s(B62, 20),
        [
            "route-opt returned {v} with 14 stops unassigned (time windows too tight)",
            "compare {v} against yesterday's plan, 6% more km",
        ],
    )
    add(
        B,
        "rotation_log_no_value",
        lambda: "",
        [
            "{d}: rotated UPS, FedEx and DHL API credentials, updated vault, restarted label-svc; old ones revoked in each portal",
            "Kafka SCRAM passwords rotated for all consumers; new values only in vault, nothing in git",
        ],
    )
    add(
        B,
        "geohash",
        lambda: "u0" + s("0123456789bcdefghjkmnpqrstuvwxyz", 7),
        [
            "depot geohash {v}, cluster stops by 6-char prefix",
        ],
    )
    add(
        B,
        "customs_hs_codes",
        lambda: f"{dig(4)}.{dig(2)}.{dig(4)}",
        [
            "HS code {v} triggers the extra EU ICS2 fields",
        ],
    )

    # ---------------------------------------------------------------- more secrets
    add(
        S,
        "sftp_password",
        pw,
        [
            "on-call {d}: partner rotated SFTP, they phoned the new one in - {v} - put it in vault tomorrow",
            "Pickup der Zollanmeldungen per SFTP: Benutzer lgf_zoll, Passwort {v}",
            "WinSCP session 'retailer-prod' saved with password {v}, host sftp.{h}.example.com",
        ],
    )
    add(
        S,
        "erp_rfc_password",
        pw,
        [
            "note for next on-call: if the IDoc queue stalls, log in to SM58 as WMS_BATCH / {v} and reprocess",
            "Odoo connector: db logiflow, login api@logiflow, password {v}",
        ],
    )
    add(
        S,
        "env_db_password",
        pw,
        [
            "PGPASSWORD={v} pg_dump -h pg-wms-primary -U wms_app wms > /tmp/wms.sql",
            "flyway.password={v}\nflyway.url=jdbc:postgresql://pg-fleet:5432/fleet",
        ],
    )
    add(
        S,
        "github_pat",
        lambda: "ghp_" + s(B62, 36),
        [
            "token the scanner firmware build uses to fetch private submodules: {v}",
        ],
    )
    add(
        S,
        "bearer_jwt",
        jwt,
        [
            "route-opt vendor gave us a long-lived API JWT for the solver: {v}",
        ],
    )
    add(
        S,
        "slack_bot_token",
        lambda: f"xoxp-{dig(12)}-{dig(12)}-{dig(13)}-{hx(32)}",
        [
            "user token {who} generated for the channel-archive script: {v}",
        ],
    )
    add(
        S,
        "google_maps_key",
        lambda: "AIza" + s(B64URL, 35),
        [
            "Roads API snap-to-road key (server side, unrestricted!!) {v}",
        ],
    )
    add(
        S,
        "webhook_signing_secret",
        lambda: s(B64, 44),
        [
            "EasyPost webhook HMAC secret for /hooks/easypost: {v}",
        ],
    )
    add(
        S,
        "kafka_sasl_password",
        pw,
        [
            "kcat -b events-prod:9094 -X security.protocol=SASL_SSL -X sasl.mechanisms=SCRAM-SHA-512 -X sasl.username=ops-debug -X sasl.password={v} -t scan-events -C",
        ],
    )
    add(
        S,
        "samsara_token",
        lambda: "samsara_api_" + s(B62, 30),
        [
            "fleet dashboards: Authorization: Bearer {v}",
        ],
    )
    add(
        S,
        "ups_client_secret",
        lambda: s(B62, 64),
        [
            "CIE (UPS test env) is fine but PROD secret for the returns app is {v}",
        ],
    )
    add(
        S,
        "dhl_api_secret",
        lambda: s(B62, 16),
        [
            "DHL Parcel DE: API key in vault, but the GKP user password {who} used on {d} is {v}",
        ],
    )
    add(
        S,
        "geotab_password",
        pw,
        [
            "Geotab MyGeotab API user fleetsync@logiflow, database lgf_fleet, password {v}",
            "telematics ingest Authenticate(userName='fleetsync', password='{v}', database='lgf_fleet')",
        ],
    )
    add(
        S,
        "here_api_key",
        lambda: s(B64URL, 43),
        [
            "geocode fallback chain: google -> HERE (apiKey={v}) -> opencage",
        ],
    )
    add(
        S,
        "route_opt_api_key",
        lambda: "ro_live_" + s(B62, 40),
        [
            "route optimisation vendor live key: {v} (sandbox key starts ro_test_)",
            "ROUTE_OPT_API_KEY={v}",
        ],
    )
    add(
        S,
        "as2_private_key",
        lambda: pem("RSA PRIVATE KEY", 6),
        [
            "old AS2 encryption key still needed to decrypt archived 810s, until {d}:\n{v}",
        ],
    )
    add(
        S,
        "openssh_private_key",
        lambda: pem("OPENSSH PRIVATE KEY", 4),
        [
            "key that the 3PL issued us for their SFTP (they generated it, yes):\n{v}",
        ],
    )
    add(
        S,
        "basic_auth_header",
        lambda: "Basic " + s(B64, 26) + "=",
        [
            "ERP OData calls from the connector: header {v} (svc_wms)",
        ],
    )
    add(
        S,
        "session_cookie",
        lambda: s(HEX, 64),
        [
            "TMS admin session for {who}'s repro, still valid: Cookie: tms_session={v}",
        ],
    )
    add(
        S,
        "printer_admin_password",
        lambda: dig(6),
        [
            "Honeywell PC42 printers in returns: config PIN {v}, change it when someone leaves",
        ],
    )
    add(
        S,
        "warehouse_wifi_psk",
        lambda: s(B62, 16),
        [
            "guest wifi for drivers is on the sign; the SCANNERS ssid key is {v}",
        ],
    )
    add(
        S,
        "totp_seed",
        lambda: s(B32, 16),
        [
            "break-glass AWS root MFA secret (base32): {v}",
        ],
    )
    add(
        S,
        "azure_storage_conn",
        lambda: (
            "sv=2022-11-02&ss=b&srt=co&sp=rwdlac&se=2027-06-30T00:00:00Z&st=2026-01-01T00:00:00Z&spr=https&sig="
            + s(B64URL, 43)
            + "%3D"
        ),
        [
            "SAS url for the partner to drop label PDFs: https://lgfpodphotos.blob.core.windows.net/labels?{v}",
        ],
    )
    add(
        S,
        "mongodb_url_password",
        pw,
        [
            "Atlas user for the pod-export notebook: podreader / {v}",
        ],
    )

    # ---------------------------------------------------------------- more benign
    add(
        B,
        "ups_tracking_number",
        lambda: "1Z" + s(UPPER_NUM, 6) + dig(10),
        [
            "Kunde reklamiert Sendung {v}, Zustellnachweis fehlt",
            "bulk void list for {d}: {v} plus 40 others in the sheet",
        ],
    )
    add(
        B,
        "git_sha",
        lambda: hx(7),
        [
            "hotfix {v} deployed to {h} at 02:10, label backlog cleared by 02:40",
        ],
    )
    add(
        B,
        "edi_file_sha256",
        lambda: hx(40),
        [
            "SFTP pickup file ASN_{n}.edi sha1 {v} matched the partner's manifest",
        ],
    )
    add(
        B,
        "shipment_uuid",
        uuid,
        [
            "dispatcher {who} reassigned load {v} to the Lyon hub",
        ],
    )
    add(
        B,
        "maps_key_placeholder",
        lambda: "AIza" + "0" * 35,
        [
            "unit tests stub the geocoder; fake key {v} is hardcoded in conftest",
        ],
    )
    add(
        B,
        "redacted_value",
        lambda: "AKIA" + "*" * 16,
        [
            "CloudTrail shows access key {v} used from an unknown IP - key already deactivated by {who}",
        ],
    )
    add(
        B,
        "env_var_reference",
        lambda: 'os.environ["HERE_API_KEY"]',
        [
            "route worker reads {v}; no default, crash early if missing",
        ],
    )
    add(
        B,
        "password_policy_talk",
        lambda: "",
        [
            "ERP team wants the RFC user to have a non-expiring password; we pushed back, compromise is 180 days + vault rotation",
            "handheld PIN login is 4 digits by design (gloves); compensating control is the MDM lock after 5 tries",
        ],
    )
    add(
        B,
        "vault_path_reference",
        lambda: "vault kv get -field=password kv/edi/as2/p12",
        [
            "to unlock the AS2 keystore: {v} | keytool ... (don't echo it)",
        ],
    )
    add(
        B,
        "truncated_revoked",
        lambda: "EZAK" + hx(6) + "...",
        [
            "old EasyPost key {v} deleted in their dashboard {d}; replaced, see vault",
        ],
    )
    add(
        B,
        "image_digest",
        lambda: "sha256:" + hx(64),
        [
            "scanner gateway base image {v} has the openssl CVE, rebuild",
        ],
    )
    add(
        B,
        "trace_id",
        lambda: hx(16),
        [
            "span id {v} is the slow geocode call, 4.2s",
        ],
    )
    add(
        B,
        "aws_account_and_role",
        lambda: f"arn:aws:iam::{dig(12)}:role/label-svc-task",
        [
            "label-svc assumes {v}; no static keys anywhere anymore",
            "trust policy updated so GitHub OIDC can assume {v}",
        ],
    )
    add(
        B,
        "carrier_account_number",
        lambda: s(UPPER_NUM, 6),
        [
            "UPS shipper number {v} for the Rotterdam DC (goes on every label, not a secret)",
            "third-party billing to account {v} rejected, customer's account is closed",
        ],
    )
    add(
        B,
        "fedex_meter_number",
        lambda: dig(9),
        [
            "legacy FedEx web services meter number {v} - irrelevant since the REST migration",
        ],
    )
    add(
        B,
        "edi_qualifier_ids",
        lambda: f"ZZ*LOGIFLOW{dig(4)}",
        [
            "our ISA06 for the retailer is {v}; theirs is 08*9254110000",
        ],
    )
    add(
        B,
        "random_looking_sku",
        lambda: "SKU-" + s(UPPER_NUM, 12),
        [
            "{v} is the phantom SKU from the bad ERP import",
            "cycle count variance on {v}: system 48, shelf 12",
        ],
    )
    add(
        B,
        "license_plate_number",
        lambda: "LPN" + dig(10),
        [
            "LPN {v} put away to wrong location, moved manually",
            "tote {v} scanned into two waves",
        ],
    )
    add(
        B,
        "hmac_algorithm_talk",
        lambda: "HMAC-SHA256",
        [
            "carrier aggregator signs webhooks with {v} over the raw body; compute before JSON parsing or it fails",
        ],
    )
    add(
        B,
        "public_key_pem",
        lambda: pem("PUBLIC KEY", 4),
        [
            "route-opt vendor's public key for verifying their callbacks:\n{v}",
        ],
    )
    add(
        B,
        "kafka_offsets",
        lambda: dig(9),
        [
            "poison message on scan-events p3 offset {v}, skipped with the ops tool",
        ],
    )
    add(
        B,
        "lat_lng_pairs",
        lambda: f"{rng.uniform(43, 53):.6f},{rng.uniform(-1, 9):.6f}",
        [
            "geocoder put the customer at {v} - middle of a lake, flagged address",
        ],
    )
    add(
        B,
        "dock_door_code_talk",
        lambda: "",
        [
            "door codes for the yard gate are handed out by security per shift, not stored anywhere in our tools",
        ],
    )
    add(
        B,
        "jwt_decoded_claims",
        lambda: '{"sub": "svc-erp-bridge", "aud": "tms", "exp": 1767225600}',
        [
            "decoded claims (payload only, no token): {v} - exp was the problem",
        ],
    )
    add(
        B,
        "checksum_crc",
        lambda: "0x" + s("0123456789ABCDEF", 8),
        [
            "firmware image CRC32 {v} matches the vendor's release notes",
        ],
    )
    add(
        B,
        "ksuid_request_id",
        lambda: s(B62, 27),
        [
            "X-Request-Id {v} from the DHL API error response, quote it in the ticket",
            "FedEx transactionId {v} for the failed ship call",
        ],
    )
    add(
        B,
        "onepassword_reference",
        lambda: "op://Ops/Geotab/password",
        [
            "geotab creds: {v}; the ingest reads it via op inject",
        ],
    )
    add(
        B,
        "example_connection_string",
        lambda: "postgres://user:password@localhost:5432/wms_dev",
        [
            "local dev: DATABASE_URL={v} (docker-compose default, nothing real)",
        ],
    )
    add(
        B,
        "sandbox_docs_reference",
        lambda: "",
        [
            "EasyPost test keys are EZTK..., prod EZAK...; the returns portal must only ever see the vault one",
        ],
    )
    add(
        B,
        "azure_tenant_ids",
        uuid,
        [
            "Entra app registration object id {v} for erp-bridge",
        ],
    )
    add(
        B,
        "stripe_object_ids",
        lambda: "cus_" + s(B62, 14),
        [
            "freight customer {v} has two default payment methods",
        ],
    )
    add(
        B,
        "route_solution_id",
        lambda: "job-" + hx(24),
        [
            "solver job {v} timed out at 300s, 900 stops is too many for one call",
        ],
    )
    add(
        B,
        "pagerduty_service_id",
        lambda: "Q" + s(UPPER_NUM, 13),
        [
            "incident {v} (labels down 22 min) postmortem due Friday",
        ],
    )
    add(
        B,
        "handheld_serial",
        lambda: "S" + dig(11),
        [
            "Honeywell CT60 {v} reboots when docking",
        ],
    )
    add(
        B,
        "secret_word_other_sense",
        lambda: "",
        [
            "Secret Santa for the night shift: sign-up sheet is by the dock 2 coffee machine",
        ],
    )
    add(
        B,
        "token_bucket_talk",
        lambda: "",
        [
            "FedEx API quota: token refresh every 60 min; our client was requesting a new OAuth token per call, now cached",
        ],
    )

    add(
        B,
        "fedex_tracking_number",
        lambda: dig(15),
        [
            "Ground tracking {v} (15 digits, older format) not found in the v1 track API",
        ],
    )
    add(
        B,
        "dhl_waybill",
        lambda: "JJD" + dig(18),
        [
            "DHL Parcel piece id {v} delivered to the neighbour, customer disputes",
        ],
    )
    add(
        B,
        "kafka_consumer_group",
        lambda: "route-opt.results." + hx(8),
        [
            "new group {v} created by the canary, delete after the test",
        ],
    )
    add(
        B,
        "idempotency_key",
        lambda: "ship-" + hx(32),
        [
            "our dedupe key for label requests is ship- + md5(order,parcel), e.g. {v}",
        ],
    )
    add(
        B,
        "gtin",
        lambda: "(01)0" + dig(13) + "(10)LOT" + dig(4),
        [
            "GS1-128 on the inbound case: {v}, scanner must parse AIs",
        ],
    )
    add(
        B,
        "ssh_public_key",
        lambda: "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ" + s(B64, 60),
        [
            "the old 3PL only accepts RSA, so we sent them our public key {v} edi@logiflow",
        ],
    )
    add(
        B,
        "angle_placeholder",
        lambda: "sk_live_xxxxxxxxxxxxxxxxxxxxxxxx",
        [
            "wiki example for the invoice portal: STRIPE_SECRET_KEY={v} (placeholder, live key only in vault)",
        ],
    )
    add(
        B,
        "isa_control_number",
        lambda: dig(9),
        [
            "interchange {v} acknowledged with TA1 code 000, all good",
        ],
    )
    add(
        B,
        "secretsmanager_arn",
        lambda: f"projects/lgf-routing/secrets/here-api-key/versions/{rng.randint(2, 19)}",
        [
            "route workers mount {v}; Secret Manager accessor role only on the worker SA",
        ],
    )
    return rows


def main() -> None:
    rows = corpus()
    for r in rows:
        assert r["value"] in r["text"]
    lines = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w", encoding="utf-8") as fh:
            fh.write(lines)
    else:
        sys.stdout.write(lines)


if __name__ == "__main__":
    main()

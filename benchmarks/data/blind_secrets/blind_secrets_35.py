"""Blind secret-detector corpus 35: what support and on-call engineers paste into memory.

Brief: support and on-call engineers pasting what they saw into the memory: application
logs, stack traces with DSNs and connection strings, ``curl -v`` and HTTP request/response
dumps with headers and cookies, proxy and load-balancer access logs with query strings,
Sentry/Datadog event payloads, customer tickets quoting their own config, browser console
output, mobile crash logs, SMTP transcripts (AUTH PLAIN/LOGIN), FTP/SSH session transcripts,
database error messages echoing the statement. Look-alikes: request ids, trace and span ids,
correlation ids, session ids that were already invalidated and said so, hashed user ids,
ETags, build hashes, masked tokens in logs (``Bearer ****``), redacted fields, CSRF tokens,
nonces, public keys, log lines that only name a header without its value.

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier
corpus.

Run: python benchmarks/data/blind_secrets/blind_secrets_35.py [out.jsonl]
(JSONL to the path given, or to stdout.) Every random value comes from random.Random(SEED).

Kinds, secret (65):
    postgres_dsn_in_traceback, mysql_jdbc_url_in_stacktrace, mongodb_srv_uri_in_log,
    redis_url_with_password, amqp_url_in_error, mssql_connection_string_ticket,
    curl_v_bearer_opaque, curl_v_basic_header, live_session_cookie_request_dump,
    set_cookie_response_header, proxy_log_query_api_key, lb_access_log_access_token,
    sentry_event_request_headers, datadog_payload_db_password, aws_keypair_in_ticket,
    browser_console_jwt, mobile_crash_refresh_token, smtp_auth_plain_transcript,
    smtp_auth_login_transcript, ftp_transcript_pass, ssh_session_sshpass,
    db_error_echoes_alter_user, github_classic_pat, github_fine_grained_pat, gitlab_pat,
    slack_bot_token, slack_incoming_webhook, stripe_webhook_secret, twilio_auth_token,
    sendgrid_api_key, openai_project_key, anthropic_api_key, google_oauth_client_secret,
    private_key_pasted_in_ticket, gcp_sa_json_private_key, npm_token_npmrc,
    pypi_upload_token, jwt_signing_secret_env_dump, django_secret_key_debug_page,
    x_api_key_request_dump, azure_storage_connection_string, azure_sas_token_url,
    s3_presigned_url_live, password_reset_token_access_log, magic_login_link,
    kubectl_verbose_bearer, docker_config_auth, git_url_with_credentials, mailgun_api_key,
    shopify_admin_token, telegram_bot_token, discord_bot_token, vault_service_token,
    grafana_service_account_token, doppler_service_token, atlassian_api_token,
    newrelic_user_key, datadog_api_key_env, cloudflare_api_token_curl,
    ldap_bind_password_error, oauth_refresh_token_response_body, websocket_url_token,
    basic_auth_url_console, php_session_live_ticket, snmp_community_config.

Kinds, benign (68):
    request_id_log, w3c_traceparent, span_id_datadog, correlation_id_header,
    invalidated_session_stated, hashed_user_id, etag_header, build_hash, masked_bearer_log,
    redacted_password_field, sentry_filtered_field, csrf_token_form, csp_nonce,
    ssh_public_key, header_named_without_value, authorization_header_missing_log,
    stripe_publishable_key, aws_docs_example_key, placeholder_dsn, env_reference_password,
    vault_path_reference, smtp_transcript_redacted_auth, ftp_anonymous_login,
    ssh_host_key_fingerprint, docker_image_digest, sri_integrity_hash, idempotency_key,
    stripe_object_ids, k8s_pod_uid, revoked_pat_stated, twilio_account_sid,
    recaptcha_site_key, mapbox_public_token, oauth_state_param, pkce_code_challenge,
    ios_crash_binary_uuid, android_install_id, pg_auth_failed_no_value,
    db_unique_violation_echo, webhook_signature_header, stripe_signature_header,
    dkim_signature, smtp_queue_id, message_id_header, tls_cert_fingerprint, public_key_pem,
    jwks_kid, x_amzn_trace_id, cf_ray_id, s3_request_ids, google_oauth_client_id,
    ga_analytics_cookie, pagination_cursor_base64, password_policy_text,
    lexer_unexpected_token, docs_example_slack_token, rate_limit_headers, gravatar_md5,
    cache_key, s3_multipart_upload_id, age_public_recipient, pgp_fingerprint,
    otp_used_and_expired, masked_card_number, commit_sha_short_in_stack,
    mobile_device_token_invalid, password_redacted_in_dsn, sha256_checksum_artifact.
"""

# ruff: noqa: E501

import base64
import hashlib
import json
import random
import re
import string
import sys

SEED = 3535

LOW = string.ascii_lowercase
UP = string.ascii_uppercase
DIG = string.digits
ALNUM = LOW + UP + DIG
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "-_"


def corpus() -> list[dict]:
    r = random.Random(SEED)

    def s(n, alpha=ALNUM):
        return "".join(r.choice(alpha) for _ in range(n))

    def pw():
        words = ["Winter", "Falcon", "orchid", "Copper", "ridge", "Lantern", "maple", "Quartz"]
        return r.choice(words) + r.choice("!#%*&@") + s(2, DIG) + s(5, ALNUM) + r.choice("$!.?")

    def b64(b):
        return base64.b64encode(b).decode()

    def b64u(b):
        return base64.urlsafe_b64encode(b).decode().rstrip("=")

    def jwt(exp_live=True):
        hdr = b64u(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
        body = {
            "sub": str(r.randint(10000, 999999)),
            "iat": 1796000000 + r.randint(0, 99999),
            "exp": 1896000000 + r.randint(0, 99999),
            "scope": r.choice(["read write", "admin", "orders:rw"]),
        }
        return hdr + "." + b64u(json.dumps(body).encode()) + "." + s(43, URLSAFE)

    def uuid():
        h = s(32, HEX)
        return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{r.choice('89ab')}{h[17:20]}-{h[20:]}"

    def pem_body(lines=6):
        return "\n".join(s(64, B64) for _ in range(lines))

    users = ["svc_billing", "app", "orders_rw", "reporting", "api_user", "etl", "webapp", "ops"]
    hosts = [
        "db-prod-2.internal",
        "pg-main.c9x2k1.eu-west-1.rds.amazonaws.com",
        "10.40.3.17",
        "mysql-replica.acme.lan",
        "orders-db.prod.svc.cluster.local",
    ]
    emails = [
        "dana@brightfold.io",
        "ops@kelpware.com",
        "m.ito@tsuru-logistics.jp",
        "lee@quillpay.co",
    ]

    def ctx():
        return {
            "ip": f"{r.randint(11, 223)}.{r.randint(0, 255)}.{r.randint(0, 255)}.{r.randint(1, 254)}",
            "ts": f"2026-{r.randint(1, 11):02d}-{r.randint(1, 28):02d}T{r.randint(0, 23):02d}:"
            f"{r.randint(0, 59):02d}:{r.randint(0, 59):02d}Z",
            "rid": uuid(),
            "user": r.choice(users),
            "host": r.choice(hosts),
            "email": r.choice(emails),
            "tkt": str(r.randint(10000, 99999)),
            "port": str(r.choice([5432, 3306, 6379, 27017, 5672, 1433])),
            "ms": str(r.randint(3, 2400)),
            "inc": str(r.randint(100, 9999)),
        }

    # ---------------- secret kinds: (kind, value_fn, templates) ----------------
    def v_plain(fn):
        return lambda: (fn(), {})

    def v_basic():
        u, p = r.choice(users), pw()
        return b64(f"{u}:{p}".encode()), {"u": u}

    def v_smtp_plain():
        e, p = r.choice(emails), pw()
        return b64(f"\0{e}\0{p}".encode()), {}

    def v_smtp_login():
        e, p = r.choice(emails), pw()
        return b64(p.encode()), {"eb64": b64(e.encode())}

    def v_aws_pair():
        return s(40, ALNUM + "+/"), {"akid": "AKIA" + s(16, UP + "234567")}

    def v_pem():
        return (
            "-----BEGIN RSA PRIVATE KEY-----\n" + pem_body(4) + "\n-----END RSA PRIVATE KEY-----",
            {},
        )

    def v_pem_json():
        return (
            "-----BEGIN PRIVATE KEY-----\\n"
            + "\\n".join(s(64, B64) for _ in range(3))
            + "\\n-----END PRIVATE KEY-----\\n",
            {"kid": s(40, HEX)},
        )

    def v_telegram():
        return f"{r.randint(100000000, 7999999999)}:AA{s(33, URLSAFE)}", {}

    def v_discord():
        return (
            b64u(str(r.randint(10**17, 10**18)).encode())
            + "."
            + s(6, URLSAFE)
            + "."
            + s(38, URLSAFE),
            {},
        )

    def v_docker_auth():
        return b64(f"deploybot:{pw()}".encode()), {}

    secret_kinds = [
        (
            "postgres_dsn_in_traceback",
            v_plain(lambda: f"postgresql://<<user>>:{pw()}@<<host>>:5432/orders"),
            [
                'Traceback (most recent call last):\n  File "/srv/app/db.py", line 41, in connect\n'
                "    engine = create_engine(DSN)\nsqlalchemy.exc.OperationalError: could not connect "
                "to server (url=<<v>>)",
                "on-call <<ts>>: worker crashloop, the panic prints the DSN verbatim:\n"
                "panic: dial tcp: lookup failed for <<v>>\ngoroutine 1 [running]:",
                "copied from pod logs during INC-<<inc>>:\nERROR psycopg2 connect() failed dsn='<<v>>' "
                "timeout after <<ms>>ms",
            ],
        ),
        (
            "mysql_jdbc_url_in_stacktrace",
            v_plain(lambda: f"jdbc:mysql://<<host>>:3306/shop?user=<<user>>&password={pw()}"),
            [
                "java.sql.SQLNonTransientConnectionException: Could not create connection to "
                "database server. Attempted reconnect 3 times. url=<<v>>\n\tat com.mysql.cj.jdbc"
                ".exceptions.SQLError.createSQLException(SQLError.java:110)",
                "Hikari pool startup log from the customer's box (ticket <<tkt>>):\n"
                "HikariPool-1 - jdbcUrl........................<<v>>",
            ],
        ),
        (
            "mongodb_srv_uri_in_log",
            v_plain(
                lambda: (
                    f"mongodb+srv://<<user>>:{s(16)}@cluster0.{s(5, LOW + DIG)}.mongodb.net/prod"
                )
            ),
            [
                'MongoServerSelectionError in node logs:\n{"level":50,"msg":"connect failed",'
                '"uri":"<<v>>","reqId":"<<rid>>"}',
                "customer pasted their .env into the ticket:\nMONGO_URL=<<v>>\nNODE_ENV=production",
            ],
        ),
        (
            "redis_url_with_password",
            v_plain(
                lambda: (
                    f"redis://default:{s(32, ALNUM)}@redis-{r.randint(10000, 19999)}.c1.cloud.redislabs.com:6379"
                )
            ),
            [
                "celery beat died: kombu.exceptions.OperationalError: Error 110 connecting to <<v>>. "
                "Connection timed out.",
                "sidekiq boot line (from their heroku logs):\nINFO: Booting Sidekiq with redis "
                'options {:url=>"<<v>>"}',
            ],
        ),
        (
            "amqp_url_in_error",
            v_plain(
                lambda: (
                    f"amqps://<<user>>:{pw()}@b-{s(8, HEX)}.mq.us-east-1.amazonaws.com:5671/vhost"
                )
            ),
            [
                "pika.exceptions.AMQPConnectionError: ('<<v>>', ConnectionRefusedError(111))",
                "rabbit consumer keeps reconnecting, log excerpt <<ts>>:\n"
                "WARN amqp: redial to <<v>> failed: Exception (403) ACCESS_REFUSED",
            ],
        ),
        (
            "mssql_connection_string_ticket",
            v_plain(lambda: pw()),
            [
                'Ticket #<<tkt>> (customer quoting their appsettings.json):\n"DefaultConnection": '
                '"Server=tcp:<<host>>,1433;Database=Crm;User ID=<<user>>;Password=<<v>>;Encrypt=True;"',
                "System.Data.SqlClient.SqlException (0x80131904): Login failed for user '<<user>>'.\n"
                "   ConnectionString: Data Source=<<host>>;Initial Catalog=Crm;uid=<<user>>;pwd=<<v>>",
            ],
        ),
        (
            "curl_v_bearer_opaque",
            v_plain(lambda: s(48, URLSAFE)),
            [
                "curl -v output from the customer:\n> GET /v2/invoices HTTP/2\n> Host: api.<<host>>\n"
                "> authorization: Bearer <<v>>\n> accept: */*\n< HTTP/2 500",
                "repro that still works as of <<ts>>:\ncurl -sS -H 'Authorization: Bearer <<v>>' "
                "https://api.example-partner.com/v1/orders?limit=5",
            ],
        ),
        (
            "curl_v_basic_header",
            v_basic,
            [
                "> POST /api/export HTTP/1.1\n> Host: reports.internal\n> Authorization: Basic <<v>>\n"
                "> Content-Length: 312\n< HTTP/1.1 502 Bad Gateway",
                'HAR snippet from ticket <<tkt>>: {"name": "Authorization", "value": "Basic <<v>>"}',
            ],
        ),
        (
            "live_session_cookie_request_dump",
            v_plain(lambda: s(40, HEX)),
            [
                "request dump from devtools (user is still logged in, reproduces the 409):\n"
                "GET /account/billing HTTP/1.1\nCookie: theme=dark; sessionid=<<v>>; lang=en",
                "customer's curl (copy as cURL): curl 'https://app.quillpay.co/dashboard' -H "
                "'cookie: _app_session=<<v>>'",
            ],
        ),
        (
            "set_cookie_response_header",
            v_plain(lambda: s(64, URLSAFE)),
            [
                "< HTTP/1.1 302 Found\n< Location: /home\n< Set-Cookie: SESSION=<<v>>; Path=/; Secure; "
                "HttpOnly; SameSite=Lax\n< Content-Length: 0",
                "login response captured at <<ts>> via mitmproxy:\nset-cookie: auth_session=<<v>>; "
                "Max-Age=1209600; HttpOnly",
            ],
        ),
        (
            "proxy_log_query_api_key",
            v_plain(lambda: s(32, HEX)),
            [
                '<<ip>> - - [07/Dec/2026:01:12:44 +0000] "GET /v1/geocode?q=berlin&api_key=<<v>> '
                'HTTP/1.1" 200 812 "-" "okhttp/4.12.0"',
                "squid access.log line that shows the partner key in the URL:\n"
                "1796541211.332 <<ms>> <<ip>> TCP_MISS/200 4411 GET https://feeds.partner.net/export"
                "?format=csv&apikey=<<v>> - HIER_DIRECT",
            ],
        ),
        (
            "lb_access_log_access_token",
            v_plain(lambda: "ya29." + s(120, URLSAFE)),
            [
                "ALB log, the mobile client puts the token in the query string:\nhttps 2026-12-06T22:"
                "10:03Z app/prod-alb/8c1 <<ip>>:51234 10.0.2.9:8080 0.001 0.044 0.000 200 200 191 "
                '733 "GET https://api.acme.io:443/sync?access_token=<<v>> HTTP/1.1"',
                "nginx upstream log (<<ts>>): GET /oauth/proxy?access_token=<<v>>&alt=json -> 401",
            ],
        ),
        (
            "sentry_event_request_headers",
            v_plain(lambda: "sk_live_" + s(24, ALNUM)),
            [
                'Sentry event payload, request section:\n"headers": [["Content-Type", '
                '"application/json"], ["Authorization", "Bearer <<v>>"], ["X-Request-Id", "<<rid>>"]]',
                "Sentry breadcrumb (scrubber missed it): http POST https://api.stripe.com/v1/refunds "
                "auth=<<v>> status=402",
            ],
        ),
        (
            "datadog_payload_db_password",
            v_plain(lambda: pw()),
            [
                'Datadog log event (service:billing-worker):\n{"status":"error","message":"pool '
                'init failed","attributes":{"db":{"user":"<<user>>","password":"<<v>>",'
                '"host":"<<host>>"}}}',
                "DD APM span tag on the failing trace: db.connection_string=host=<<host>> user=<<user>> "
                "password=<<v>> dbname=ledger sslmode=require",
            ],
        ),
        (
            "aws_keypair_in_ticket",
            v_aws_pair,
            [
                "Ticket <<tkt>>: customer says uploads fail, here's our config:\n[default]\n"
                "aws_access_key_id = <<akid>>\naws_secret_access_key = <<v>>\nregion = eu-central-1",
                "env dump from the crashing lambda:\nAWS_ACCESS_KEY_ID=<<akid>>\n"
                "AWS_SECRET_ACCESS_KEY=<<v>>\nAWS_REGION=us-east-1",
            ],
        ),
        (
            "browser_console_jwt",
            v_plain(lambda: jwt()),
            [
                "browser console from the user:\n> localStorage.getItem('id_token')\n'<<v>>'\n"
                "Uncaught (in promise) TypeError: Failed to fetch",
                "console.log left in prod prints the auth header:\n[api] headers {Authorization: "
                "'Bearer <<v>>', X-Client: 'web/5.3.1'}",
            ],
        ),
        (
            "mobile_crash_refresh_token",
            v_plain(lambda: "1//" + s(100, URLSAFE)),
            [
                "iOS crash log, last log lines before SIGABRT:\n2026-12-06 21:04:11.2 MyApp[4412:"
                "88113] AuthStore persisted refresh_token=<<v>>\nThread 0 Crashed: Dispatch queue",
                "Android logcat (user sent it):\nD/OAuth  (12034): tokenResponse: {refresh_token="
                "<<v>>, expires_in=3599}\nE/AndroidRuntime(12034): FATAL EXCEPTION: main",
            ],
        ),
        (
            "smtp_auth_plain_transcript",
            v_smtp_plain,
            [
                "swaks transcript from the customer's relay test:\n<- 250-AUTH PLAIN LOGIN\n-> AUTH "
                "PLAIN <<v>>\n<- 235 2.7.0 Authentication successful",
                "openssl s_client session to smtp.mailrelay.net:587\nEHLO test\n250 AUTH PLAIN\n"
                "AUTH PLAIN <<v>>\n235 OK",
            ],
        ),
        (
            "smtp_auth_login_transcript",
            v_smtp_login,
            [
                "SMTP debug from their PHPMailer:\nCLIENT -> SERVER: AUTH LOGIN\nSERVER -> CLIENT: "
                "334 VXNlcm5hbWU6\nCLIENT -> SERVER: <<eb64>>\nSERVER -> CLIENT: 334 UGFzc3dvcmQ6\n"
                "CLIENT -> SERVER: <<v>>\nSERVER -> CLIENT: 235 Authentication succeeded",
            ],
        ),
        (
            "ftp_transcript_pass",
            v_plain(lambda: pw()),
            [
                "FileZilla log from the vendor:\nCommand:\tUSER <<user>>\nResponse:\t331 Password "
                "required\nCommand:\tPASS <<v>>\nResponse:\t230 Logged on",
                "ftp session the partner pasted:\nftp> open ftp.<<host>>\nName: <<user>>\n"
                "331 Please specify the password.\nPASS <<v>>\n230 Login successful.",
            ],
        ),
        (
            "ssh_session_sshpass",
            v_plain(lambda: pw()),
            [
                "how the vendor reached the box (their terminal history):\n$ sshpass -p '<<v>>' ssh "
                "<<user>>@<<ip>>\nWelcome to Ubuntu 22.04.4 LTS",
                'expect script from the ticket:\nspawn ssh root@<<ip>>\nexpect "password:"\n'
                'send "<<v>>\\r"',
            ],
        ),
        (
            "db_error_echoes_alter_user",
            v_plain(lambda: pw()),
            [
                'ERROR:  role "<<user>>" does not exist\nSTATEMENT:  ALTER ROLE <<user>> WITH LOGIN '
                "PASSWORD '<<v>>' VALID UNTIL 'infinity';",
                "MySQL error log: ERROR 1396 (HY000): Operation CREATE USER failed for "
                "'<<user>>'@'%' -- statement: CREATE USER '<<user>>'@'%' IDENTIFIED BY '<<v>>'",
            ],
        ),
        (
            "github_classic_pat",
            v_plain(lambda: "ghp_" + s(36)),
            [
                "actions log from the customer's runner:\nRun git clone https://x-access-token:<<v>>"
                "@github.com/brightfold/infra.git",
                "ticket <<tkt>>: 'our token <<v>> gets 403 on /repos/.../dispatches'",
            ],
        ),
        (
            "github_fine_grained_pat",
            v_plain(lambda: "github_pat_11" + s(20, UP + DIG) + "_" + s(59)),
            [
                "gh api failing, verbose output:\n* Request to https://api.github.com/user\n"
                "> Authorization: token <<v>>\n< HTTP/2.0 401 Unauthorized",
            ],
        ),
        (
            "gitlab_pat",
            v_plain(lambda: "glpat-" + s(20, URLSAFE)),
            [
                'runner debug trace:\n$ curl --header "PRIVATE-TOKEN: <<v>>" '
                "https://gitlab.kelpware.com/api/v4/projects/88/pipelines",
                "registry login failing for the customer, their CI variable dump shows "
                "GITLAB_TOKEN=<<v>>",
            ],
        ),
        (
            "slack_bot_token",
            v_plain(
                lambda: f"xoxb-{r.randint(10**11, 10**12)}-{r.randint(10**12, 10**13)}-{s(24)}"
            ),
            [
                "slack_sdk error in alert-router logs:\nSlackApiError: invalid_auth token=<<v>> "
                "channel=C04ONCALL",
                "webhook relay config the customer quoted:\nslack:\n  bot_token: <<v>>\n  "
                "channel: '#alerts-prod'",
            ],
        ),
        (
            "slack_incoming_webhook",
            v_plain(
                lambda: (
                    f"https://hooks.slack.com/services/T{s(8, UP + DIG)}/B{s(10, UP + DIG)}/{s(24)}"
                )
            ),
            [
                'alertmanager log: msg="Notify for alerts failed" err="Post \\"<<v>>\\": '
                'context deadline exceeded"',
                "grafana contact point from the ticket: url: <<v>>",
            ],
        ),
        (
            "stripe_webhook_secret",
            v_plain(lambda: "whsec_" + s(32)),
            [
                "stripe.error.SignatureVerificationError in billing logs; the customer's config "
                "shows endpoint_secret = '<<v>>'",
                "env from the container: STRIPE_WEBHOOK_SECRET=<<v>> STRIPE_API_VERSION=2024-06-20",
            ],
        ),
        (
            "twilio_auth_token",
            v_plain(lambda: s(32, HEX)),
            [
                "twilio sms failing for tenant 44, their settings row: account_sid=AC<<sid>> "
                "auth_token=<<v>>",
                "curl from the ticket: curl -X POST https://api.twilio.com/2010-04-01/Accounts/"
                "AC<<sid>>/Messages.json -u AC<<sid>>:<<v>>",
            ],
        ),
        (
            "sendgrid_api_key",
            v_plain(lambda: "SG." + s(22, URLSAFE) + "." + s(43, URLSAFE)),
            [
                "python-http-client exception: HTTP Error 401, request headers "
                "{'Authorization': 'Bearer <<v>>'}",
                "customer email quoted their mailer env: SENDGRID_API_KEY=<<v>>",
            ],
        ),
        (
            "openai_project_key",
            v_plain(lambda: "sk-proj-" + s(48, URLSAFE) + "T3BlbkFJ" + s(48, URLSAFE)),
            [
                "openai.AuthenticationError: Error code: 401 - Incorrect API key provided: the "
                "worker env had OPENAI_API_KEY=<<v>>",
                "browser console (they call the API from the front end!):\nPOST "
                "https://api.openai.com/v1/chat/completions\nauthorization: Bearer <<v>>",
            ],
        ),
        (
            "anthropic_api_key",
            v_plain(lambda: "sk-ant-api03-" + s(93, URLSAFE) + "AA"),
            [
                "request dump from the support bundle:\nPOST /v1/messages\nx-api-key: <<v>>\n"
                "anthropic-version: 2023-06-01",
            ],
        ),
        (
            "google_oauth_client_secret",
            v_plain(lambda: "GOCSPX-" + s(28, URLSAFE)),
            [
                "token exchange request captured in Charles:\nPOST /token\ngrant_type="
                "authorization_code&client_id=8813.apps.googleusercontent.com&client_secret=<<v>>"
                "&code=4%2F0Ad",
                "ticket: 'redirect_uri_mismatch' - their client_secret.json has "
                '"client_secret": "<<v>>"',
            ],
        ),
        (
            "private_key_pasted_in_ticket",
            v_pem,
            [
                "customer attached the deploy key to the ticket, sigh:\n<<v>>",
                "SSH failing from Jenkins; the credential they showed us:\n<<v>>\n(used for "
                "git@github.com:kelpware/site.git)",
            ],
        ),
        (
            "gcp_sa_json_private_key",
            v_pem_json,
            [
                'Sentry extra context dumped GOOGLE_CREDENTIALS:\n{"type": "service_account", '
                '"private_key_id": "<<kid>>", "private_key": "<<v>>", "client_email": '
                '"etl@proj-88.iam.gserviceaccount.com"}',
            ],
        ),
        (
            "npm_token_npmrc",
            v_plain(lambda: "npm_" + s(36)),
            [
                "npm ERR! 403 on publish; their .npmrc:\n//registry.npmjs.org/:_authToken=<<v>>",
                "CI log with set -x: + echo //registry.npmjs.org/:_authToken=<<v>>",
            ],
        ),
        (
            "pypi_upload_token",
            v_plain(lambda: "pypi-AgEIcHlwaS5vcmc" + s(120, URLSAFE)),
            [
                "twine upload 403 from the maintainer's log:\nUploading distributions to "
                "https://upload.pypi.org/legacy/ with -u __token__ -p <<v>>",
            ],
        ),
        (
            "jwt_signing_secret_env_dump",
            v_plain(lambda: s(48, URLSAFE)),
            [
                "printenv from the failing pod (INC-<<inc>>):\nPORT=8080\nJWT_SECRET=<<v>>\n"
                "LOG_LEVEL=debug",
                'auth-svc startup logs config in debug mode: {"issuer":"auth.acme.io",'
                '"hmac_secret":"<<v>>","ttl":900}',
            ],
        ),
        (
            "django_secret_key_debug_page",
            v_plain(lambda: "django-insecure-" + s(50, LOW + DIG + "!@#%^&*(-_=+)")),
            [
                "customer's prod had DEBUG=True, the yellow page shows settings:\nSECRET_KEY = "
                "'<<v>>'\nALLOWED_HOSTS = ['*']",
            ],
        ),
        (
            "x_api_key_request_dump",
            v_plain(lambda: s(40, ALNUM)),
            [
                "Postman console:\nPOST https://gw.tsuru-logistics.jp/v3/shipments\nx-api-key: <<v>>"
                "\ncontent-type: application/json\n429 Too Many Requests",
                "API gateway test invocation log: Method request headers: {X-Api-Key=<<v>>, "
                "Host=abc123.execute-api.ap-northeast-1.amazonaws.com}",
            ],
        ),
        (
            "azure_storage_connection_string",
            v_plain(lambda: s(86, B64) + "=="),
            [
                "Azure.RequestFailedException in function logs; AzureWebJobsStorage=DefaultEndpoints"
                "Protocol=https;AccountName=kelpprod;AccountKey=<<v>>;EndpointSuffix=core.windows.net",
            ],
        ),
        (
            "azure_sas_token_url",
            v_plain(lambda: s(43, B64).replace("/", "%2F").replace("+", "%2B") + "%3D"),
            [
                "blob download 403 for the customer, the URL they use:\nhttps://kelpprod.blob.core."
                "windows.net/exports/q3.csv?sv=2022-11-02&ss=b&srt=o&sp=rl&se=2027-06-30T00:00:00Z"
                "&spr=https&sig=<<v>>",
            ],
        ),
        (
            "s3_presigned_url_live",
            v_plain(lambda: s(64, HEX)),
            [
                "link from the support reply, valid 7 days (X-Amz-Expires=604800):\nhttps://acme-"
                "exports.s3.amazonaws.com/tenant-9/dump.sql.gz?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-"
                "Credential=AKIA<<akid16>>%2F20261206%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date="
                "20261206T221500Z&X-Amz-Expires=604800&X-Amz-SignedHeaders=host&X-Amz-Signature=<<v>>",
            ],
        ),
        (
            "password_reset_token_access_log",
            v_plain(lambda: s(43, URLSAFE)),
            [
                "nginx log, user clicked the reset link but got 500 (token is still unused):\n"
                '<<ip>> - - [06/Dec/2026:20:01:09 +0000] "GET /password/reset?token=<<v>> HTTP/2.0" 500',
            ],
        ),
        (
            "magic_login_link",
            v_plain(lambda: s(64, HEX)),
            [
                "ticket <<tkt>>: customer forwarded their login email: 'Sign in: "
                "https://app.brightfold.io/auth/magic?t=<<v>>' (expires in 24h)",
            ],
        ),
        (
            "kubectl_verbose_bearer",
            v_plain(
                lambda: (
                    "eyJhbGciOiJSUzI1NiIsImtpZCI6I"
                    + s(60, URLSAFE)
                    + "."
                    + s(300, URLSAFE)
                    + "."
                    + s(86, URLSAFE)
                )
            ),
            [
                "kubectl get pods -v=9 from the customer:\nI1206 22:01:33.1 round_trippers.go:466] "
                "curl -v -XGET -H \"Authorization: Bearer <<v>>\" 'https://10.0.0.1:443/api/v1/pods'",
            ],
        ),
        (
            "docker_config_auth",
            v_docker_auth,
            [
                'buildkit failing to pull, they pasted ~/.docker/config.json:\n{"auths": '
                '{"registry.kelpware.com": {"auth": "<<v>>"}}}',
            ],
        ),
        (
            "git_url_with_credentials",
            v_plain(lambda: pw()),
            [
                "fatal: unable to access 'https://deploy:<<v>>@git.brightfold.io/web/site.git/': "
                "SSL certificate problem",
                'Argo CD repo-server log: level=error msg="repo fetch failed" '
                "repo=https://ci-bot:<<v>>@bitbucket.org/acme/charts.git",
            ],
        ),
        (
            "mailgun_api_key",
            v_plain(lambda: "key-" + s(32, HEX)),
            [
                "requests trace from the notifier:\nsend: b'POST /v3/mg.quillpay.co/messages' with "
                "auth=('api', '<<v>>') -> 401 Forbidden",
            ],
        ),
        (
            "shopify_admin_token",
            v_plain(lambda: "shpat_" + s(32, HEX)),
            [
                "webhook sync worker error: ShopifyAPI::Errors::HttpResponseError 403, "
                "X-Shopify-Access-Token: <<v>> shop=tsuru-store.myshopify.com",
            ],
        ),
        (
            "telegram_bot_token",
            v_telegram,
            [
                "alert bot log: POST https://api.telegram.org/bot<<v>>/sendMessage -> 409 "
                "Conflict: terminated by other getUpdates request",
            ],
        ),
        (
            "discord_bot_token",
            v_discord,
            [
                "discord.py traceback from the community bot:\ndiscord.errors.LoginFailure: "
                "Improper token has been passed. (client.run('<<v>>'))",
            ],
        ),
        (
            "vault_service_token",
            v_plain(lambda: "hvs." + s(24, ALNUM)),
            [
                "vault agent debug output on the node:\n[DEBUG] agent.auth.handler: renewed token: "
                "token=<<v>> ttl=768h",
                "customer running `VAULT_TOKEN=<<v>> vault kv get secret/app` - getting permission "
                "denied",
            ],
        ),
        (
            "grafana_service_account_token",
            v_plain(lambda: "glsa_" + s(32) + "_" + s(8, HEX)),
            [
                'terraform plan error: provider grafana auth="<<v>>" url=https://grafana.kelpware.com',
            ],
        ),
        (
            "doppler_service_token",
            v_plain(lambda: "dp.st.prd." + s(43)),
            [
                "Dockerfile from the ticket (baked in!): ENV DOPPLER_TOKEN=<<v>>",
            ],
        ),
        (
            "atlassian_api_token",
            v_plain(lambda: "ATATT3xFfGF0" + s(170, URLSAFE) + "=" + s(8, HEX.upper())),
            [
                "jira automation failing; their script: curl -u <<email>>:<<v>> "
                "https://brightfold.atlassian.net/rest/api/3/issue/OPS-12",
            ],
        ),
        (
            "newrelic_user_key",
            v_plain(lambda: "NRAK-" + s(27, UP + DIG)),
            [
                "graphql 401 from nerdgraph; request: POST https://api.newrelic.com/graphql "
                "API-Key: <<v>>",
            ],
        ),
        (
            "datadog_api_key_env",
            v_plain(lambda: s(32, HEX)),
            [
                "agent status on the customer host shows config: api_key: <<v>> site: datadoghq.eu",
                "helm values they pasted:\ndatadog:\n  apiKey: <<v>>\n  appKey: null",
            ],
        ),
        (
            "cloudflare_api_token_curl",
            v_plain(lambda: s(40, URLSAFE)),
            [
                "curl -v https://api.cloudflare.com/client/v4/zones/<<zone>>/purge_cache\n"
                "> Authorization: Bearer <<v>>\n< HTTP/2 403",
            ],
        ),
        (
            "ldap_bind_password_error",
            v_plain(lambda: pw()),
            [
                "keycloak log: LDAP bind failed for cn=svc-sso,ou=svc,dc=acme,dc=lan "
                "(bindCredential=<<v>>) error code 49",
                "sssd.conf from the ticket:\nldap_default_bind_dn = cn=reader,dc=kelp,dc=com\n"
                "ldap_default_authtok = <<v>>",
            ],
        ),
        (
            "oauth_refresh_token_response_body",
            v_plain(lambda: s(64, URLSAFE)),
            [
                'response body from /oauth/token that we saw in the proxy:\n{"access_token":'
                '"<<at>>","token_type":"bearer","refresh_token":"<<v>>","expires_in":3600}',
            ],
        ),
        (
            "websocket_url_token",
            v_plain(lambda: s(56, URLSAFE)),
            [
                "browser console: WebSocket connection to 'wss://rt.quillpay.co/socket?token=<<v>>"
                "&vsn=2.0.0' failed: Error during WebSocket handshake: Unexpected response code: 403",
            ],
        ),
        (
            "basic_auth_url_console",
            v_plain(lambda: pw()),
            [
                "console warning pasted by the customer: [Deprecation] Subresource requests whose "
                "URLs contain embedded credentials are blocked: https://admin:<<v>>@staging."
                "brightfold.io/api/health",
            ],
        ),
        (
            "php_session_live_ticket",
            v_plain(lambda: s(26, LOW + DIG)),
            [
                "customer sent their current cookie so we can 'see what they see' (session is "
                "active): PHPSESSID=<<v>>",
            ],
        ),
        (
            "snmp_community_config",
            v_plain(lambda: s(14, ALNUM)),
            [
                "switch config from the customer (they want us to poll it):\nsnmp-server community "
                "<<v>> RW\nsnmp-server location rack-14",
            ],
        ),
    ]

    # ---------------- benign kinds ----------------
    benign_kinds = [
        (
            "request_id_log",
            lambda: s(32, HEX),
            [
                "<<ts>> INFO http request_id=<<v>> method=GET path=/v1/orders status=500 "
                "dur_ms=<<ms>>",
                "customer quoted the error page: 'Something went wrong. Reference: <<v>>' - look it "
                "up in Loki",
            ],
        ),
        (
            "w3c_traceparent",
            lambda: "00-" + s(32, HEX) + "-" + s(16, HEX) + "-01",
            [
                "> traceparent: <<v>>\n> tracestate: dd=s:1;t.dm:-0\n< HTTP/1.1 504",
                "the slow call's trace header was traceparent=<<v>>, open it in Tempo",
            ],
        ),
        (
            "span_id_datadog",
            lambda: str(r.randint(10**18, 9 * 10**18)),
            [
                "DD span: dd.trace_id=<<v>> dd.span_id=<<sid2>> service=checkout resource=POST /pay",
                "Datadog trace for INC-<<inc>> is trace_id <<v>> (the one with the 14s db span)",
            ],
        ),
        (
            "correlation_id_header",
            lambda: uuid(),
            [
                "X-Correlation-ID: <<v>> - it shows up in gateway, orders-svc and the PSP callback",
                "customer ticket <<tkt>>: 'error code 500, correlation id <<v>>'",
            ],
        ),
        (
            "invalidated_session_stated",
            lambda: s(40, HEX),
            [
                "the user pasted their cookie sessionid=<<v>>; I force-logged-out the account and "
                "confirmed the session row is deleted, this value no longer authenticates",
                "for the record: session <<v>> from the HAR was revoked at <<ts>> (sessions table "
                "purged for that user), kept only to match log lines",
            ],
        ),
        (
            "hashed_user_id",
            lambda: hashlib.sha256(s(12).encode()).hexdigest(),
            [
                "analytics events are keyed by user_hash=<<v>> (sha256 of the internal id) - "
                "the complaining customer maps to that",
                'log line: {"evt":"login_failed","uid_sha256":"<<v>>","reason":"bad_otp"}',
            ],
        ),
        (
            "etag_header",
            lambda: '"' + s(32, HEX) + '"',
            [
                "< HTTP/2 304\n< etag: <<v>>\n< cache-control: max-age=60",
                "cache bug: CDN keeps serving ETag <<v>> after the deploy; purge didn't help",
            ],
        ),
        (
            "build_hash",
            lambda: s(40, HEX),
            [
                "crash only on build <<v>> (web 5.3.1), the previous commit is fine",
                '/version returned {"commit":"<<v>>","built":"<<ts>>"}',
            ],
        ),
        (
            "masked_bearer_log",
            lambda: "Bearer ****" + s(4, ALNUM),
            [
                'gateway log: upstream 401 auth_header="<<v>>" client=ios/7.2',
                "> Authorization: <<v>>\n(our logger masks all but the last 4)",
            ],
        ),
        (
            "redacted_password_field",
            lambda: "[REDACTED]",
            [
                'Datadog event: {"db":{"user":"<<user>>","password":"<<v>>","host":"<<host>>"}}',
                "ticket config excerpt: smtp_password: <<v>> (customer redacted it before sending)",
            ],
        ),
        (
            "sentry_filtered_field",
            lambda: "[Filtered]",
            [
                'Sentry request body: {"email": "<<email>>", "password": "<<v>>", "remember": true}',
                'Sentry scrubbed the cookie: "cookies": {"sessionid": "<<v>>"}',
            ],
        ),
        (
            "csrf_token_form",
            lambda: s(64, URLSAFE),
            [
                "the 403 is a CSRF mismatch: form sent csrfmiddlewaretoken=<<v>> but the cookie "
                "was rotated",
                '<meta name="csrf-token" content="<<v>>"> appears twice on the page after the '
                "turbo update",
            ],
        ),
        (
            "csp_nonce",
            lambda: b64(bytes(r.randrange(256) for _ in range(16))),
            [
                "console: Refused to execute inline script because it violates the CSP directive "
                "\"script-src 'nonce-<<v>>'\"",
                "response header: content-security-policy: default-src 'self'; script-src "
                "'nonce-<<v>>' 'strict-dynamic'",
            ],
        ),
        (
            "ssh_public_key",
            lambda: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + s(43, B64),
            [
                "vendor's public key to add to authorized_keys on the bastion:\n<<v>> vendor@acme",
                "ticket: please whitelist our key <<v>> deploy@tsuru",
            ],
        ),
        (
            "header_named_without_value",
            lambda: "X-Api-Key",
            [
                "gateway: 401 missing required header '<<v>>' (request <<rid>>)",
                "WARN auth: request rejected, <<v>> header present but empty; client=android/3.1",
            ],
        ),
        (
            "authorization_header_missing_log",
            lambda: "Authorization",
            [
                'nginx debug: no "<<v>>" header in request, passing to auth_request /verify',
                "root cause: the CORS preflight strips <<v>>; preflight has no credentials by design",
            ],
        ),
        (
            "stripe_publishable_key",
            lambda: "pk_live_" + s(99),
            [
                "checkout page source shows Stripe('<<v>>') - publishable key, fine in the browser",
                "console: Stripe.js initialized with <<v>> (publishable, not the secret key)",
            ],
        ),
        (
            "aws_docs_example_key",
            lambda: "AKIAIOSFODNN7EXAMPLE",
            [
                "customer's README copied from the AWS docs: aws_access_key_id = <<v>> / "
                "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY - that's why it fails",
                "their terraform test fixture uses the documented example id <<v>>",
            ],
        ),
        (
            "placeholder_dsn",
            lambda: "postgres://USER:<password>@HOST:5432/DB",
            [
                "told the customer the expected format is <<v>> and to fill it from their vault",
                "runbook snippet: export DATABASE_URL=<<v>>",
            ],
        ),
        (
            "env_reference_password",
            lambda: "${DB_PASSWORD}",
            [
                "their compose file: environment:\n  - POSTGRES_PASSWORD=<<v>>\n  - POSTGRES_USER=app",
                "connection_string: host=<<host>> user=<<user>> password=<<v>> (interpolated at boot)",
            ],
        ),
        (
            "vault_path_reference",
            lambda: "vault:secret/data/prod/billing#db_password",
            [
                "password is not in the config anymore, it reads <<v>> via the agent injector",
                "db_password: <<v>>   # resolved by the sidecar",
            ],
        ),
        (
            "smtp_transcript_redacted_auth",
            lambda: "AUTH PLAIN ********",
            [
                "relay transcript (our tool masks credentials):\n-> EHLO mx1\n<- 250-AUTH PLAIN\n-> "
                "<<v>>\n<- 535 5.7.8 Authentication credentials invalid",
            ],
        ),
        (
            "ftp_anonymous_login",
            lambda: "PASS anonymous@",
            [
                "public mirror works: USER anonymous / <<v>> / 230 Guest login ok, access "
                "restrictions apply.",
            ],
        ),
        (
            "ssh_host_key_fingerprint",
            lambda: "SHA256:" + s(43, B64),
            [
                "ssh session: The authenticity of host '<<ip>>' can't be established.\nED25519 key "
                "fingerprint is <<v>>.",
                "WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED! new fingerprint <<v>> - the box "
                "was rebuilt, expected",
            ],
        ),
        (
            "docker_image_digest",
            lambda: "sha256:" + s(64, HEX),
            [
                "rolled back to ghcr.io/kelpware/api@<<v>>",
                'kubelet: Successfully pulled image "api:5.3.1" digest <<v>>',
            ],
        ),
        (
            "sri_integrity_hash",
            lambda: "sha384-" + s(64, B64),
            [
                "console: Failed to find a valid digest in the 'integrity' attribute for resource "
                "... with computed SHA-384 integrity '<<v>>'",
            ],
        ),
        (
            "idempotency_key",
            lambda: uuid(),
            [
                "the double charge: both POSTs carried Idempotency-Key: <<v>> but hit different "
                "regions",
            ],
        ),
        (
            "stripe_object_ids",
            lambda: "pi_" + s(24),
            [
                "disputed payment <<v>> (charge ch_" + "3Q" + "xk..., customer cus_Pz...)",
                "webhook evt for <<v>> arrived twice, see idempotency log",
            ],
        ),
        (
            "k8s_pod_uid",
            lambda: uuid(),
            [
                "OOMKilled: pod orders-7c9f uid=<<v>> restarted 14 times",
            ],
        ),
        (
            "revoked_pat_stated",
            lambda: "ghp_" + s(36),
            [
                "leaked in the customer's public gist: <<v>> - GitHub secret scanning auto-revoked it "
                "at <<ts>> and we confirmed 401 Bad credentials; kept for the incident timeline",
            ],
        ),
        (
            "twilio_account_sid",
            lambda: "AC" + s(32, HEX),
            [
                "the tenant's Twilio Account SID is <<v>> (identifier only, auth token lives in vault)",
            ],
        ),
        (
            "recaptcha_site_key",
            lambda: "6L" + s(38, URLSAFE),
            [
                "console: reCAPTCHA ERROR for site owner: Invalid domain for site key <<v>>",
            ],
        ),
        (
            "mapbox_public_token",
            lambda: "pk.eyJ1Ijoia2VscHdhcmUiLCJhIjoi" + s(20, URLSAFE) + "In0." + s(22, URLSAFE),
            [
                "map tiles 401 in console; the public (pk.) token <<v>> lacks the URL restriction for "
                "the new domain",
            ],
        ),
        (
            "oauth_state_param",
            lambda: s(32, URLSAFE),
            [
                "callback log: GET /oauth/callback?error=access_denied&state=<<v>> - user clicked "
                "cancel, no code issued",
            ],
        ),
        (
            "pkce_code_challenge",
            lambda: s(43, URLSAFE),
            [
                "authorize URL from the mobile log: ...&code_challenge=<<v>>&code_challenge_method=S256"
                "&response_type=code",
            ],
        ),
        (
            "ios_crash_binary_uuid",
            lambda: s(32, HEX).upper(),
            [
                "Binary Images:\n0x100f2c000 - 0x1015fffff MyApp arm64  <<<v>>> /var/containers/"
                "Bundle/Application/MyApp.app/MyApp\nneed the matching dSYM",
            ],
        ),
        (
            "android_install_id",
            lambda: s(16, HEX),
            [
                "Crashlytics: installation <<v>>, device Pixel 8, 3 crashes in 10 min",
            ],
        ),
        (
            "pg_auth_failed_no_value",
            lambda: "password authentication failed",
            [
                'FATAL:  <<v>> for user "<<user>>" (from <<ip>>) - pgbouncer has the stale password',
            ],
        ),
        (
            "db_unique_violation_echo",
            lambda: "Key (api_key_id)=(" + s(12, LOW + DIG) + ")",
            [
                'ERROR: duplicate key value violates unique constraint "keys_pkey"\nDETAIL:  '
                "<<v>> already exists.",
            ],
        ),
        (
            "webhook_signature_header",
            lambda: "sha256=" + s(64, HEX),
            [
                "> X-Hub-Signature-256: <<v>>\nsignature verification failed because the body was "
                "re-serialized",
            ],
        ),
        (
            "stripe_signature_header",
            lambda: f"t={r.randint(1790000000, 1799999999)},v1=" + s(64, HEX),
            [
                "Stripe-Signature: <<v>> - timestamp outside tolerance, clock skew on the worker",
            ],
        ),
        (
            "dkim_signature",
            lambda: s(172, B64) + "==",
            [
                "DKIM-Signature: v=1; a=rsa-sha256; d=quillpay.co; s=s1; bh="
                + "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="
                + "; b=<<v>>\n(dkim=fail)",
            ],
        ),
        (
            "smtp_queue_id",
            lambda: s(10, UP + DIG),
            [
                "<- 250 2.0.0 Ok: queued as <<v>>\nthe bounce came back 4 min later",
            ],
        ),
        (
            "message_id_header",
            lambda: "<" + s(20, ALNUM) + "@mail.quillpay.co>",
            [
                "Message-ID: <<v>> is the one the customer says never arrived",
            ],
        ),
        (
            "tls_cert_fingerprint",
            lambda: ":".join(s(2, HEX.upper()) for _ in range(32)),
            [
                "curl -v: * Server certificate: CN=api.kelpware.com, SHA256 Fingerprint=<<v>>",
            ],
        ),
        (
            "public_key_pem",
            lambda: "-----BEGIN PUBLIC KEY-----\n" + pem_body(4) + "\n-----END PUBLIC KEY-----",
            [
                "partner's JWT verification key (public):\n<<v>>",
            ],
        ),
        (
            "jwks_kid",
            lambda: s(43, URLSAFE),
            [
                'jwt verify failed: no key in JWKS matching kid "<<v>>"; cache refresh fixed it',
            ],
        ),
        (
            "x_amzn_trace_id",
            lambda: f"Root=1-{s(8, HEX)}-{s(24, HEX)}",
            [
                'ALB log tail: ... "arn:aws:elasticloadbalancing:..." "<<v>>" "-" "-" 0 504',
            ],
        ),
        (
            "cf_ray_id",
            lambda: s(16, HEX) + "-FRA",
            [
                "customer's screenshot text: 'Error 522, Ray ID: <<v>>'",
            ],
        ),
        (
            "s3_request_ids",
            lambda: s(76, B64) + "=",
            [
                "< x-amz-request-id: "
                + "<<rid16>>"
                + "\n< x-amz-id-2: <<v>>\n< HTTP/1.1 403 AccessDenied",
            ],
        ),
        (
            "google_oauth_client_id",
            lambda: f"{r.randint(10**11, 10**12)}-{s(32, LOW + DIG)}.apps.googleusercontent.com",
            [
                'sign-in button misconfigured: data-client_id="<<v>>" points at the staging '
                "project (client id is public)",
            ],
        ),
        (
            "ga_analytics_cookie",
            lambda: f"GA1.1.{r.randint(10**8, 10**9)}.{r.randint(1790000000, 1799999999)}",
            [
                "Cookie header in the dump was just analytics: _ga=<<v>>; _gid=GA1.1.88; "
                "cookieconsent_status=allow",
            ],
        ),
        (
            "pagination_cursor_base64",
            lambda: b64(json.dumps({"id": r.randint(1, 10**6), "ts": "2026-12-01"}).encode()),
            [
                "infinite scroll loops: next_cursor=<<v>> is returned twice",
            ],
        ),
        (
            "password_policy_text",
            lambda: "min_length=14",
            [
                "ticket: user can't set a password - policy is <<v>>, require_symbol=true, no reuse "
                "of last 5",
            ],
        ),
        (
            "lexer_unexpected_token",
            lambda: "Unexpected token '<'",
            [
                'console: Uncaught SyntaxError: <<v>>, "<!DOCTYPE "... is not valid JSON (the '
                "API returned the login HTML)",
            ],
        ),
        (
            "docs_example_slack_token",
            lambda: "xoxb-your-bot-token-here",
            [
                "customer literally left SLACK_BOT_TOKEN=<<v>> from the sample .env, hence "
                "not_authed",
            ],
        ),
        (
            "rate_limit_headers",
            lambda: "x-ratelimit-remaining: 0",
            [
                "< HTTP/2 429\n< <<v>>\n< x-ratelimit-reset: 1796555000\n< retry-after: 30",
            ],
        ),
        (
            "gravatar_md5",
            lambda: hashlib.md5(r.choice(emails).encode()).hexdigest(),
            [
                "avatar broken: https://www.gravatar.com/avatar/<<v>>?d=identicon returns 404",
            ],
        ),
        (
            "cache_key",
            lambda: f"sess:v2:user:{r.randint(1000, 99999)}:prefs",
            [
                "redis MONITOR shows GET <<v>> hammered 9k/s after the deploy",
            ],
        ),
        (
            "s3_multipart_upload_id",
            lambda: s(64, URLSAFE),
            [
                "stuck multipart upload UploadId=<<v>> on acme-exports/big.tar; aborted it",
            ],
        ),
        (
            "age_public_recipient",
            lambda: "age1" + s(58, "qpzry9x8gf2tvdw0s3jn54khce6mua7l"),
            [
                "backups are encrypted to recipient <<v>> (public; the identity is on the HSM box)",
            ],
        ),
        (
            "pgp_fingerprint",
            lambda: " ".join(s(4, HEX.upper()) for _ in range(10)),
            [
                "security@ ticket signed with key fingerprint <<v>>, verified against WKD",
            ],
        ),
        (
            "otp_used_and_expired",
            lambda: str(r.randint(100000, 999999)),
            [
                "user read their SMS code <<v>> to the agent on the call; it was already used and "
                "TOTP windows are 30s, nothing to rotate",
            ],
        ),
        (
            "masked_card_number",
            lambda: "4242 **** **** " + s(4, DIG),
            [
                "payment log: card <<v>> declined, do_not_honor",
            ],
        ),
        (
            "commit_sha_short_in_stack",
            lambda: s(12, HEX),
            [
                "stack frame: at handler (webpack:///src/api.ts?<<v>>:88:13)",
            ],
        ),
        (
            "mobile_device_token_invalid",
            lambda: s(64, HEX),
            [
                "APNs responded 410 Unregistered for device token <<v>> - app uninstalled, token "
                "deleted from our table",
            ],
        ),
        (
            "password_redacted_in_dsn",
            lambda: "postgresql://<<user>>:***@<<host>>:5432/orders",
            [
                "sqlalchemy logs the URL with the password hidden: create_engine(<<v>>) -> timeout",
            ],
        ),
        (
            "sha256_checksum_artifact",
            lambda: s(64, HEX),
            [
                "installer checksum mismatch: expected <<v>>, customer's download differs (proxy "
                "rewrote it)",
            ],
        ),
    ]

    extra_templates = {
        "smtp_auth_login_transcript": [
            "telnet to port 587 from the ticket:\nAUTH LOGIN\n334 VXNlcm5hbWU6\n<<eb64>>\n"
            "334 UGFzc3dvcmQ6\n<<v>>\n235 2.7.0 Accepted"
        ],
        "github_fine_grained_pat": [
            "renovate log: 'Authentication failure' using GITHUB_COM_TOKEN=<<v>> (fine-grained, "
            "expires next year)"
        ],
        "anthropic_api_key": [
            "worker crash: anthropic.AuthenticationError 401; Helm values show ANTHROPIC_API_KEY: <<v>>"
        ],
        "gcp_sa_json_private_key": [
            'customer\'s key.json (they asked why auth fails):\n{"type":"service_account",'
            '"project_id":"tsuru-prod","private_key_id":"<<kid>>","private_key":"<<v>>"}'
        ],
        "pypi_upload_token": ["their ~/.pypirc:\n[pypi]\nusername = __token__\npassword = <<v>>"],
        "django_secret_key_debug_page": [
            "Sentry 'Additional data' for the 500 included settings: SECRET_KEY='<<v>>' DEBUG=True"
        ],
        "azure_storage_connection_string": [
            'local.settings.json from the ticket: "AzureWebJobsStorage": "DefaultEndpointsProtocol='
            'https;AccountName=tsurulogs;AccountKey=<<v>>;EndpointSuffix=core.windows.net"'
        ],
        "azure_sas_token_url": [
            "azcopy log: INFO: Scanning... source https://tsurulogs.blob.core.windows.net/raw?sv="
            "2023-01-03&sp=racwdl&se=2027-12-31T23:59:59Z&sr=c&sig=<<v>>"
        ],
        "s3_presigned_url_live": [
            "browser console 403 on a presigned PUT (expires tomorrow): https://uploads.s3.eu-west-1."
            "amazonaws.com/avatars/88.png?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIA"
            "<<akid16>>%2F20261207%2Feu-west-1%2Fs3%2Faws4_request&X-Amz-Expires=86400&X-Amz-"
            "Signature=<<v>>"
        ],
        "password_reset_token_access_log": [
            "CloudFront log: <<ts>> FRA56 GET /reset-password token=<<v>> 200 (link valid 1h, user "
            "hasn't used it yet)"
        ],
        "magic_login_link": [
            'Mailgun event payload: "url": "https://app.kelpware.com/login/verify?code=<<v>>", '
            '"event": "clicked" - link is multi-use until tomorrow'
        ],
        "kubectl_verbose_bearer": [
            "customer's kubeconfig excerpt:\nusers:\n- name: ci\n  user:\n    token: <<v>>"
        ],
        "docker_config_auth": [
            'k8s imagePullSecret decoded from the ticket: {"auths":{"ghcr.io":{"auth":"<<v>>"}}}'
        ],
        "mailgun_api_key": [
            "customer's mail settings: MAILGUN_DOMAIN=mg.kelp.io MAILGUN_SECRET=<<v>>"
        ],
        "shopify_admin_token": [
            "curl -v to the Admin API:\n> X-Shopify-Access-Token: <<v>>\n< HTTP/2 401"
        ],
        "telegram_bot_token": [
            "grafana contact point for the ops chat: bottoken: <<v>> chatid: -100188"
        ],
        "discord_bot_token": ["bot .env pasted in the support forum: DISCORD_TOKEN=<<v>>"],
        "grafana_service_account_token": [
            "> GET /api/dashboards/uid/ops HTTP/1.1\n> Authorization: Bearer <<v>>\n< HTTP/1.1 403"
        ],
        "doppler_service_token": ["ci log: + doppler run --token <<v>> -- npm start"],
        "atlassian_api_token": [
            "confluence export script from the ticket: JIRA_USER=<<email>> JIRA_API_TOKEN=<<v>>"
        ],
        "newrelic_user_key": ['terraform.tfvars they pasted: newrelic_api_key = "<<v>>"'],
        "cloudflare_api_token_curl": [
            "wrangler debug log: [api] GET /accounts - headers {authorization: 'Bearer <<v>>'}"
        ],
        "oauth_refresh_token_response_body": [
            "mobile debug log: TokenStore.save(refresh=<<v>>, access_expires=3599)"
        ],
        "websocket_url_token": [
            'HAR entry: "url": "wss://live.brightfold.io/cable?auth=<<v>>", status 101'
        ],
        "basic_auth_url_console": [
            "uptime check config the customer shared: url: https://monitor:<<v>>@status.kelp.io/health"
        ],
        "php_session_live_ticket": [
            "chat transcript: 'here is my cookie, log in as me: laravel_session=<<v>>' (still valid)"
        ],
        "snmp_community_config": [
            "snmpwalk command the NOC runs: snmpwalk -v2c -c <<v>> <<ip>> 1.3.6.1.2.1.1"
        ],
        "smtp_transcript_redacted_auth": [
            "postfix debug (sasl masked by our log shipper): <<v>> -> 235 2.7.0 Authentication successful"
        ],
        "ftp_anonymous_login": ["ftp log: USER anonymous 331 / <<v>> 230 (public firmware mirror)"],
        "sri_integrity_hash": [
            '<script src="/app.js" integrity="<<v>>" crossorigin> fails after CDN minify'
        ],
        "idempotency_key": ["retry storm: Idempotency-Key <<v>> replayed 40 times by the SDK"],
        "k8s_pod_uid": ["kubectl events: pod uid <<v>> evicted (node pressure)"],
        "revoked_pat_stated": [
            "old CI token <<v>> from the 2025 incident - deleted in GitHub settings, returns 401 "
            "since <<ts>>; only here for the audit trail"
        ],
        "twilio_account_sid": [
            "error 20003 for account <<v>> - that's the SID, a public identifier"
        ],
        "recaptcha_site_key": [
            '<div class="g-recaptcha" data-sitekey="<<v>>"> renders blank in Safari'
        ],
        "mapbox_public_token": ["mapboxgl.accessToken = '<<v>>' (public pk token, URL-restricted)"],
        "oauth_state_param": [
            "CSRF check failed on callback: state=<<v>> doesn't match the session"
        ],
        "pkce_code_challenge": ["PKCE: code_challenge <<v>> rejected, method plain not allowed"],
        "ios_crash_binary_uuid": ["symbolication: UUID <<v>> not found in uploaded dSYMs"],
        "android_install_id": ["logcat: I/FirebaseInstallations: fid=<<v>> registered"],
        "pg_auth_failed_no_value": [
            'pgbouncer: server login failed: FATAL <<v>> for user "<<user>>"'
        ],
        "db_unique_violation_echo": [
            "IntegrityError: UNIQUE constraint failed, DETAIL: <<v>> exists"
        ],
        "webhook_signature_header": [
            "github delivery headers: X-GitHub-Delivery: <<rid>>, X-Hub-Signature-256: <<v>>"
        ],
        "stripe_signature_header": [
            "webhook 400: No signatures found matching the expected signature for payload; header was <<v>>"
        ],
        "dkim_signature": ["bounce headers (dkim=pass): ... s=google; b=<<v>>"],
        "smtp_queue_id": ["postfix/smtp[2231]: <<v>>: to=<<<email>>>, status=deferred"],
        "message_id_header": ["In-Reply-To: <<v>> - threading breaks in Outlook"],
        "tls_cert_fingerprint": ["cert pin mismatch on android: got <<v>>"],
        "public_key_pem": ["webhook verification key from the vendor's docs page:\n<<v>>"],
        "jwks_kid": ['jwt header {"alg":"RS256","kid":"<<v>>"} - key rotated yesterday'],
        "x_amzn_trace_id": ["X-Amzn-Trace-Id: <<v>>;Parent=" + "53995c3f42cd8ad8;Sampled=1"],
        "cf_ray_id": ["cf-ray: <<v>> / cf-cache-status: MISS / 524 timeout"],
        "s3_request_ids": ["S3 403 ids for AWS support: HostId=<<v>>"],
        "google_oauth_client_id": [
            "Error 401: invalid_client, client_id=<<v>> deleted from console"
        ],
        "ga_analytics_cookie": ["only cookie on the marketing site is _ga=<<v>>, no login there"],
        "pagination_cursor_base64": [
            "GET /v1/events?after=<<v>> returns 400 after the schema change"
        ],
        "password_policy_text": ["auth-svc config: password.<<v>> password.max_age_days=0"],
        "lexer_unexpected_token": ["jest: SyntaxError: <<v>> in node_modules/esm-only-pkg"],
        "docs_example_slack_token": ['docs snippet in their wiki: slack.token = "<<v>>"'],
        "rate_limit_headers": ["GitHub API: <<v>>, x-ratelimit-used: 5000"],
        "gravatar_md5": ["user hash for support lookup (md5 of email): <<v>>"],
        "cache_key": ["evicted <<v>> manually, stale prefs after migration"],
        "s3_multipart_upload_id": ["ListMultipartUploads shows UploadId <<v>> from 9 days ago"],
        "age_public_recipient": ["sops config: creation_rules: - age: <<v>>"],
        "pgp_fingerprint": ["release artifacts signed by <<v>> (public key on keys.openpgp.org)"],
        "otp_used_and_expired": ["login log: otp=<<v>> accepted at <<ts>>, consumed (single-use)"],
        "masked_card_number": ["Adyen notification: cardSummary <<v>> refused CVC"],
        "commit_sha_short_in_stack": ["sourcemap for release <<v>> missing in Sentry"],
        "mobile_device_token_invalid": ["FCM: NotRegistered for <<v>>, purged from devices table"],
        "password_redacted_in_dsn": ["prisma error: Can't reach database server at <<v>>"],
        "sha256_checksum_artifact": ["SHA256SUMS: <<v>>  agent-linux-amd64.tar.gz"],
    }
    for _kinds in (secret_kinds, benign_kinds):
        for _kind, _fn, _tpls in _kinds:
            _tpls.extend(extra_templates.get(_kind, []))

    wrappers = [
        "",
        "pasting for later - ",
        "note from tonight's page: ",
        "ticket thread, relevant bit:\n",
        "from #support-escalations: ",
        "(saved for the postmortem)\n",
        "what the customer sent, verbatim:\n",
        "oncall handoff: ",
    ]

    suffixes = [
        "",
        "\nnext step: reproduce on staging",
        "\n(ticket stays open until they confirm)",
        "\nlinked to the on-call timeline",
        "\n-- escalated to tier 2",
        "\nsame thing seen twice this week",
    ]

    def fill(tpl, v, extra):
        c = ctx()
        c.update(extra)
        c.setdefault("sid", s(32, HEX))
        c.setdefault("sid2", str(r.randint(10**17, 9 * 10**17)))
        c.setdefault("zone", s(32, HEX))
        c.setdefault("akid16", s(16, UP + "234567"))
        c.setdefault("at", s(40, URLSAFE))
        c.setdefault("rid16", s(16, UP + DIG))
        # fill placeholders inside the value first (some values embed <<user>>/<<host>>)
        v = re.sub(r"<<(\w+)>>", lambda m: c[m.group(1)], v)
        c["v"] = v
        return re.sub(r"<<(\w+)>>", lambda m: c[m.group(1)], tpl), v

    def wrap(text, k):
        # a memory stays within 8 lines: drop the suffix, then inline the prefix
        pre, suf = wrappers[1 + k % (len(wrappers) - 1)], suffixes[k % len(suffixes)]
        for cand in (pre + text + suf, pre + text, pre.replace("\n", " ") + text):
            if cand.count("\n") < 8:
                return cand
        return text

    rows = []
    widx = 0
    for kind, fn, tpls in secret_kinds:
        n = 3
        for i in range(n):
            v, extra = fn()
            text, v = fill(tpls[i % len(tpls)], v, extra)
            if i >= len(tpls):
                text = wrap(text, widx)
                widx += 1
            rows.append({"label": "secret", "kind": kind, "text": text, "value": v})
    for kind, fn, tpls in benign_kinds:
        n = 3
        for i in range(n):
            v = fn()
            text, v = fill(tpls[i % len(tpls)], v, {})
            if i >= len(tpls):
                text = wrap(text, widx)
                widx += 1
            rows.append({"label": "benign", "kind": kind, "text": text, "value": v})

    seen = set()
    for row in rows:
        assert row["value"] in row["text"], row
        assert row["text"] not in seen, row
        seen.add(row["text"])
    return rows


def main() -> None:
    rows = corpus()
    out = "\n".join(json.dumps(row, ensure_ascii=False) for row in rows) + "\n"
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w", encoding="utf-8") as fh:
            fh.write(out)
    else:
        sys.stdout.write(out)


if __name__ == "__main__":
    main()

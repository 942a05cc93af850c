"""Blind held-out corpus 11 for graphit's secret detector.

Memories as people dictate or paste them for their agents: terse notes, handover
lists, copied terminal sessions, transcribed screenshots, chat threads, forwarded
emails, tickets and corrections, in several languages. Each row is labelled
``secret`` (storing it would leak something that grants access to a real system)
or ``benign`` (a look-alike that grants nothing). Every value is generated here
from a fixed seed; none is a real credential.

Written blind on 2026-12-06: the author did not read the detector, its tests or
any earlier corpus. Token formats come from the author's own knowledge.

Run: ``python benchmarks/data/blind_secrets/blind_secrets_11.py [OUT.jsonl]`` (JSONL to stdout
without an argument), or import it and call ``corpus()``.

Kinds (91 secret, 83 benign), grouped:
  secret, code hosts and CI: github-pat github-fine-pat github-oauth github-app gitlab-pat
    npm-token pypi-token buildkite terraform-cloud pulumi git-url-token npmrc
    pip-index-token docker-auth docker-login
  secret, cloud: aws-keypair aws-session azure-storage gcp-sa-json do-token cloudflare-token
    heroku-key vault-token doppler databricks kubeconfig k8s-secret-yaml netlify
  secret, SaaS and AI APIs: stripe-live stripe-restricted stripe-webhook slack-bot slack-user
    slack-webhook openai anthropic google-api-key google-oauth-secret sendgrid twilio-token
    mailgun mailchimp shopify huggingface datadog linear notion airtable atlassian figma
    grafana postman newrelic discord-bot telegram-bot dropbox square braintree okta
    mapbox-secret supabase-service
  secret, keys: rsa-private openssh-private ec-private private-key-pkcs8 age-key
    wireguard-private eth-private-key crypto-seed totp-seed backup-codes
  secret, passwords and sessions: db-url jdbc db-password-note ssh-password basic-auth
    curl-user wifi-password gmail-app-password jwt-bearer session-cookie reset-link env-block
    multilang-password
  secret, by layout: handover-list correction chat-thread email-forward ticket
    terminal-session screenshot-transcript
  benign, identifiers and hashes: git-sha sha-short-mix image-digest request-uuid uuid-list
    ulid aws-arn cloud-ids azure-ids gcp-ids cloudflare-ids stripe-object-id slack-ids
    twilio-sid pod-names docker-ps git-log build-ids checksum sri-hash fingerprint key-ids
    order-numbers tracking serials s3-keys video-ids meeting-id base58-id random-ids
    eth-address btc-address hex-colors
  benign, public or non-granting material: aws-doc-example stripe-publishable mapbox-public
    google-client-id recaptcha-site analytics-id ssh-public-key certificate pgp-public
    wg-public age-public encrypted-blob csp-nonce base64-data test-card host-key-prompt
  benign, talk about secrets without one: placeholder env-reference redacted secret-ref
    secret-fetch-cmd masked-output env-code auth-header-var ci-secret-ref password-policy
    rotation-note revoked-no-value token-ttl-note handover-nosecret chat-nosecret
    email-nosecret ticket-nosecret correction-nosecret multilang-note otp-sms-note
    password-prompt-session ui-transcript ssh-command db-url-nopw open-wifi sample-hash
    jwt-explainer
  benign, other senses of the words: word-password nlp-tokens music-key regex
    key-value-config terminal-benign lorem
"""

import base64
import json
import random
import re
import sys

SEED = 118843
A = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
UP = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
HX = "0123456789abcdef"
B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
B32M = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
SUPA = '{"iss":"supabase","ref":"%s","role":"service_role","iat":1733000000,"exp":2048576000}'
WORDS = (
    "abandon ability able about above absent absorb abstract absurd abuse access "
    "accident account accuse achieve acid acoustic acquire across act action actor "
    "actress actual adapt add addict address adjust admit adult advance advice "
    "aerobic affair afford afraid again age agent agree ahead aim air airport"
)


def _s(r, alphabet, n):
    return "".join(r.choice(alphabet) for _ in range(n))


def _b64(data):
    return base64.b64encode(data.encode()).decode()


def _b64u(data):
    return base64.urlsafe_b64encode(data.encode()).decode().rstrip("=")


def _pw(r):
    style = r.randrange(3)
    if style == 0:
        return _s(r, A + "!#%&*-_=+?", r.randint(14, 22))
    if style == 1:
        w = r.sample(WORDS.split(), 3)
        return "-".join(w) + str(r.randint(10, 99))
    return r.choice(["Kx", "Vq", "Zu", "Pm"]) + _s(r, A, 9) + r.choice("!$%&") + _s(r, HX, 3)


def _pem(r, label, head, lines):
    body = [head + _s(r, A + "+/", 64 - len(head))]
    body += [_s(r, A + "+/", 64) for _ in range(lines)] + [_s(r, A + "+/", 20) + "=="]
    return f"-----BEGIN {label}-----\n" + "\n".join(body) + f"\n-----END {label}-----"


def _jwt(r, payload):
    head = _b64u('{"alg":"HS256","typ":"JWT"}')
    return f"{head}.{_b64u(payload)}.{_s(r, A + '-_', 43)}"


def _uuid(r):
    h = _s(r, HX, 32)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"


SIMPLE = """
ghp=ghp_{A36} gho=gho_{A36} ghs=ghs_{A36} ghfine=github_pat_11{U20}_{A59} glpat=glpat-{D20}
npm=npm_{A36} pypi=pypi-AgEIcHlwaS5vcmc{D140} bk=bkua_{H40} tfc={A14}.atlasv1.{A67}
pul=pul-{H40} akia=AKIA{K16} asia=ASIA{K16} awssec={P40} stok=IQoJb3JpZ2luX2VjE{P300}
azkey={P86}== dop=dop_v1_{H64} cf={D40} hvs=hvs.{A24} dpst=dp.st.prd.{A43} dapi=dapi{H32}
nfp=nfp_{A36} sklive=sk_live_51{A96} rklive=rk_live_51{A96} pklive=pk_live_51{A96}
whsec=whsec_{A32} xoxb=xoxb-{N12}-{N13}-{A24} xoxp=xoxp-{N12}-{N12}-{N13}-{H32}
hook=https://hooks.slack.com/services/T{U8}/B{U10}/{A24} ant=sk-ant-api03-{D93}AA
oai=sk-proj-{D74}T3BlbkFJ{D74} aiza=AIza{D35} gocspx=GOCSPX-{D28} sg=SG.{D22}.{D43}
mc={H32}-us1{N1} shpat=shpat_{H32} hf=hf_{L34} lin=lin_api_{A40} ntn=ntn_{N11}{A35}
pat=pat{A14}.{H64} atatt=ATATT3xFfGF0{D170}={U8} figd=figd_{D40} glsa=glsa_{A32}_{H8}
pmak=PMAK-{H24}-{H34} nrak=NRAK-{U27} dbx=sl.{D135} sq=EAAA{D60} okta=00{D40}
bt=access_token$production${M16}${H32} mbs=sk.eyJ1IjoiY{A60}.{D22} mbp=pk.eyJ1IjoiY{A60}.{D22}
age=AGE-SECRET-KEY-1{E58} agepub=age1{C58} wg={P42}{W1}= b32={B32} ethpk=0x{H64}
eth=0x{X40} btc=bc1q{C38} sess={A32} resettok={D43} fp=SHA256:{P43} sri=sha512-{P86}==
ssh=ssh-ed25519_AAAAC3NzaC1lZDI1NTE5AAAAI{P43} ulid=01J{R23} yt={D11} u6={U6} u9={U9}
u10={U10} u16={U16} b58={S44} gapp={L4}_{L4}_{L4}_{L4} tg={N10}:AA{D33}
"""
ALPHA = {
    "A": A,
    "D": A + "-_",
    "P": A + "+/",
    "U": UP,
    "H": HX,
    "N": "0123456789",
    "X": HX + "ABCDEF",
    "L": A[26:52],
    "M": HX + "ghijkmn",
    "K": B32,
    "B": B32,
    "E": B32M.upper(),
    "C": B32M,
    "S": B58,
    "W": "AEIMQUYcgkosw048",
    "R": "0123456789ABCDEFGHJKMNPQRSTVWXYZ",
}


def _simple(tmpl):
    def gen(r):
        sub = re.sub(r"\{(\w)(\d+)\}", lambda m: _s(r, ALPHA[m[1]], int(m[2])), tmpl)
        return sub.replace("_", " ") if tmpl.startswith(("ssh-", "{L4}")) else sub

    return gen


G = {k: _simple(v) for k, _, v in (w.partition("=") for w in SIMPLE.split())}
G.update(
    uuid=_uuid,
    pw=_pw,
    user=lambda r: r.choice(["admin", "deploy", "svc_etl", "root", "ops", "jmartin"]),
    basic=lambda r: _b64(r.choice(["admin", "ci-bot", "grafana"]) + ":" + _pw(r)),
    ksa=lambda r: _b64(_pw(r)),
    codes=lambda r: "  ".join(
        f"{r.randrange(10**4):04d}-{r.randrange(10**4):04d}" for _ in "123456"
    ),
    seed=lambda r: " ".join(r.choice(WORDS.split()) for _ in range(12)),
    dig=lambda r: str(r.randint(10**11, 10**12 - 1)),
    b64=lambda r: _b64(r.choice(['{"theme":"dark","lang":"de"}', "hello from the build box"])),
    host=lambda r: r.choice(["db-prod-01.int", "10.20.4.17", "pg.eu-west-1.rds.amazonaws.com"]),
    discord=lambda r: _b64u(str(r.randint(10**17, 10**18))) + "." + _simple("{D6}.{D38}")(r),
    jwt=lambda r: _jwt(r, f'{{"sub":"{r.randint(1000, 99999)}","exp":1896000000}}'),
    supa=lambda r: _jwt(r, SUPA % _s(r, "abcdefghijklmnopqrst", 20)),
    rsa=lambda r: _pem(r, "RSA PRIVATE KEY", "MIIEowIBAAKCAQEA", 22),
    ossh=lambda r: _pem(r, "OPENSSH PRIVATE KEY", "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ", 5),
    ec=lambda r: _pem(r, "EC PRIVATE KEY", "MHcCAQEEI", 2),
    pk8=lambda r: _pem(r, "PRIVATE KEY", "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC", 24),
    cert=lambda r: _pem(r, "CERTIFICATE", "MIIDdzCCAl+gAwIBAgIE", 18),
    pgp=lambda r: _pem(r, "PGP PUBLIC KEY BLOCK", "mDMEZ", 6),
)

# Row format: "<S|B> <kind> | text ␞ text ..."; \n in a text is a newline; «x» a value.
DATA = r"""
S github-pat | new gh token for the release bot -> «ghp» ␞ ok so I regenerated it, use «ghp» not the one from monday ␞ $ gh auth login --with-token <<< «ghp»\n✓ Logged in to github.com as relbot
S github-fine-pat | fine-grained PAT (repo: infra, read/write contents, expires 2027-03): «ghfine» ␞ GITHUB_TOKEN=«ghfine» für den Mirror-Job
S github-oauth | oauth token from the app flow, stash it: «gho» ␞ token del usuario para pruebas en prod: «gho»
S github-app | installation token (valid 1h, but still) «ghs» ␞ curl -H 'Authorization: token «ghs»' https://api.github.com/repos/acme/infra/hooks
S gitlab-pat | gitlab PAT (api scope) = «glpat» ␞ GL token for the runner registration: «glpat» -- don't paste in slack pls ␞ glab auth login --token «glpat» --hostname gitlab.acme.io
S npm-token | npm publish token «npm» ␞ * npm automation token: «npm»\n* owner: @frontend ␞ NPM_TOKEN=«npm» (granular, publish for @acme/*)
S pypi-token | pypi upload token (project scope, graphit-extras): «pypi» ␞ twine upload -u __token__ -p «pypi» dist/*
S buildkite | buildkite api token «bk» (read_builds, write_builds)
S terraform-cloud | TFC team token → «tfc» ␞ credentials "app.terraform.io" { token = "«tfc»" }
S pulumi | PULUMI_ACCESS_TOKEN «pul»
S git-url-token | git remote set-url origin https://x-access-token:«ghp»@github.com/acme/payments.git ␞ clone with https://oauth2:«glpat»@gitlab.acme.io/data/etl.git
S npmrc | .npmrc on the build box:\n//registry.npmjs.org/:_authToken=«npm»\nalways-auth=true ␞ @acme:registry=https://npm.pkg.github.com\n//npm.pkg.github.com/:_authToken=«ghp»
S pip-index-token | pip.conf: index-url = https://__token__:«glpat»@gitlab.acme.io/api/v4/projects/42/packages/pypi/simple
S docker-auth | ~/.docker/config.json\n{"auths": {"registry.acme.io": {"auth": "«basic»"}}} ␞ regcred dockerconfigjson auth field = «basic»
S docker-login | echo '«pw»' | docker login registry.acme.io -u deploy --password-stdin ␞ docker login -u acmeci -p «pw» harbor.int.acme.io
S aws-keypair | AWS prod (billing acct)\naccess key: «akia»\nsecret: «awssec» ␞ [default]\naws_access_key_id = «akia»\naws_secret_access_key = «awssec»\nregion = eu-central-1 ␞ new IAM user ci-deployer: «akia» / «awssec»
S aws-session | export AWS_ACCESS_KEY_ID=«asia»\nexport AWS_SECRET_ACCESS_KEY=«awssec»\nexport AWS_SESSION_TOKEN=«stok»
S azure-storage | DefaultEndpointsProtocol=https;AccountName=acmelogs;AccountKey=«azkey»;EndpointSuffix=core.windows.net ␞ storage key1 for acmebackups: «azkey»
S gcp-sa-json | {"type": "service_account", "project_id": "acme-prod", "private_key_id": "«h40»", "private_key": "«pk8»", "client_email": "etl@acme-prod.iam.gserviceaccount.com"}
S do-token | DO token for terraform: «dop» ␞ doctl auth init -t «dop»
S cloudflare-token | CF API token (zone:dns edit) «cf» ␞ cloudflare token → «cf» (the one w/ DNS edit, not the read-only one)
S heroku-key | HEROKU_API_KEY=«uuid» ␞ heroku api key (from account settings): «uuid»
S vault-token | VAULT_TOKEN=«hvs» vault kv get secret/prod/db ␞ root token after unseal: «hvs»  (revoke after setup!!)
S doppler | doppler service token for prd config: «dpst»
S databricks | databricks PAT «dapi» host adb-123456.7.azuredatabricks.net
S kubeconfig | users:\n- name: ci\n  user:\n    token: «jwt» ␞ kubectl --server https://k8s.acme.io --token=«jwt» get pods
S k8s-secret-yaml | apiVersion: v1\nkind: Secret\nmetadata: {name: db-creds}\ndata:\n  username: YWRtaW4=\n  password: «ksa»
S netlify | netlify personal token «nfp»
S stripe-live | stripe live key «sklive» ␞ new stripe key -> «sklive» ␞ STRIPE_SECRET_KEY=«sklive»
S stripe-restricted | restricted key for the reporting job (read charges only): «rklive»
S stripe-webhook | webhook signing secret (endpoint /hooks/stripe): «whsec» ␞ STRIPE_WEBHOOK_SECRET = «whsec»
S slack-bot | slack bot token: «xoxb» ␞ [screenshot: OAuth & Permissions]\nBot User OAuth Token\n«xoxb»\n[Copy]
S slack-user | user token (needs admin scope) «xoxp»
S slack-webhook | alerts webhook: «hook» ␞ curl -X POST -d '{"text":"deploy ok"}' «hook» ␞ SLACK_WEBHOOK_URL: «hook»
S openai | OPENAI_API_KEY=«oai» ␞ openai key for the eval harness «oai» ␞ openai key got rotated, the new one: «oai»
S anthropic | anthropic key (team acct): «ant» ␞ ANTHROPIC_API_KEY='«ant»' ␞ [chat] mike: use my key for now → «ant»\n[chat] ana: ok
S google-api-key | maps api key (server, unrestricted!) «aiza» ␞ Gemini key: «aiza»
S google-oauth-secret | OAuth client: 8812345-abc.apps.googleusercontent.com\nclient secret: «gocspx»
S sendgrid | sendgrid: «sg» ␞ SENDGRID_API_KEY=«sg» ␞ sendgrid key for transactional mail (full access): «sg»
S twilio-token | twilio SID AC«h32» auth token «h32#2» ␞ Twilio auth token → «h32»
S mailgun | mailgun api key: key-«h32»
S mailchimp | mailchimp API key «mc»
S shopify | shopify admin token for the store app «shpat»
S huggingface | HF token (write) «hf» ␞ huggingface-cli login --token «hf» ␞ HF_TOKEN=«hf» python push_model.py
S datadog | DD_API_KEY=«h32»\nDD_APP_KEY=«h40» ␞ datadog api key «h32» (org: acme-eu)
S linear | linear api key «lin»
S notion | notion integration secret: «ntn»
S airtable | airtable PAT «pat»
S atlassian | jira api token for svc-jira@acme.io: «atatt»
S figma | figma token «figd»
S grafana | grafana service account token «glsa»
S postman | postman api key «pmak»
S newrelic | New Relic user key «nrak»
S discord-bot | discord bot token «discord» ␞ DISCORD_TOKEN=«discord»
S telegram-bot | tg bot (@acme_alerts_bot) token «tg» ␞ https://api.telegram.org/bot«tg»/sendMessage?chat_id=-1001234567 ␞ бот для алертов, токен: «tg»
S dropbox | dropbox access token sl... whole thing: «dbx»
S square | square prod access token «sq»
S braintree | braintree token: «bt»
S okta | okta api token (SSWS) «okta» ␞ Authorization: SSWS «okta»
S mapbox-secret | mapbox secret token (downloads:read) «mbs»
S supabase-service | supabase service_role key (bypasses RLS!): «supa»
S rsa-private | deploy key:\n«rsa» ␞ here's the key for the old bastion\n\n«rsa»
S openssh-private | id_ed25519 for the backup box\n«ossh»
S ec-private | apple push key (p8)? no this one is the EC one:\n«ec»
S age-key | sops age key: «age» ␞ # created: 2026-11-02\n# public key: «agepub»\n«age»
S wireguard-private | [Interface]\nPrivateKey = «wg»\nAddress = 10.8.0.2/24
S db-url | DATABASE_URL=postgres://app:«pw»@«host»:5432/app_prod ␞ mongo: mongodb+srv://reporting:«pw»@cluster0.x7k2p.mongodb.net/?retryWrites=true ␞ redis://:«pw»@cache-1.int:6379/0
S jdbc | jdbc:sqlserver://sql01.corp:1433;databaseName=ERP;user=erp_ro;password=«pw»;
S db-password-note | prod db pw: «pw» ␞ postgres superuser password is «pw» (changed tuesday) ␞ mysql -u root -p'«pw»' -h «host»
S ssh-password | ssh in with «user» / «pw» on «host» ␞ bastion: ssh ops@«host»\npw «pw»\nthen sudo, same pw
S basic-auth | Authorization: Basic «basic» ␞ staging basic auth header «basic» ␞ curl -H 'Authorization: Basic «basic»' https://registry.int/v2/_catalog
S curl-user | curl -u admin:«pw» https://jenkins.acme.io/api/json ␞ $ curl -s -u "ci-bot:«pw»" https://nexus.int/service/rest/v1/repositories
S wifi-password | office wifi: AcmeStaff / «pw» ␞ WLAN Büro: SSID „Acme-5G“, Passwort: «pw»
S gmail-app-password | gmail app password for the smtp relay: «gapp» ␞ smtp: user alerts@acme.io, app pw «gapp» (16 letters, spaces optional)
S backup-codes | 2FA backup codes for the shared admin acct:\n«codes»
S totp-seed | otpauth://totp/Acme:ops@acme.io?secret=«b32»&issuer=Acme ␞ MFA seed for root account (enter manually): «b32»
S crypto-seed | treasury wallet seed: «seed» ␞ recovery phrase (12 words): «seed»
S eth-private-key | hot wallet private key «ethpk»
S jwt-bearer | Bearer «jwt» ␞ this token still works for the admin API until 2030: «jwt»
S session-cookie | copied cookie so the agent can scrape the dashboard: sessionid=«sess»; csrftoken=«sess#2»
S reset-link | password reset link for the shared admin (valid 24h): https://app.acme.io/reset?token=«resettok»
S env-block | .env\nAPP_ENV=production\nSECRET_KEY=«sess»«sess#2»\nDB_PASSWORD=«pw»
S handover-list | Handover, accounts:\n| system | user | pass |\n|---|---|---|\n| Jenkins | admin | «pw» |\n| Grafana | admin | «pw#2» |\n| Router | root | «pw#3» | ␞ handover from Sam:\n- AWS root: sam@acme.io / «pw»\n- Registrar: acme-dns / «pw#2»\n- NAS admin pw «pw#3»
S correction | no, use the other token: «ghp» ␞ correction: the stripe key in the last note was test mode, live one is «sklive» ␞ wait, the pw has a typo, it's «pw» (capital first letter)
S chat-thread | [10:42] dana: what's the grafana admin pw?\n[10:43] raj: «pw»\n[10:43] dana: thx ␞ > Lena: can you DM me the sendgrid key?\n> Tom: «sg»
S email-forward | ---------- Forwarded message ---------\nFrom: IT Helpdesk <it@acme.io>\nSubject: Your VPN account\n\nUsername: jmartin\nTemporary password: «pw»\nPlease change it at first login. ␞ Begin forwarded message:\n> From: vendor-support@sftp.example\n> Your API credentials:\n> Client ID: acme-prod\n> Client Secret: «sess»«sess#2»
S ticket | OPS-4412: rotate SFTP creds for vendor\nNew creds: sftp-vendor / «pw»\nStatus: Done ␞ INC-883 resolved. Root cause: expired token. Replaced with «glpat» in the runner config.
S multilang-password | mot de passe du serveur de prod : «pw» ␞ contraseña del admin de WordPress: «pw» ␞ 本番DBのパスワード：«pw»
S terminal-session | $ export OPENAI_API_KEY=«oai»\n$ python eval.py --model gpt-4o\nloading 120 tasks...\n ␞ ubuntu@ip-10-0-1-5:~$ cat .pgpass\n«host»:5432:*:app:«pw»
S screenshot-transcript | [screenshot of AWS console, "Retrieve access keys"]\nAccess key ID: «akia»\nSecret access key: «awssec»\n[Download .csv file]
S private-key-pkcs8 | tls key for api.acme.io (cert is in the other note)\n«pk8»
B git-sha | deployed «h40» to prod at 14:02 ␞ revert commit «h40», it broke the login page ␞ bisect says first bad commit is «h12»
B image-digest | pinned image: ghcr.io/acme/api@sha256:«h64» ␞ digest sha256:«h64» matches what's in the registry ␞ FROM python:3.12-slim@sha256:«h64»
B request-uuid | support ticket mentions request id «uuid», failing with 502 ␞ trace id «h32» in honeycomb, slow span is the DB call ␞ idempotency key we sent: «uuid»
B aws-arn | role to assume: arn:aws:iam::«dig»:role/ci-deployer ␞ AWS account id «dig» (prod), «dig#2» (staging) ␞ KMS key arn:aws:kms:eu-west-1:«dig»:key/«uuid»
B aws-doc-example | the AWS docs use AKIAIOSFODNN7EXAMPLE / wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY as example keys, the test should reject those ␞ localstack accepts any key, we use test/test ␞ example creds from the boto3 docs (not real): AKIAIOSFODNN7EXAMPLE
B stripe-publishable | stripe publishable key for checkout.js (public, fine in frontend): «pklive» ␞ NEXT_PUBLIC_STRIPE_KEY=«pklive» ␞ pk = «pklive» goes in the checkout page, the sk stays server side
B stripe-object-id | refund failed for ch_«h24», customer cus_«h12» ␞ webhook event evt_«h24» arrived twice ␞ payment intent pi_«h24» stuck in requires_action
B mapbox-public | mapbox public token for the web map: «mbp» ␞ MAPBOX_PUBLIC_TOKEN (url-restricted to acme.io) «mbp»
B google-client-id | google sign-in client id: «dig»-«h32».apps.googleusercontent.com ␞ GOOGLE_CLIENT_ID=«dig»-«h32».apps.googleusercontent.com (secret in vault)
B twilio-sid | twilio account SID is AC«h32» (the token is in vault, not here) ␞ messaging service MG«h32» ␞ verify service sid VA«h32»
B slack-ids | post alerts to channel C0«h12» ␞ slack user id of the on-call bot: U0«h12» ␞ workspace T«u10», bot id B«u10»
B placeholder | set STRIPE_SECRET_KEY=sk_live_xxxxxxxxxxxxxxxxxxxx in prod (real value in vault) ␞ token format: ghp_<36 chars>, paste yours into ~/.config/gh ␞ api_key: "<YOUR_API_KEY_HERE>" in the sample config
B env-reference | docker run -e DB_PASSWORD=$DB_PASSWORD -e API_TOKEN="${API_TOKEN}" acme/api ␞ password: ${{ secrets.PROD_DB_PASSWORD }} ␞ export GH_TOKEN=$(gh auth token)
B redacted | the leaked key was sk-proj-****...****Xb3Q, already revoked by openai ␞ token ghp_************************************ shows in logs, masking works ␞ password: [REDACTED]
B secret-ref | db password lives at op://Infra/prod-postgres/password ␞ vault path secret/data/prod/stripe, key `api_key` ␞ arn:aws:secretsmanager:eu-west-1:«dig»:secret:prod/db-AbC123
B password-policy | pw policy: min 14 chars, no reuse of last 5, rotate every 90d ␞ reminder: passwords must not contain the username ␞ Passwortrichtlinie: mind. 12 Zeichen, Sonderzeichen Pflicht
B rotation-note | rotated the sendgrid key today, new one is in 1Password (Ops vault) ␞ revoked the old GitLab PAT, nothing else to do ␞ ask Priya for the prod db password, she has it
B ssh-public-key | add this to authorized_keys on the build box: «ssh» dana@laptop ␞ my pubkey «ssh» jm@work ␞ cat ~/.ssh/id_ed25519.pub\n«ssh» ops@bastion
B certificate | intermediate cert for the LB (public):\n«cert» ␞ CA bundle we trust:\n«cert» ␞ $ openssl s_client -connect api.acme.io:443 -showcerts\n...\n«cert»
B pgp-public | my public key, import it:\n«pgp» ␞ Öffentlicher Schlüssel für verschlüsselte Mails:\n«pgp»
B fingerprint | host key fingerprint should be «fp» ␞ ED25519 key fingerprint is «fp». ␞ fingerprint of the deploy key on github: «fp»
B checksum | sha256sum release.tar.gz → «h64» ␞ md5 of the dump: «h32» matches upstream ␞ sha1 of the installer «h40», verified against the vendor page
B sri-hash | "integrity": "«sri»" ␞ <script src="/app.js" integrity="«sri»" crossorigin> ␞ package-lock says integrity «sri» for lodash
B csp-nonce | CSP header: script-src 'nonce-«sess»' 'strict-dynamic' (nonce changes per request) ␞ nonce in the html was «sess», differs every load as expected
B cloudflare-ids | CF zone id «h32», account id «h32#2» ␞ cloudflare ray id «h12»-FRA
B analytics-id | GA4 measurement id G-«u10» ␞ GTM container GTM-K7QX2PL
B recaptcha-site | recaptcha site key (public, in the html) 6Lc«sess» ␞ sitekey for hCaptcha: «uuid» (the secret stays on the backend)
B eth-address | send the refund to «eth» ␞ contract deployed at «eth», tx 0x«h64» ␞ whitelist the multisig «eth»
B btc-address | donation address «btc» ␞ cold storage receive address «btc» (watch-only)
B pod-names | crashlooping: api-7f9c«h6»-x2kq8 and worker-5d8«h6#2»-p9zzt ␞ container «h12» exited 137 ␞ kubectl logs deploy/api-«h10»-«u5»
B base64-data | config blob (base64, just theme prefs): «b64» ␞ echo «b64» | base64 -d ␞ data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==
B secret-fetch-cmd | export DB_PASSWORD=$(vault kv get -field=password secret/prod/db) ␞ aws secretsmanager get-secret-value --secret-id prod/stripe --query SecretString ␞ kubectl get secret db-creds -o jsonpath='{.data.password}' | base64 -d
B masked-output | $ gh auth status\ngithub.com\n  ✓ Logged in to github.com account relbot\n  - Token: gho_************************************\n  - Token scopes: 'repo', 'workflow' ␞ $ heroku auth:token\n›   Warning: token hidden, use --reveal ␞ $ aws configure list\n      Name                    Value             Type    Location\naccess_key     ****************7Q2B shared-credentials-file\nsecret_key     ****************k9Zp shared-credentials-file
B jwt-explainer | a JWT is header.payload.signature, base64url; header is usually {"alg":"HS256","typ":"JWT"} ␞ decoded payload of the failing token: {"sub":"4411","exp":1733000000} -> expired yesterday ␞ header of the broken token decodes to {"alg":"RS256","kid":"«h12»"}, signature missing
B order-numbers | order #A7-«dig» never shipped ␞ invoice INV-2026-«dig» is overdue ␞ Bestellnummer 302-«dig»-«dig#2»
B tracking | DHL tracking JJD«dig»«dig#2» ␞ UPS 1Z«u16»
B serials | laptop serial C02«u9» ␞ license server host id «h12»
B s3-keys | raw files at s3://acme-raw/2026/12/06/«uuid».parquet ␞ object key uploads/«h32»/avatar.png
B video-ids | the demo video is youtu.be/«yt» ␞ loom link id «h32»
B open-wifi | guest wifi "Acme-Guest" is open, no password, captive portal only ␞ Gäste-WLAN hat kein Passwort ␞ wifi at the conference: 'Venue-Free', no pass
B test-card | stripe test card 4242 4242 4242 4242, any future date, any CVC ␞ use 4000 0000 0000 9995 to simulate insufficient funds ␞ adyen test card 4111 1111 4555 1142, cvc 737, exp 03/30
B ulid | job id «ulid» stuck in queued ␞ event ids «ulid», «ulid#2» ␞ msg id «ulid» in the outbox table
B build-ids | build 2026.12.06-«h12» failed on arm64 ␞ GitHub Actions run «dig» — flaky test again
B regex | gitleaks-ish rule for our internal tokens: acme_[a-z0-9]{32} ␞ regex for AWS keys: (AKIA|ASIA)[A-Z2-7]{16} ␞ [rules.acme]\nregex = '''acme_live_[0-9a-f]{40}'''
B ui-transcript | [screenshot: login form]\nEmail: ____\nPassword: ••••••••\n[Forgot password?] ␞ [screenshot: API keys page]\nName: ci-bot   Created: 2026-10-02   Last used: never   [Revoke] ␞ [screenshot: 2FA setup]\nScan the QR code with your authenticator app\n[QR image]\nCan't scan? Show key
B env-code | api_key = os.environ["OPENAI_API_KEY"] ␞ const token = process.env.GITHUB_TOKEN ?? "" ␞ password = getpass.getpass("DB password: ")
B key-ids | GPG key id 0x«h16» ␞ JWKS kid "«h12»" rotated monthly ␞ KMS key id «uuid»
B auth-header-var | curl -H "Authorization: Bearer $TOKEN" https://api.acme.io/v1/me ␞ -H 'X-API-Key: {{api_key}}' in the postman collection ␞ requests.get(url, headers={"Authorization": f"Bearer {token}"})
B git-log | $ git log --oneline -3\n«h7» fix login redirect\n«h7#2» bump deps\n«h7#3» add token refresh ␞ $ git rev-parse HEAD\n«h40»
B docker-ps | CONTAINER ID   IMAGE       STATUS\n«h12»   acme/api    Up 3 hours\n«h12#2»   redis:7     Up 3 hours ␞ $ docker images\nREPOSITORY   TAG     IMAGE ID\nacme/api     3.2.1   «h12»
B meeting-id | standup zoom meeting id 812 3391 4402 (passcode in the calendar invite) ␞ teams meeting link in the invite, id «dig» ␞ Webex meeting number 2641 889 013, host joins first
B multilang-note | la clé API de Stripe est dans le coffre 1Password, pas ici ␞ el token de GitHub caduca el viernes, hay que renovarlo ␞ パスワードは金庫に保管しています、メモには書かない
B revoked-no-value | the slack webhook got leaked in a gist, revoked and regenerated, new url in vault ␞ token expired → 401 from the API, need a new one from Ana
B host-key-prompt | The authenticity of host 'bastion (10.0.0.4)' can't be established.\nED25519 key fingerprint is «fp».\nAre you sure you want to continue connecting (yes/no)? ␞ Warning: Permanently added '«host»' (ED25519) to the list of known hosts.
B cloud-ids | instance i-0«h16» in subnet subnet-0«h16#2» and sg-0«h16#3» ␞ vpc-0«h12», AMI ami-0«h12»
B azure-ids | tenant id «uuid», subscription «uuid#2» ␞ app registration client id «uuid» (secret is in keyvault)
B gcp-ids | project acme-prod-391204, number «dig» ␞ service account etl@acme-prod.iam.gserviceaccount.com (no key created, uses workload identity)
B ci-secret-ref | env:\n  NPM_TOKEN: ${{ secrets.NPM_TOKEN }}\n  AWS_ROLE: arn:aws:iam::«dig»:role/gha ␞ CircleCI context `prod-secrets` holds the keys
B nlp-tokens | tokenizer produced 8192 tokens, truncated at 4096 ␞ token ids [«dig», 1012, 2043] decode to "password reset"
B music-key | song is in the key of F# minor, capo 2 ␞ keyboard shortcut: key Ctrl+Shift+K opens the token picker
B wg-public | peer public key: «wg» (the private key stays on the laptop) ␞ [Peer]\nPublicKey = «wg»\nAllowedIPs = 10.8.0.0/24
B age-public | encrypt to my age recipient «agepub» ␞ recipients.txt:\n«agepub»\n«agepub#2»
B encrypted-blob | sops-encrypted value: ENC[AES256_GCM,data:«sess»,iv:«sess#2»,tag:«sess#3»,type:str] ␞ $ANSIBLE_VAULT;1.1;AES256\n«h64»\n«h64#2»
B word-password | "password" in the spec means the user's login, not an API credential ␞ the form field is called passwd for legacy reasons ␞ Password manager decision: we go with Bitwarden, not 1Password
B hex-colors | brand colors #1a73e8, #fbbc04, token name `color.primary` ␞ design token --space-4: 16px ␞ --accent: #«h6»; --muted: #«h6#2»
B uuid-list | user ids to delete: «uuid», «uuid#2», «uuid#3» ␞ feature flag id «uuid»
B sha-short-mix | cherry-pick «h9» onto release-3.2 ␞ tag v3.2.1 points at «h40»
B ssh-command | ssh -i ~/.ssh/id_ed25519 deploy@«host» (key is on my laptop only) ␞ scp -P 2222 dump.sql ops@«host»:/tmp
B db-url-nopw | DATABASE_URL=postgres://app@«host»:5432/app_prod (auth via IAM) ␞ psql "host=«host» dbname=app user=readonly sslmode=require"
B password-prompt-session | $ sudo apt upgrade\n[sudo] password for jm: \n0 upgraded, 0 newly installed ␞ $ mysql -u root -p\nEnter password: \nERROR 1045 (28000): Access denied
B token-ttl-note | session tokens expire after 15 min, refresh tokens after 30 days ␞ PAT max lifetime is 90 days per org policy
B handover-nosecret | handover list:\n- Jenkins: admin account, pw in 1Password\n- Grafana: SSO via Google\n- Router: ask Marco ␞ | system | owner | creds |\n|---|---|---|\n| AWS | Sam | SSO |\n| DNS | Priya | vault |
B chat-nosecret | [11:02] raj: got the new key?\n[11:03] dana: yes, put it in vault under prod/openai\n[11:03] raj: 👍 ␞ > can you send me the password?\n> no, request access in 1Password
B email-nosecret | ---------- Forwarded message ---------\nFrom: IT Helpdesk\nSubject: Password expiry\n\nYour password expires in 7 days. Change it at https://id.acme.io/change ␞ Fwd: Reset your password\n\nSomeone asked to reset the password for jm@acme.io. If it was you, use the link in the original mail (expired already).
B ticket-nosecret | SEC-211: API key leaked in CI logs. Action: revoked, rotated, added masking. Closed. ␞ OPS-4413: SFTP creds for vendor rotated, shared via one-time link
B correction-nosecret | correction: the token lives in the `ci` vault, not `prod` ␞ no wait, the API key header is X-Api-Key, not Authorization
B random-ids | shortlink code aZ9kQ2 ␞ coupon WINTER-«u6» gives 10% off ␞ captcha seed «h32» for the load test
B sample-hash | bcrypt cost factor 12 is fine; argon2id for new stuff ␞ salt length: 16 bytes, stored next to the hash
B otp-sms-note | SMS code arrives from +49 176 ... shortcode, ask the on-call phone holder ␞ 2FA is TOTP via Authy, backup codes in the safe
B base58-id | IPFS CID Qm«b58» ␞ solana tx sig 5«b58»«b58#2»
B key-value-config | timeout -> 30s\nretries -> 5\nkey_prefix -> acme:\ntoken_bucket -> 100/min ␞ cache key: user:«uuid»:profile
B terminal-benign | $ openssl rand -hex 4\n«h8»\n$ echo done ␞ $ uuidgen\n«uuid»
B lorem | lorem ipsum dolor sit amet, «h32» is just a fixture id ␞ fixture user: alice@example.com, password field empty on purpose ␞ sample row: {"id": "«uuid»", "token_count": 512}
"""  # noqa: E501


def corpus() -> list[dict]:
    r = random.Random(SEED)
    rows = []
    for line in DATA.strip().splitlines():
        head, _, body = line.partition(" | ")
        label, kind = head.split(" ", 1)
        for tmpl in body.split(" ␞ "):
            cache = {}

            def fill(m, cache=cache):  # «h32» hex, «pw#2» a second pw, «h40:7» cut
                key, cut = m.group(1), m.group(2)
                if key not in cache:
                    base = key.split("#")[0]
                    hexn = base[1:] if base not in G else ""
                    cache[key] = _s(r, HX, int(hexn)) if hexn else G[base](r)
                return cache[key][: int(cut)] if cut else cache[key]

            text = re.sub(r"«([\w#]+)(?::(\d+))?»", fill, tmpl.replace("\\n", "\n"))
            rows.append(
                {"label": "secret" if label == "S" else "benign", "kind": kind, "text": text}
            )
    return rows


def main() -> None:
    out = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in corpus())
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w", encoding="utf-8") as fh:
            fh.write(out)
    else:
        sys.stdout.write(out)


if __name__ == "__main__":
    main()

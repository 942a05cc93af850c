# ruff: noqa: E501  (a table of templates: one line each reads better)
"""Two corpora of memory texts for the secret detector: real-format FAKE secrets of many kinds,
and the look-alikes a memory is full of. Every value is generated at random here; none is a
real credential.

`corpus("main")` is the corpus the rules were written against; `corpus("heldout")` is built by
other templates, other phrasings and another seed, to check that the rules generalise. Each
record is `(label, kind, text)` with label "secret" or "benign".

Run on its own to write them as JSONL: `python benchmarks/secrets_corpus.py OUT_DIR`.
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
import string
import sys
import uuid
from collections.abc import Callable
from pathlib import Path

Record = tuple[str, str, str]
UP = string.ascii_uppercase
LOW = string.ascii_lowercase
DIG = string.digits
ALNUM = UP + LOW + DIG
B32 = UP + "234567"
HEX = "0123456789abcdef"
CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


class Gen:
    def __init__(self, seed: int) -> None:
        self.r = random.Random(seed)

    def s(self, alphabet: str, n: int) -> str:
        return "".join(self.r.choice(alphabet) for _ in range(n))

    def pick(self, options: list[str]) -> str:
        return self.r.choice(options)

    def password(self) -> str:
        words = ["Tr0ub4dor", "Summer", "Winter", "Blue", "Falcon", "Orbit", "Maple", "Quartz"]
        sym = "!#%^&*_-+"
        kind = self.r.randrange(4)
        if kind == 0:
            return self.pick(words) + self.s(DIG, 3) + self.s(sym, 1)
        if kind == 1:
            return self.s(ALNUM + sym, self.r.randint(10, 24))
        if kind == 2:
            return self.s(LOW, 5) + self.s(DIG, 2) + self.s(UP, 2) + self.s(sym, 1)
        return self.s(ALNUM, self.r.randint(16, 32))

    def aws_pair(self) -> tuple[str, str]:
        return ("AKIA" + self.s(B32, 16), self.s(ALNUM + "/+", 40))

    def jwt(self) -> str:
        def seg(obj: dict[str, object]) -> str:
            raw = json.dumps(obj).encode()
            return base64.urlsafe_b64encode(raw).decode().rstrip("=")

        head = seg({"alg": "HS256", "typ": "JWT"})
        body = seg({"sub": self.s(DIG, 8), "name": self.s(LOW, 6), "iat": 1700000000})
        return f"{head}.{body}.{self.s(ALNUM + '-_', 43)}"

    def private_key(self, kind: str) -> str:
        lines = [self.s(ALNUM + "+/", 64) for _ in range(self.r.randint(3, 8))]
        return (
            f"-----BEGIN {kind}PRIVATE KEY-----\n"
            + "\n".join(lines)
            + (f"\n-----END {kind}PRIVATE KEY-----")
        )


# --- the secrets, by kind ----------------------------------------------------------------------


def _secrets_main(g: Gen) -> list[tuple[str, Callable[[], str]]]:
    def aws() -> str:
        key, secret = g.aws_pair()
        return g.pick(
            [
                f"Deploy creds for staging:\naws_access_key_id = {key}\n"
                f"aws_secret_access_key = {secret}",
                f"export AWS_ACCESS_KEY_ID={key}\nexport AWS_SECRET_ACCESS_KEY={secret}",
                f"The CI user is {key} (secret {secret}).",
            ]
        )

    def aws_secret_only() -> str:
        return f"AWS_SECRET_ACCESS_KEY={g.aws_pair()[1]}"

    return [
        ("aws-key-pair", aws),
        ("aws-secret", aws_secret_only),
        ("github-ghp", lambda: f"Use this token for the API: ghp_{g.s(ALNUM, 36)}"),
        ("github-pat", lambda: f"GITHUB_TOKEN=github_pat_{g.s(ALNUM, 22)}_{g.s(ALNUM, 59)}"),
        ("github-app", lambda: f"installation token ghs_{g.s(ALNUM, 36)} expires hourly"),
        ("gitlab", lambda: f"CI pushes with glpat-{g.s(ALNUM + '_-', 20)} to the mirror."),
        (
            "slack-bot",
            lambda: f"SLACK_BOT_TOKEN=xoxb-{g.s(DIG, 12)}-{g.s(DIG, 13)}-{g.s(ALNUM, 24)}",
        ),
        (
            "slack-webhook",
            lambda: (
                "Alerts go to https://hooks.slack.com/services/T"
                + g.s(UP + DIG, 8)
                + "/B"
                + g.s(UP + DIG, 10)
                + "/"
                + g.s(ALNUM, 24)
            ),
        ),
        ("stripe-live", lambda: f'stripe.api_key = "sk_live_{g.s(ALNUM, 24)}"'),
        ("stripe-restricted", lambda: f"Payments use rk_live_{g.s(ALNUM, 40)} in prod."),
        ("openai", lambda: f"OPENAI_API_KEY=sk-proj-{g.s(ALNUM + '_-', 56)}"),
        ("openai-legacy", lambda: f"key: sk-{g.s(ALNUM, 20)}T3BlbkFJ{g.s(ALNUM, 20)}"),
        ("anthropic", lambda: f"ANTHROPIC_API_KEY=sk-ant-api03-{g.s(ALNUM + '_-', 93)}AA"),
        ("google-api", lambda: f"Maps key: AIza{g.s(ALNUM + '_-', 35)}"),
        ("jwt", lambda: f"Session cookie for testing admin: {g.jwt()}"),
        ("private-key-rsa", lambda: "id_rsa for the bastion:\n" + g.private_key("RSA ")),
        ("private-key-openssh", lambda: g.private_key("OPENSSH ")),
        ("private-key-pkcs8", lambda: "```\n" + g.private_key("") + "\n```"),
        (
            "postgres-url",
            lambda: f"DATABASE_URL=postgres://app:{g.password()}@db.internal:5432/app",
        ),
        (
            "mongodb-url",
            lambda: (
                f"Connect with mongodb+srv://admin:{g.password()}@cluster0.{g.s(LOW, 5)}"
                ".mongodb.net/prod"
            ),
        ),
        ("redis-url", lambda: f"redis://default:{g.password()}@cache.example.net:6379/0"),
        ("password-assign", lambda: f"db password = {g.password()}"),
        ("password-yaml", lambda: f"database:\n  user: app\n  password: {g.password()}"),
        ("password-json", lambda: f'{{"username": "svc", "password": "{g.password()}"}}'),
        ("dotenv", lambda: f"DB_HOST=db.internal\nDB_PASSWORD={g.password()}\nDB_PORT=5432"),
        ("dotenv-secret", lambda: f"DJANGO_SECRET_KEY={g.s(ALNUM + '!@#$%^&*(-_=+)', 50)}"),
        (
            "bearer",
            lambda: f"curl -H 'Authorization: Bearer {g.s(ALNUM, 40)}' https://api.internal/v1",
        ),
        ("npm", lambda: f"//registry.npmjs.org/:_authToken=npm_{g.s(ALNUM, 36)}"),
        ("npm-bare", lambda: f"publish token npm_{g.s(ALNUM, 36)}"),
        ("pypi", lambda: f"twine password: pypi-AgEIcHlwaS5vcmc{g.s(ALNUM + '_-', 60)}"),
        ("hf", lambda: f"HF_TOKEN=hf_{g.s(ALNUM, 34)}"),
        ("sendgrid", lambda: f"SG.{g.s(ALNUM + '_-', 22)}.{g.s(ALNUM + '_-', 43)} sends mail"),
        ("api-key-assign", lambda: f'api_key: "{g.s(HEX, 32)}"'),
        ("mssql", lambda: f"Server=sql01;Database=app;User Id=sa;Password={g.password()};"),
    ]


def _secrets_heldout(g: Gen) -> list[tuple[str, Callable[[], str]]]:
    """Other phrasings and formats: TOML, INI, shell, Python, Terraform, prose."""

    def tf() -> str:
        key, secret = g.aws_pair()
        return (
            'provider "aws" {\n  region     = "eu-west-1"\n'
            f'  access_key = "{key}"\n  secret_key = "{secret}"\n}}'
        )

    return [
        ("aws-terraform", tf),
        ("aws-prose", lambda: f"Found in the old wiki: key id {g.aws_pair()[0]}, ask ops."),
        ("github-py", lambda: f'gh = Github("ghp_{g.s(ALNUM, 36)}")'),
        ("github-oauth", lambda: f"oauth token gho_{g.s(ALNUM, 36)}"),
        ("gitlab-ini", lambda: f"[gitlab]\ntoken = glpat-{g.s(ALNUM, 20)}"),
        (
            "slack-user",
            lambda: f"slack user token: xoxp-{g.s(DIG, 11)}-{g.s(DIG, 12)}-{g.s(HEX, 32)}",
        ),
        ("stripe-toml", lambda: f'[stripe]\nsecret = "sk_live_{g.s(ALNUM, 99)}"'),
        ("openai-py", lambda: f"client = OpenAI(api_key='sk-proj-{g.s(ALNUM, 74)}')"),
        ("anthropic-prose", lambda: f"my key is sk-ant-api03-{g.s(ALNUM + '-', 95)} for now"),
        ("gcp-key", lambda: f"GOOGLE_API_KEY: AIza{g.s(ALNUM, 35)}"),
        ("jwt-header", lambda: f"Authorization: Bearer {g.jwt()}"),
        ("ec-key", lambda: g.private_key("EC ")),
        ("mysql-url", lambda: f"mysql://root:{g.password()}@10.0.0.{g.r.randint(2, 250)}/shop"),
        ("amqp-url", lambda: f"BROKER=amqp://guest2:{g.password()}@rabbit:5672//"),
        ("pg-dsn", lambda: f"host=db port=5432 user=app password={g.password()} dbname=app"),
        ("ini-password", lambda: f"[smtp]\nuser = mailer\npassword = {g.password()}"),
        ("py-password", lambda: f"PASSWORD = '{g.password()}'"),
        ("shell-export", lambda: f"export REDIS_PASSWORD='{g.password()}'"),
        ("env-api", lambda: f"PAYMENTS_API_KEY={g.s(ALNUM, 40)}"),
        ("yaml-token", lambda: f"auth:\n  token: {g.s(ALNUM + '-', 48)}"),
        ("client-secret", lambda: f"client_secret={g.s(ALNUM + '~_.-', 34)}"),
        ("npmrc", lambda: f"//npm.pkg.github.com/:_authToken={g.s(ALNUM, 40)}"),
        ("digitalocean", lambda: f"doctl token dop_v1_{g.s(HEX, 64)}"),
        ("twilio", lambda: f"twilio api key SK{g.s(HEX, 32)}"),
        ("telegram", lambda: f"bot: {g.s(DIG, 10)}:AA{g.s(ALNUM + '_-', 33)}"),
        (
            "basic-header",
            lambda: (
                "Authorization: Basic "
                + base64.b64encode(f"admin:{g.password()}".encode()).decode()
            ),
        ),
        ("docker-login", lambda: f"docker login -u ci -p {g.password()} registry.internal"),
    ]


# --- the look-alikes ------------------------------------------------------------------------------


def _benign_main(g: Gen) -> list[tuple[str, Callable[[], str]]]:
    def ulid() -> str:
        return "01" + g.s(CROCKFORD, 24)

    return [
        ("commit-sha", lambda: f"Fixed in commit {g.s(HEX, 40)} (see the PR)."),
        ("short-sha", lambda: f"Reverted {g.s(HEX, 7)} and {g.s(HEX, 7)}."),
        ("ulid", lambda: f"Supersedes memory {ulid()}/{ulid()}."),
        ("uuid", lambda: f"tenant_id = {uuid.UUID(int=g.r.getrandbits(128))}"),
        ("sha256", lambda: f"content_hash: {hashlib.sha256(g.s(ALNUM, 20).encode()).hexdigest()}"),
        ("docker-digest", lambda: f"image: python@sha256:{g.s(HEX, 64)}"),
        (
            "aws-example",
            lambda: "Docs use AKIAIOSFODNN7EXAMPLE / wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        ),
        ("placeholder-angle", lambda: "Set GITHUB_TOKEN=<your-token> before running the sync."),
        ("placeholder-env", lambda: "DATABASE_URL=postgres://app:${DB_PASSWORD}@db:5432/app"),
        ("placeholder-changeme", lambda: "POSTGRES_PASSWORD: changeme  # local docker only"),
        ("placeholder-xxx", lambda: "api_key = xxxxxxxxxxxxxxxx"),
        (
            "test-plan-password",
            lambda: (
                "Steps: open /login\n- Username: qa.user\n- Password: "
                + g.pick(["Test@123", "Password123", "admin123", "P@ssw0rd!", "Welcome1"])
            ),
        ),
        ("placeholder-stars", lambda: "password: ********"),
        (
            "var-name",
            lambda: "The app reads DB_PASSWORD and STRIPE_SECRET_KEY from the environment.",
        ),
        (
            "where-lives",
            lambda: "The Stripe live key is in 1Password, vault Payments, item 'Stripe prod'.",
        ),
        (
            "where-lives-ssm",
            lambda: "DB password: stored in SSM at /prod/db/password; never commit it.",
        ),
        (
            "ssh-public",
            lambda: (
                f"Add ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{g.s(ALNUM + '+/', 43)} ci@build to authorized_keys"
            ),
        ),
        (
            "public-key-pem",
            lambda: (
                "-----BEGIN PUBLIC KEY-----\n"
                + "\n".join(g.s(ALNUM + "+/", 64) for _ in range(4))
                + "\n-----END PUBLIC KEY-----"
            ),
        ),
        (
            "base64-data",
            lambda: f"Test fixture: {base64.b64encode(g.s(LOW + ' ', 60).encode()).decode()}",
        ),
        (
            "code-annotation",
            lambda: "def login(user: str, password: str) -> Token:\n    token = issue(user)",
        ),
        ("code-env", lambda: 'password = os.environ["DB_PASSWORD"]\ntoken = settings.API_TOKEN'),
        ("setting-numbers", lambda: "max_tokens=4096, token_ttl=3600, password_min_length: 12"),
        (
            "prose",
            lambda: "Rotate the token every 90 days; the password policy needs 12 characters.",
        ),
        ("url-no-password", lambda: "Clone https://github.com/acme/api.git and run make."),
        ("url-user-only", lambda: "psql postgres://app@db.internal:5432/app"),
        ("npm-cmd", lambda: "Run npm token create --read-only for CI."),
        (
            "semver-hash",
            lambda: f"lockfile integrity sha512-{base64.b64encode(g.r.randbytes(64)).decode()}",
        ),
    ]


def _benign_heldout(g: Gen) -> list[tuple[str, Callable[[], str]]]:
    return [
        (
            "git-log",
            lambda: f"commit {g.s(HEX, 40)}\nAuthor: Dev <dev@acme.io>\n\n    fix token refresh",
        ),
        (
            "uuid-list",
            lambda: ", ".join(str(uuid.UUID(int=g.r.getrandbits(128))) for _ in range(3)),
        ),
        ("md5", lambda: f"md5sum: {g.s(HEX, 32)}  release.tar.gz"),
        ("sha1-etag", lambda: f'ETag: "{g.s(HEX, 40)}"'),
        ("digest-oci", lambda: f"ghcr.io/acme/api@sha256:{g.s(HEX, 64)} is the pinned image"),
        ("stripe-docs", lambda: "Stripe's docs test with sk_test_4eC39HqLyjWDarjtT1zdp7dc."),
        ("placeholder-mustache", lambda: "token: {{ secrets.DEPLOY_TOKEN }}"),
        ("placeholder-gha", lambda: "password: ${{ secrets.REGISTRY_PASSWORD }}"),
        ("placeholder-percent", lambda: "password=%(db_password)s"),
        ("placeholder-your", lambda: "OPENAI_API_KEY=your-api-key-here"),
        ("placeholder-dots", lambda: "API_KEY=..."),
        ("placeholder-redacted", lambda: "password: [REDACTED:password]"),
        (
            "where-vault",
            lambda: (
                "The GitHub deploy token lives in Vault at secret/ci/github; read it with `vault kv get`."
            ),
        ),
        ("where-env", lambda: "Credentials come from AWS_PROFILE=prod-readonly; no keys on disk."),
        (
            "where-keychain",
            lambda: "Password for the staging DB: ask in #ops, it is in the team keychain.",
        ),
        ("var-decl", lambda: "export GITHUB_TOKEN\nexport NPM_TOKEN"),
        (
            "ts-code",
            lambda: "const token = await getToken();\nheaders.Authorization = `Bearer ${token}`;",
        ),
        (
            "yaml-ref",
            lambda: (
                "password:\n  valueFrom:\n    secretKeyRef:\n      name: db\n      key: password"
            ),
        ),
        (
            "cert",
            lambda: (
                "-----BEGIN CERTIFICATE-----\n"
                + g.s(ALNUM + "+/", 64)
                + "\n-----END CERTIFICATE-----"
            ),
        ),
        ("ssh-rsa", lambda: f"ssh-rsa AAAAB3NzaC1yc2E{g.s(ALNUM + '+/', 300)} me@laptop"),
        ("gpg-fpr", lambda: f"Signing key fingerprint {g.s(HEX.upper(), 40)}"),
        (
            "b64-blob",
            lambda: f"payload={base64.b64encode(g.r.randbytes(30)).decode()} (test vector)",
        ),
        ("prose-password", lambda: "Users reset their password via the forgot-password link."),
        ("token-count", lambda: "The prompt used 1532 tokens; token limit is 8192."),
        ("bearer-prose", lambda: "Requests need a bearer token from the auth service."),
        ("header-template", lambda: "Authorization: Bearer <access_token>"),
        (
            "key-header-only",
            lambda: "The deploy key file starts with -----BEGIN OPENSSH PRIVATE KEY-----.",
        ),
    ]


def _secrets_unseen(g: Gen) -> list[tuple[str, Callable[[], str]]]:
    """Written after the rules were final and evaluated once, untuned: chat-style notes an
    agent might paste from a terminal or a ticket."""
    return [
        (
            "k8s-secret",
            lambda: f"kubectl create secret generic db --from-literal=password={g.password()}",
        ),
        ("curl-user", lambda: f"curl -u admin:{g.password()} https://jenkins.internal/api/json"),
        ("redis-nouser", lambda: f"REDIS_URL=redis://:{g.password()}@cache:6379/2"),
        ("json-apikey", lambda: f'{{"apiKey": "{g.s(ALNUM, 32)}", "region": "eu"}}'),
        (
            "gh-in-url",
            lambda: (
                f"git remote set-url origin https://x-access-token:ghs_{g.s(ALNUM, 36)}@github.com/acme/api.git"
            ),
        ),
        (
            "aws-cli-cfg",
            lambda: (
                f"[default]\naws_access_key_id={g.aws_pair()[0]}\naws_secret_access_key={g.aws_pair()[1]}"
            ),
        ),
        ("openai-env", lambda: f"Remember: OPENAI_API_KEY is sk-proj-{g.s(ALNUM + '_-', 64)}"),
        ("jwt-cookie", lambda: f"Cookie: session={g.jwt()}"),
        ("ssh-key-paste", lambda: "Here is the deploy key:\n" + g.private_key("OPENSSH ")),
        (
            "slack-hook-prose",
            lambda: (
                "post to https://hooks.slack.com/services/T"
                + g.s(UP + DIG, 10)
                + "/B"
                + g.s(UP + DIG, 10)
                + "/"
                + g.s(ALNUM, 24)
                + " for alerts"
            ),
        ),
        ("stripe-prose", lambda: f"the prod stripe key sk_live_{g.s(ALNUM, 32)} must rotate"),
        ("pwd-colon-prose", lambda: f"Staging DB password: {g.password()}"),
        ("token-header", lambda: f"X-Api-Token: {g.s(ALNUM, 40)}"),
        ("gitlab-ci", lambda: f"variables:\n  GITLAB_TOKEN: glpat-{g.s(ALNUM, 20)}"),
        ("google-json", lambda: f'"api_key": "AIza{g.s(ALNUM + "_-", 35)}"'),
    ]


def _benign_unseen(g: Gen) -> list[tuple[str, Callable[[], str]]]:
    return [
        ("k8s-ref", lambda: "kubectl get secret db -o jsonpath='{.data.password}' | base64 -d"),
        ("curl-noauth", lambda: "curl -s https://jenkins.internal/api/json | jq .jobs"),
        ("redis-local", lambda: "REDIS_URL=redis://localhost:6379/2"),
        ("json-config", lambda: '{"apiKey": "", "region": "eu", "timeout": 30}'),
        ("git-remote", lambda: "git remote set-url origin git@github.com:acme/api.git"),
        (
            "aws-profile",
            lambda: (
                "[profile prod]\nrole_arn = arn:aws:iam::123456789012:role/deploy\nsource_profile = default"
            ),
        ),
        (
            "env-doc",
            lambda: "OPENAI_API_KEY must be set; read it from the team vault, never commit it.",
        ),
        ("cookie-doc", lambda: "The session cookie is HttpOnly and expires after 12 hours."),
        ("ssh-doc", lambda: "Deploy keys live in ~/.ssh/deploy_ed25519; add the .pub to GitHub."),
        ("hash-list", lambda: "\n".join(f"{g.s(HEX, 64)}  dist/app-{i}.tar.gz" for i in range(3))),
        ("ulid-list", lambda: " ".join("01" + g.s(CROCKFORD, 24) for _ in range(4))),
        ("pwd-policy", lambda: "Staging DB password: rotated monthly by the ops bot."),
        ("token-doc", lambda: "X-Api-Token: send the token issued by /auth/login"),
        ("gitlab-ci-ref", lambda: "variables:\n  GITLAB_TOKEN: $CI_JOB_TOKEN"),
        ("uuid-json", lambda: f'"request_id": "{uuid.UUID(int=g.r.getrandbits(128))}"'),
    ]


def corpus(which: str = "main", per_kind: int = 40) -> list[Record]:
    if which == "unseen":
        g = Gen(4242)
        secrets, benign = _secrets_unseen(g), _benign_unseen(g)
        return [("secret", k, make()) for k, make in secrets for _ in range(per_kind)] + [
            ("benign", k, make()) for k, make in benign for _ in range(per_kind)
        ]
    g = Gen(20261204 if which == "main" else 77)
    secrets = _secrets_main(g) if which == "main" else _secrets_heldout(g)
    benign = _benign_main(g) if which == "main" else _benign_heldout(g)
    out: list[Record] = []
    for kind, make in secrets:
        out += [("secret", kind, make()) for _ in range(per_kind)]
    for kind, make in benign:
        out += [("benign", kind, make()) for _ in range(per_kind)]
    return out


if __name__ == "__main__":
    target = Path(sys.argv[1] if len(sys.argv) > 1 else "benchmarks/data")
    target.mkdir(parents=True, exist_ok=True)
    for name in ("main", "heldout", "unseen"):
        with (target / f"secrets_corpus_{name}.jsonl").open("w") as handle:
            for label, kind, text in corpus(name):
                handle.write(json.dumps({"label": label, "kind": kind, "text": text}) + "\n")

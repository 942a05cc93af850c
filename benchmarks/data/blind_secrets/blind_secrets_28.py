"""Blind secret-detection corpus 28: an open-source library's shared agent memory.

Brief: an open-source maintainer's and their contributors' shared agent memory for a
popular library over two years (a realistic cross-section): release procedures (PyPI,
npm, crates.io, RubyGems, Maven Central, NuGet publish tokens, GPG signing keys and
passphrases, Sonatype creds, codecov/coveralls tokens, Read the Docs webhooks, GitHub App
private keys, Discord/Slack/Matrix bot tokens, sponsor platform API keys, CDN purge keys,
docs-site deploy keys), CI notes, issue triage, security advisories. Look-alikes: commit
SHAs, release checksums, GPG fingerprints and key ids, public keys, DOIs, ORCIDs, package
integrity hashes, PR/issue numbers, CVE/GHSA ids, example tokens from docs clearly marked,
redacted values, variable names with no value, revoked tokens with only a prefix left.

Written blind on 2026-12-07: the author did not read the detector, its tests or any
earlier corpus.

Run:  python blind_secrets_28.py [out.jsonl]   (JSONL to the path, or stdout)

Every random value is generated from random.Random(SEED); no real credential is present.

Kinds, secret (70):
  admin_session_jwt, age_secret_key, algolia_admin_key, anaconda_token,
  anthropic_api_key, aws_secret_access_key, azure_storage_conn, bunnycdn_access_key,
  circleci_token, cloudflare_api_token, codecov_upload_token, cosign_password,
  cosign_private_key, coveralls_repo_token, crates_io_token, digitalocean_token,
  discord_bot_token, discord_webhook_url, django_secret_key, dockerhub_pat,
  docs_deploy_ssh_key, fastly_api_token, gcp_service_account_key,
  github_app_private_key, github_installation_token, github_pat_classic,
  github_pat_fine_grained, github_sponsors_webhook_secret, github_webhook_secret,
  gitlab_pat, gpg_passphrase, gradle_signing_password, heroku_api_key,
  huggingface_token, mailgun_api_key, mastodon_access_token, matrix_access_token,
  minisign_secret_key, netlify_auth_token, npm_publish_token, nuget_api_key,
  nuget_signing_cert_password, openai_api_key, opencollective_token,
  patreon_creator_token, pgp_private_key, postgres_url_password, pypi_account_password,
  pypi_api_token, pypi_recovery_codes, redis_url_password, rtd_api_token,
  rtd_webhook_secret, rubygems_api_key, sendgrid_api_key, sentry_auth_token,
  slack_app_token, slack_bot_token, slack_webhook_url, snyk_token, sonarcloud_token,
  sonatype_password, sonatype_user_token, stripe_secret_key, telegram_bot_token,
  testpypi_api_token, totp_seed, twitter_bearer_token, vercel_token, zulip_bot_api_key

Kinds, benign (74):
  age_public_key, algolia_search_key, angle_placeholder, base64_nonsecret,
  cargo_lock_checksum, ci_run_ids, cloudflare_zone_id, codecov_badge_url,
  cosign_public_key, coveralls_job_url, crates_owner_team, cve_id, discord_invite,
  discord_snowflake_ids, dns_verification_txt, docker_image_digest,
  docs_example_aws_key, docs_example_jwt, docs_example_token, env_var_name_only,
  fastly_service_id, gem_checksum, ghsa_id, git_commit_sha, github_app_ids,
  google_site_verification, gpg_fingerprint, gpg_key_expiry_talk, gpg_long_key_id,
  gpg_short_key_id, hashed_filename, issue_pr_numbers, key_other_sense, matrix_room_id,
  maven_checksum, minisign_public_key, npm_integrity, npm_shasum, nuget_cert_thumbprint,
  opencollective_slug, orcid, password_field_talk, pgp_public_key, pgp_signature,
  pinned_action_sha, pip_hash_pin, placeholder_token, pypi_project_urls,
  random_test_seed, record_file_hash, redacted_token, release_sha256, release_sha512,
  revoked_token_prefix, rfc_test_vector, rotation_policy_talk, rtd_webhook_url,
  secret_reference_actions, secret_scanning_alert, short_commit_sha,
  sigstore_rekor_entry, slack_channel_id, sonatype_staging_repo, sri_hash,
  ssh_host_fingerprint, ssh_public_key, stripe_publishable_key,
  token_in_tokenizer_sense, trusted_publishing_config, uuid_request_id, vault_reference,
  version_and_build_metadata, x509_certificate, zenodo_doi
"""

# ruff: noqa: E501  (data file: long memory lines are the corpus)
from __future__ import annotations

import base64
import json
import random
import string
import sys

SEED = 2828

LOW = string.ascii_lowercase
UP = string.ascii_uppercase
DIG = string.digits
ALNUM = LOW + UP + DIG
LALNUM = LOW + DIG
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
B64URL = ALNUM + "-_"


def corpus() -> list[dict]:
    r = random.Random(SEED)

    def s(alpha: str, n: int) -> str:
        return "".join(r.choice(alpha) for _ in range(n))

    def hx(n: int) -> str:
        return s(HEX, n)

    def uuid() -> str:
        return f"{hx(8)}-{hx(4)}-4{hx(3)}-{r.choice('89ab')}{hx(3)}-{hx(12)}"

    def b64block(nbytes: int, width: int = 64) -> str:
        raw = base64.b64encode(bytes(r.randrange(256) for _ in range(nbytes))).decode()
        return "\n".join(raw[i : i + width] for i in range(0, len(raw), width))

    def b64raw(nbytes: int) -> str:
        return base64.b64encode(bytes(r.randrange(256) for _ in range(nbytes))).decode()

    def pw() -> str:
        words = ["harbor", "quartz", "lantern", "mosaic", "cobalt", "thistle", "ember", "fjord"]
        return (
            r.choice(words).capitalize()
            + s(DIG, 2)
            + r.choice("!#%&*$")
            + r.choice(words)
            + s(ALNUM, 4)
        )

    def pem(label: str, nbytes: int) -> str:
        return f"-----BEGIN {label}-----\n{b64block(nbytes)}\n-----END {label}-----"

    def ver() -> str:
        return f"{r.randint(1, 5)}.{r.randint(0, 24)}.{r.randint(0, 9)}"

    def num() -> str:
        return str(r.randint(1200, 9800))

    def date() -> str:
        return f"20{r.choice(['25', '26'])}-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}"

    def fill(t: str, v: str) -> str:
        out = t.replace("<V>", v)
        while "<SHA>" in out:
            out = out.replace("<SHA>", hx(40), 1)
        while "<SHORT>" in out:
            out = out.replace("<SHORT>", hx(7), 1)
        while "<VER>" in out:
            out = out.replace("<VER>", ver(), 1)
        while "<N>" in out:
            out = out.replace("<N>", num(), 1)
        while "<DATE>" in out:
            out = out.replace("<DATE>", date(), 1)
        return out

    # ---------------- secret value generators ----------------
    def pypi():
        return "pypi-AgEIcHlwaS5vcmc" + s(B64URL, 160)

    def testpypi():
        return "pypi-AgENdGVzdC5weXBpLm9yZw" + s(B64URL, 150)

    def npm():
        return "npm_" + s(ALNUM, 36)

    def cio():
        return "cio" + s(ALNUM, 32)

    def rubygems():
        return "rubygems_" + hx(48)

    def nuget():
        return "oy2" + s(LALNUM, 43)

    def gh_classic():
        return "ghp_" + s(ALNUM, 36)

    def gh_fine():
        return "github_pat_11" + s(UP + DIG, 20) + "_" + s(ALNUM, 59)

    def ghs():
        return "ghs_" + s(ALNUM, 36)

    def discord_bot():
        snow = str(r.randint(10**17, 10**18 - 1))
        return (
            base64.b64encode(snow.encode()).decode().rstrip("=")
            + "."
            + s(B64URL, 6)
            + "."
            + s(B64URL, 38)
        )

    def discord_hook():
        return f"https://discord.com/api/webhooks/{r.randint(10**17, 10**18 - 1)}/{s(B64URL, 68)}"

    def slack_bot():
        return f"xoxb-{s(DIG, 12)}-{s(DIG, 13)}-{s(ALNUM, 24)}"

    def slack_hook():
        return (
            f"https://hooks.slack.com/services/T{s(UP + DIG, 10)}/B{s(UP + DIG, 10)}/{s(ALNUM, 24)}"
        )

    def slack_app():
        return f"xapp-1-A{s(UP + DIG, 10)}-{s(DIG, 13)}-{hx(64)}"

    def matrix():
        user = (
            base64.b64encode(r.choice([b"libbot", b"triage-bot", b"announcer"]))
            .decode()
            .rstrip("=")
        )
        return f"syt_{user}_{s(ALNUM, 20)}_{s(ALNUM, 6)}"

    def gpg_priv():
        return pem("PGP PRIVATE KEY BLOCK", 420).replace(
            "-----BEGIN PGP PRIVATE KEY BLOCK-----\n", "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n"
        )

    def rsa_priv():
        return pem("RSA PRIVATE KEY", 900)

    def openssh_priv():
        return (
            "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
            + (b64block(300, 70) + "\n-----END OPENSSH PRIVATE KEY-----")
        )

    def age_sk():
        return "AGE-SECRET-KEY-1" + s("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58)

    def sendgrid():
        return f"SG.{s(B64URL, 22)}.{s(B64URL, 43)}"

    def telegram():
        return f"{r.randint(10**9, 7 * 10**9)}:AA{s(B64URL, 33)}"

    def do_tok():
        return "dop_v1_" + hx(64)

    def hf():
        return "hf_" + s(ALNUM, 34)

    def docker():
        return "dckr_pat_" + s(B64URL, 27)

    def sentry():
        return "sntryu_" + hx(64)

    def glpat():
        return "glpat-" + s(B64URL, 20)

    def openai():
        return "sk-proj-" + s(B64URL, 48) + "T3BlbkFJ" + s(B64URL, 48)

    def anthropic():
        return "sk-ant-api03-" + s(B64URL, 93) + "AA"

    def stripe_sk():
        return "sk_live_51" + s(ALNUM, 97)

    def aws_secret():
        return s(ALNUM + "/+", 40)

    def netlify():
        return "nfp_" + s(ALNUM, 36)

    def jwt_session():
        head = base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT"}').decode().rstrip("=")
        body = (
            base64.urlsafe_b64encode(
                json.dumps(
                    {
                        "sub": r.choice(["maint", "admin", "docs"]),
                        "exp": r.randint(1_900_000_000, 2_100_000_000),
                    }
                ).encode()
            )
            .decode()
            .rstrip("=")
        )
        return f"{head}.{body}.{s(B64URL, 43)}"

    def django_key():
        return s(LOW + DIG + "!@#%^&*(-_=+)", 50)

    secret_specs = [
        (
            "pypi_api_token",
            pypi,
            [
                "Release: PyPI upload token (project-scoped) = <V>\nuse `twine upload dist/*` with user __token__",
                "~/.pypirc on the release box:\n[pypi]\n  username = __token__\n  password = <V>",
                "rotated the pypi token after the <VER> release, new one is <V> (stored here until the org vault is set up)",
            ],
        ),
        (
            "testpypi_api_token",
            testpypi,
            [
                "TestPyPI dry-run token for rehearsing releases: <V>",
                "[testpypi]\nrepository = https://test.pypi.org/legacy/\nusername = __token__\npassword = <V>",
            ],
        ),
        (
            "npm_publish_token",
            npm,
            [
                "npm automation token for the JS bindings (bypasses 2FA, CI only): <V>",
                "//registry.npmjs.org/:_authToken=<V>\n(that's the .npmrc line the publish job writes)",
                "NPM_TOKEN=<V>  # granular, publish-only on @ourlib/*, expires <DATE>",
            ],
        ),
        (
            "crates_io_token",
            cio,
            [
                "crates.io API token for the rust core crate: <V> (scope: publish-update)",
                "cargo login <V>\nthen `cargo publish -p ourlib-core` from the tag",
                "CARGO_REGISTRY_TOKEN set in the release env to <V>",
            ],
        ),
        (
            "rubygems_api_key",
            rubygems,
            [
                "RubyGems push key for the ruby gem: <V>",
                "~/.gem/credentials\n---\n:rubygems_api_key: <V>",
                "GEM_HOST_API_KEY=<V> gem push ourlib-<VER>.gem",
            ],
        ),
        (
            "nuget_api_key",
            nuget,
            [
                "NuGet.org API key (push, glob OurLib.*): <V>",
                "dotnet nuget push bin/Release/OurLib.<VER>.nupkg --api-key <V> --source https://api.nuget.org/v3/index.json",
                "nuget key renewed on <DATE>, expires in 365 days -> <V>",
            ],
        ),
        (
            "sonatype_password",
            pw,
            [
                "Sonatype OSSRH login for Maven Central: user ourlib-release / password <V>",
                "<server>\n  <id>ossrh</id>\n  <username>ourlib-release</username>\n  <password><V></password>\n</server>",
                "OSSRH_PASSWORD=<V> (the legacy JIRA account, needed for s01 staging)",
            ],
        ),
        (
            "sonatype_user_token",
            lambda: s(ALNUM, 44),
            [
                "Central Portal user token: username j3Kx9QpA / password <V>",
                "maven central publisher token pair generated <DATE>: name=ourlib, token=<V>",
            ],
        ),
        (
            "gpg_passphrase",
            pw,
            [
                "GPG signing key passphrase (release key, ID in the keyring as 'OurLib Releases'): <V>",
                "MAVEN_GPG_PASSPHRASE=<V>\nexport before `mvn deploy -P release`",
                "when gpg-agent prompts during `git tag -s v<VER>`, the passphrase is <V>",
            ],
        ),
        (
            "pgp_private_key",
            gpg_priv,
            [
                "Exported release signing subkey (gpg --armor --export-secret-subkeys), paste into GPG_PRIVATE_KEY secret:\n<V>",
                "signing key for CI:\n<V>",
            ],
        ),
        (
            "codecov_upload_token",
            uuid,
            [
                "CODECOV_TOKEN=<V> (needed since codecov stopped tokenless uploads for forks)",
                "codecov repo upload token for ourlib/ourlib: <V>",
                "codecov-action step: with: token: <V>  -- move this to secrets later",
            ],
        ),
        (
            "coveralls_repo_token",
            lambda: s(ALNUM, 33),
            [
                "coveralls repo_token: <V>",
                ".coveralls.yml\nservice_name: github-actions\nrepo_token: <V>",
                "COVERALLS_REPO_TOKEN=<V> for running coveralls locally",
            ],
        ),
        (
            "rtd_webhook_secret",
            lambda: hx(40),
            [
                "Read the Docs incoming webhook: URL https://readthedocs.org/api/v2/webhook/ourlib/<N>/ secret <V>",
                "RTD integration secret (GitHub webhook 'Secret' field): <V>",
            ],
        ),
        (
            "rtd_api_token",
            lambda: hx(40),
            [
                "Read the Docs API v3 token for triggering builds from CI: Authorization: Token <V>",
                "curl -X POST -H 'Authorization: Token <V>' https://readthedocs.org/api/v3/projects/ourlib/versions/latest/builds/",
                "RTD_TOKEN=<V>",
            ],
        ),
        (
            "github_app_private_key",
            rsa_priv,
            [
                "GitHub App 'ourlib-bot' private key (downloaded <DATE>):\n<V>",
                "APP_PRIVATE_KEY for the release-please app:\n<V>",
            ],
        ),
        (
            "github_pat_classic",
            gh_classic,
            [
                "maintainer PAT with repo + workflow scope, used by the changelog script: <V>",
                "GH_TOKEN=<V> gh release create v<VER> dist/*",
                "the backport bot runs as my account, token <V>",
            ],
        ),
        (
            "github_pat_fine_grained",
            gh_fine,
            [
                "fine-grained PAT for the docs repo (contents: write): <V>",
                "homebrew tap bump token: <V> expires <DATE>",
                "git remote set-url origin https://x-access-token:<V>@github.com/ourlib/ourlib-docs.git",
            ],
        ),
        (
            "github_installation_token",
            ghs,
            [
                "debugging the app: the installation token it minted was <V> (valid 1h, but still)",
                "Authorization: token <V> -> 200 on /repos/ourlib/ourlib/issues",
            ],
        ),
        (
            "github_webhook_secret",
            lambda: s(ALNUM, 32),
            [
                "GitHub webhook secret for the triage bot (X-Hub-Signature-256 check): <V>",
                "WEBHOOK_SECRET=<V> in the bot's fly.io env",
            ],
        ),
        (
            "discord_bot_token",
            discord_bot,
            [
                "Discord community bot token (ourlib-helper): <V>",
                "DISCORD_TOKEN=<V>\nintents: guilds, messages, message_content",
                'bot.run("<V>")  # TODO env var',
            ],
        ),
        (
            "discord_webhook_url",
            discord_hook,
            [
                "release announcements go to #announcements via <V>",
                "Discord webhook for CI failures: <V>",
            ],
        ),
        (
            "slack_bot_token",
            slack_bot,
            [
                "Slack (sponsor workspace) bot token: <V>",
                "SLACK_BOT_TOKEN=<V> for the security-alerts channel poster",
                'slack_sdk WebClient(token="<V>")',
            ],
        ),
        (
            "slack_webhook_url",
            slack_hook,
            [
                "incoming webhook for #releases: <V>",
                'curl -X POST -d \'{"text":"v<VER> is out"}\' <V>',
            ],
        ),
        (
            "slack_app_token",
            slack_app,
            [
                "socket-mode app token for the triage slackbot: <V>",
                "SLACK_APP_TOKEN=<V>",
            ],
        ),
        (
            "matrix_access_token",
            matrix,
            [
                "Matrix bot (@ourlib-bot:matrix.org) access token: <V>",
                "matrix-commander creds: homeserver https://matrix.org, access_token <V>",
                "curl -H 'Authorization: Bearer <V>' https://matrix.org/_matrix/client/v3/rooms/.../send/m.room.message",
            ],
        ),
        (
            "opencollective_token",
            lambda: hx(40),
            [
                "Open Collective personal token (read expenses for the sponsors page): <V>",
                "OC_API_KEY=<V> for the graphql v2 api",
            ],
        ),
        (
            "github_sponsors_webhook_secret",
            lambda: s(ALNUM + "-_", 40),
            [
                "sponsors webhook (sponsorship.created) signing secret: <V>",
                "tier sync job verifies payloads with secret <V>",
            ],
        ),
        (
            "patreon_creator_token",
            lambda: s(B64URL, 43),
            [
                "Patreon creator access token for the backers wall: <V>",
                "PATREON_ACCESS_TOKEN=<V> (refresh token is in the same app page)",
            ],
        ),
        (
            "cloudflare_api_token",
            lambda: s(B64URL, 40),
            [
                "Cloudflare API token (Zone.Cache Purge on ourlib.dev): <V>",
                "purge docs cache: curl -X POST .../purge_cache -H 'Authorization: Bearer <V>' --data '{\"purge_everything\":true}'",
                "CF_API_TOKEN=<V>",
            ],
        ),
        (
            "fastly_api_token",
            lambda: s(B64URL, 32),
            [
                "Fastly purge key for cdn.ourlib.dev: Fastly-Key: <V>",
                "FASTLY_API_TOKEN=<V> (purge_select scope, service id is in the wiki)",
            ],
        ),
        (
            "bunnycdn_access_key",
            lambda: f"{uuid()}-{hx(4)}-{hx(4)}",
            [
                "bunny.net storage zone password / AccessKey for the wheel mirror: <V>",
                "AccessKey: <V>  (PUT https://storage.bunnycdn.com/ourlib-mirror/...)",
            ],
        ),
        (
            "docs_deploy_ssh_key",
            openssh_priv,
            [
                "deploy key for ourlib.github.io (write access), private half:\n<V>",
                "DOCS_DEPLOY_KEY secret contents:\n<V>",
            ],
        ),
        (
            "netlify_auth_token",
            netlify,
            [
                "netlify personal access token for preview deploys: <V>",
                "NETLIFY_AUTH_TOKEN=<V> netlify deploy --prod --dir site/",
            ],
        ),
        (
            "vercel_token",
            lambda: s(ALNUM, 24),
            [
                "vercel token for the playground app: <V>",
                "vercel --token <V> --prod",
            ],
        ),
        (
            "aws_secret_access_key",
            aws_secret,
            [
                "S3 bucket for nightly wheels: AKIAQ4XZ<N>RTYWPLMN key id, secret <V>",
                "[nightly]\naws_access_key_id = AKIA2PLM<N>HJKQWEZZ\naws_secret_access_key = <V>",
                "AWS_SECRET_ACCESS_KEY=<V>",
            ],
        ),
        (
            "dockerhub_pat",
            docker,
            [
                "Docker Hub PAT (ourlibbot, read/write) for pushing the dev image: <V>",
                "echo <V> | docker login -u ourlibbot --password-stdin",
            ],
        ),
        (
            "sentry_auth_token",
            sentry,
            [
                "sentry auth token for uploading sourcemaps of the playground: <V>",
                "SENTRY_AUTH_TOKEN=<V>",
            ],
        ),
        (
            "gitlab_pat",
            glpat,
            [
                "gitlab mirror push token: <V>",
                "git push https://oauth2:<V>@gitlab.com/ourlib/ourlib.git --mirror",
            ],
        ),
        (
            "circleci_token",
            lambda: "CCIPAT_" + s(ALNUM, 22) + "_" + hx(40),
            [
                "CircleCI personal API token (arm64 builds): <V>",
                "Circle-Token: <V>",
            ],
        ),
        (
            "sonarcloud_token",
            lambda: hx(40),
            [
                "SONAR_TOKEN=<V> (sonarcloud analysis, org ourlib)",
                "sonarcloud token generated under my account: <V>",
            ],
        ),
        (
            "snyk_token",
            uuid,
            [
                "snyk auth <V>",
                "SNYK_TOKEN for the dependency scan workflow = <V>",
            ],
        ),
        (
            "gcp_service_account_key",
            lambda: pem("PRIVATE KEY", 630).replace("\n", "\\n"),
            [
                '{"type": "service_account", "project_id": "ourlib-ci", "private_key": "<V>", "client_email": "ci@ourlib-ci.iam.gserviceaccount.com"}',
                'GCS benchmark bucket SA json, private_key field: "<V>"',
            ],
        ),
        (
            "openai_api_key",
            openai,
            [
                "issue-summary bot uses OpenAI, key <V>",
                "OPENAI_API_KEY=<V> (billing on the sponsor card, cap $20/mo)",
            ],
        ),
        (
            "anthropic_api_key",
            anthropic,
            [
                "triage assistant key: <V>",
                "ANTHROPIC_API_KEY=<V>",
            ],
        ),
        (
            "stripe_secret_key",
            stripe_sk,
            [
                "stripe live secret key for the merch/sponsor checkout: <V>",
                "STRIPE_SECRET_KEY=<V>",
            ],
        ),
        (
            "sendgrid_api_key",
            sendgrid,
            [
                "SendGrid key for the security@ mail relay: <V>",
                "newsletter sending uses apikey / <V>",
            ],
        ),
        (
            "mailgun_api_key",
            lambda: "key-" + hx(32),
            [
                "mailgun api key for lists.ourlib.dev: <V>",
                "curl -s --user 'api:<V>' https://api.mailgun.net/v3/lists.ourlib.dev/messages",
            ],
        ),
        (
            "telegram_bot_token",
            telegram,
            [
                "Telegram release channel bot: <V>",
                "https://api.telegram.org/bot<V>/sendMessage?chat_id=@ourlib_releases",
            ],
        ),
        (
            "digitalocean_token",
            do_tok,
            [
                "DO token for the benchmark droplets: <V>",
                "doctl auth init -t <V>",
            ],
        ),
        (
            "huggingface_token",
            hf,
            [
                "HF write token for uploading the example models: <V>",
                "HF_TOKEN=<V>",
            ],
        ),
        (
            "postgres_url_password",
            lambda: s(ALNUM, 20),
            [
                "stats dashboard db: postgresql://stats:<V>@db.ourlib.dev:5432/downloads",
                "DATABASE_URL=postgres://ourlib_admin:<V>@10.0.4.12/pypi_stats",
            ],
        ),
        (
            "redis_url_password",
            lambda: s(ALNUM, 24),
            [
                "rate-limit cache for the bot: redis://default:<V>@redis-<N>.c1.us-east-1.cloud.redislabs.com:<N>",
                "REDIS_URL=rediss://:<V>@cache.ourlib.dev:6380/0",
            ],
        ),
        (
            "algolia_admin_key",
            lambda: hx(32),
            [
                "Algolia admin API key (docsearch index write): <V> -- NOT the search key",
                "ALGOLIA_ADMIN_KEY=<V> used by the crawler config push",
            ],
        ),
        (
            "admin_session_jwt",
            jwt_session,
            [
                "docs admin session cookie (copied from devtools to reproduce #<N>): session=<V>",
                "Authorization: Bearer <V>  -> works against the sponsor dashboard API",
            ],
        ),
        (
            "django_secret_key",
            django_key,
            [
                "project website settings.py: SECRET_KEY = '<V>'",
                "DJANGO_SECRET_KEY=<V> on the website host",
            ],
        ),
        (
            "cosign_password",
            pw,
            [
                "COSIGN_PASSWORD=<V> (decrypts cosign.key for signing the container image)",
                "cosign sign --key cosign.key ghcr.io/ourlib/ourlib:<VER>  # prompt password: <V>",
            ],
        ),
        (
            "cosign_private_key",
            lambda: pem("ENCRYPTED SIGSTORE PRIVATE KEY", 380),
            [
                "cosign.key contents:\n<V>",
                "COSIGN_PRIVATE_KEY secret:\n<V>",
            ],
        ),
        (
            "minisign_secret_key",
            lambda: "RWRTY0Iy" + s(B64, 204),
            [
                "minisign secret key for the standalone binaries:\nuntrusted comment: minisign encrypted secret key\n<V>",
                "minisign.key (password is blank, yes I know):\n<V>",
            ],
        ),
        (
            "age_secret_key",
            age_sk,
            [
                "age identity for decrypting the release secrets bundle: <V>",
                "# created: <DATE>\n# public key: age1" + "q" * 3 + "<SHORT>\n<V>",
            ],
        ),
        (
            "pypi_recovery_codes",
            lambda: " ".join(hx(16) for _ in range(4)),
            [
                "PyPI 2FA recovery codes for the ourlib-admin account: <V>",
                "recovery codes (pypi, org owner): <V> -- each works once",
            ],
        ),
        (
            "totp_seed",
            lambda: s("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 32),
            [
                "shared npm 2FA TOTP seed so both maintainers can publish: <V>",
                "otpauth://totp/npm:ourlib-bot?secret=<V>&issuer=npm",
            ],
        ),
        (
            "azure_storage_conn",
            lambda: b64raw(64),
            [
                "DefaultEndpointsProtocol=https;AccountName=ourlibbench;AccountKey=<V>;EndpointSuffix=core.windows.net",
                "benchmark blob storage key: <V>",
            ],
        ),
        (
            "heroku_api_key",
            uuid,
            [
                "HEROKU_API_KEY=<V> (the old demo app)",
                "heroku auth token for the demo: <V>",
            ],
        ),
        (
            "zulip_bot_api_key",
            lambda: s(ALNUM, 32),
            [
                "zuliprc for the stream bot:\n[api]\nemail=ourlib-bot@ourlib.zulipchat.com\nkey=<V>\nsite=https://ourlib.zulipchat.com",
                "zulip bot api key: <V>",
            ],
        ),
        (
            "anaconda_token",
            lambda: s(LOW + DIG + "-", 30),
            [
                "anaconda.org upload token for the conda channel: <V>",
                "anaconda -t <V> upload --user ourlib dist/conda/*.tar.bz2",
            ],
        ),
        (
            "twitter_bearer_token",
            lambda: "AAAAAAAAAAAAAAAAAAAAA" + s(ALNUM + "%", 90),
            [
                "X/Twitter bearer token for the release tweet bot: <V>",
                "TWITTER_BEARER=<V>",
            ],
        ),
        (
            "mastodon_access_token",
            lambda: s(B64URL, 43),
            [
                "fosstodon bot access token (write:statuses): <V>",
                "mastodon.py: Mastodon(access_token='<V>', api_base_url='https://fosstodon.org')",
            ],
        ),
        (
            "gradle_signing_password",
            pw,
            [
                "gradle.properties (local only):\nsigning.keyId=3F2A9C1D\nsigning.password=<V>\nsigning.secretKeyRingFile=/home/me/.gnupg/secring.gpg",
                "ORG_GRADLE_PROJECT_signingPassword=<V>",
            ],
        ),
        (
            "nuget_signing_cert_password",
            pw,
            [
                "code signing .pfx password for the NuGet packages: <V>",
                "dotnet nuget sign OurLib.<VER>.nupkg --certificate-path codesign.pfx --certificate-password <V>",
            ],
        ),
        (
            "pypi_account_password",
            pw,
            [
                "shared pypi account ourlib-admin password: <V> (2FA on, codes below)",
                "readthedocs login for the org account: ourlib-docs / <V>",
            ],
        ),
    ]

    # ---------------- benign value generators ----------------
    def gpg_fpr():
        return " ".join(hx(4).upper() for _ in range(10))

    def npm_integrity():
        return "sha512-" + b64raw(64)

    def ghsa():
        a = "23456789cfghjmpqrvwx"
        return f"GHSA-{s(a, 4)}-{s(a, 4)}-{s(a, 4)}"

    def orcid():
        return f"0000-000{r.randint(1, 3)}-{s(DIG, 4)}-{s(DIG, 3)}{r.choice(DIG + 'X')}"

    def ssh_pub():
        return "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + s(B64, 43)

    def pgp_pub():
        return pem("PGP PUBLIC KEY BLOCK", 300).replace(
            "-----BEGIN PGP PUBLIC KEY BLOCK-----\n", "-----BEGIN PGP PUBLIC KEY BLOCK-----\n\n"
        )

    def pgp_sig():
        return pem("PGP SIGNATURE", 110).replace(
            "-----BEGIN PGP SIGNATURE-----\n", "-----BEGIN PGP SIGNATURE-----\n\n"
        )

    def revoked_prefix():
        return r.choice(["ghp_", "npm_", "pypi-AgEI", "glpat-", "xoxb-"]) + s(ALNUM, 4)

    benign_specs = [
        (
            "git_commit_sha",
            lambda: hx(40),
            [
                "v<VER> was tagged at <V>; the changelog generator starts from there next time",
                'bisect result: first bad commit is <V> ("refactor tokenizer cache")',
                "revert <V> if the windows wheels keep failing",
            ],
        ),
        (
            "short_commit_sha",
            lambda: hx(7),
            [
                "hotfix cherry-picked onto 3.x as <V>",
                "CI green again after <V>, flaky test was the tmpdir cleanup",
            ],
        ),
        (
            "release_sha256",
            lambda: hx(64),
            [
                "sdist ourlib-<VER>.tar.gz sha256 <V> (matches what PyPI shows)",
                "<V>  ourlib-<VER>-py3-none-any.whl\n(from SHA256SUMS, signed)",
                "conda-forge feedstock bump: source sha256: <V>",
            ],
        ),
        (
            "release_sha512",
            lambda: hx(128),
            [
                "homebrew formula needs the sha512? no, sha256. but for the record the tarball sha512 is <V>",
                "SHA512SUMS entry: <V>  ourlib-cli-<VER>-linux-x86_64.tar.gz",
            ],
        ),
        (
            "gpg_fingerprint",
            gpg_fpr,
            [
                "release signing key fingerprint (publish it in SECURITY.md): <V>",
                "verify with `gpg --verify`, expect primary key fingerprint: <V>",
                "new maintainer key added to KEYS file, fingerprint <V>",
            ],
        ),
        (
            "gpg_long_key_id",
            lambda: hx(16).upper(),
            [
                "git config user.signingkey <V>  (the signing subkey id, key itself lives on my yubikey)",
                'gpg: Signature made Tue 14 Oct; using EDDSA key <V>\ngpg: Good signature from "OurLib Releases"',
                "Maven Central rejected the bundle until key <V> was pushed to keys.openpgp.org",
            ],
        ),
        (
            "gpg_short_key_id",
            lambda: hx(8).upper(),
            [
                "old 2019 key 0x<V> expired; don't use it to verify anything new",
                "signing.keyId=<V> in gradle.properties (password is in the vault, not here)",
            ],
        ),
        (
            "pgp_public_key",
            pgp_pub,
            [
                "public half of the release key, for the KEYS file:\n<V>",
                "curl https://ourlib.dev/KEYS should return this block:\n<V>",
            ],
        ),
        (
            "pgp_signature",
            pgp_sig,
            [
                "detached signature shipped as ourlib-<VER>.tar.gz.asc:\n<V>",
                "the tag signature (git cat-file tag v<VER>):\n<V>",
            ],
        ),
        (
            "ssh_public_key",
            ssh_pub,
            [
                "docs deploy key, public half added to the repo with write access: <V> docs-deploy",
                "authorized_keys on the mirror host: <V> release@ourlib",
            ],
        ),
        (
            "ssh_host_fingerprint",
            lambda: "SHA256:" + s(B64, 43),
            [
                "github.com ed25519 host key fingerprint should be <V>; CI pins it in known_hosts",
                "mirror host fingerprint on first connect: <V> (ED25519)",
            ],
        ),
        (
            "age_public_key",
            lambda: "age1" + s("qpzry9x8gf2tvdw0s3jn54khce6mua7l", 58),
            [
                "encrypt secrets bundle to the release recipients: <V> (mine) -- only public keys here",
                "age recipient for the security team: <V>",
            ],
        ),
        (
            "minisign_public_key",
            lambda: "RWS" + s(B64, 53),
            [
                "verify binaries: minisign -Vm ourlib-<VER>.tar.gz -P <V>",
                "minisign public key published in README and on the website: <V>",
            ],
        ),
        (
            "cosign_public_key",
            lambda: pem("PUBLIC KEY", 91),
            [
                "cosign.pub (verify image signatures):\n<V>",
                "cosign verify --key cosign.pub ghcr.io/ourlib/ourlib:<VER>; cosign.pub is\n<V>",
            ],
        ),
        (
            "x509_certificate",
            lambda: pem("CERTIFICATE", 700),
            [
                "code-signing cert (public) for the nuget packages:\n<V>",
            ],
        ),
        (
            "zenodo_doi",
            lambda: f"10.5281/zenodo.{r.randint(1000000, 17000000)}",
            [
                "cite as: OurLib Developers (2026). OurLib v<VER>. Zenodo. https://doi.org/<V>",
                "CITATION.cff doi: <V> (concept DOI, stays the same across versions)",
                "JOSS paper accepted, archive DOI <V>",
            ],
        ),
        (
            "orcid",
            orcid,
            [
                "CITATION.cff author orcid: https://orcid.org/<V>",
                "add the new co-maintainer to authors, ORCID <V>",
            ],
        ),
        (
            "npm_integrity",
            npm_integrity,
            [
                'package-lock integrity for ourlib@<VER>: "<V>"',
                "npm view ourlib@<VER> dist.integrity -> <V>",
                "lockfile diff only changed the integrity line to <V>, safe to merge",
            ],
        ),
        (
            "npm_shasum",
            lambda: hx(40),
            [
                "npm dist.shasum for ourlib-<VER>.tgz: <V>",
            ],
        ),
        (
            "pip_hash_pin",
            lambda: hx(64),
            [
                "requirements/release.txt pins twine==5.1.1 --hash=sha256:<V>",
                "pip install --require-hashes: cryptography wheel --hash=sha256:<V>",
            ],
        ),
        (
            "cargo_lock_checksum",
            lambda: hx(64),
            [
                '[[package]]\nname = "serde"\nversion = "1.0.<N>"\nsource = "registry+https://github.com/rust-lang/crates.io-index"\nchecksum = "<V>"',
                "crates.io index entry cksum for ourlib-core <VER>: <V>",
            ],
        ),
        (
            "gem_checksum",
            lambda: hx(128),
            [
                "checksums.yaml SHA512 for ourlib-<VER>.gem: <V>",
            ],
        ),
        (
            "maven_checksum",
            lambda: hx(40),
            [
                "Central validation wants .sha1 files too; ourlib-core-<VER>.jar.sha1 = <V>",
                "md5/sha1 sidecars regenerated, jar sha1 now <V>",
            ],
        ),
        (
            "record_file_hash",
            lambda: s(B64URL, 43),
            [
                "wheel RECORD line: ourlib/_core.py,sha256=<V>,18342",
                "auditwheel repair changed RECORD: ourlib/_speedups.so,sha256=<V>,904112",
            ],
        ),
        (
            "sri_hash",
            lambda: "sha384-" + b64raw(48),
            [
                'docs CDN script tag: <script src="https://cdn.ourlib.dev/ourlib@<VER>/dist/ourlib.min.js" integrity="<V>" crossorigin="anonymous">',
                "jsDelivr SRI for the umd bundle: <V>",
            ],
        ),
        (
            "docker_image_digest",
            lambda: "sha256:" + hx(64),
            [
                "pin the manylinux image by digest: quay.io/pypa/manylinux_2_28_x86_64@<V>",
                "ghcr.io/ourlib/ourlib:<VER> digest <V> (signed with cosign, keyless)",
            ],
        ),
        (
            "pinned_action_sha",
            lambda: hx(40),
            [
                "policy: pin actions by SHA. uses: pypa/gh-action-pypi-publish@<V> # release/v1",
                "- uses: actions/checkout@<V> # v4.2.2",
                "dependabot bumped codecov/codecov-action to <V>",
            ],
        ),
        (
            "issue_pr_numbers",
            lambda: f"#{r.randint(1000, 9999)}",
            [
                "triage: <V> duplicates #<N>, closed with a link",
                "security fix landed in <V>, backport PR is #<N>",
                "<V> is the tracking issue for dropping python 3.9",
            ],
        ),
        (
            "cve_id",
            lambda: f"CVE-20{r.choice(['25', '26'])}-{r.randint(10000, 59999)}",
            [
                "advisory published, CVE assigned: <V> (ReDoS in the date parser), fixed in <VER>",
                "<V> is not applicable to us, we don't use the vulnerable urllib3 path",
            ],
        ),
        (
            "ghsa_id",
            ghsa,
            [
                "draft advisory <V> created, private fork for the fix is ourlib/ourlib-ghsa-<SHORT>",
                "osv says <V> affects <VER> and below; we shipped the fix in <VER>",
                "reporter credited in <V>, CVSS 7.5",
            ],
        ),
        (
            "docs_example_aws_key",
            lambda: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            [
                "docs snippet uses AWS's own documented example pair AKIAIOSFODNN7EXAMPLE / <V>, fine to leave in the tutorial",
            ],
        ),
        (
            "docs_example_jwt",
            lambda: (
                "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fMwpMJf36POk6yJV_adQssw5c"
            ),
            [
                "the auth tutorial uses the jwt.io sample token (John Doe, secret 'your-256-bit-secret'): <V>",
            ],
        ),
        (
            "placeholder_token",
            lambda: r.choice(["npm_" + "X" * 36, "ghp_" + "x" * 36, "pypi-" + "X" * 40]),
            [
                "CONTRIBUTING: put your own token in ~/.npmrc, e.g. //registry.npmjs.org/:_authToken=<V> (placeholder)",
                "docs example, replace before running: export TOKEN=<V>",
            ],
        ),
        (
            "angle_placeholder",
            lambda: r.choice(["<your-pypi-token>", "<NUGET_API_KEY>", "<paste token here>"]),
            [
                "release.md step 4: twine upload -u __token__ -p <V> dist/*",
                "template for new maintainers: cargo login <V>",
            ],
        ),
        (
            "redacted_token",
            lambda: r.choice(
                ["pypi-AgEI****", "npm_****************", "ghp_••••••••", "[REDACTED]", "xoxb-***"]
            ),
            [
                "CI log shows the token masked as <V>, so the masking works",
                "copied from the settings page (redacted): <V>",
                "reporter pasted their .pypirc in the issue; github scrubbed it to <V> and they rotated anyway",
            ],
        ),
        (
            "secret_reference_actions",
            lambda: r.choice(
                [
                    "${{ secrets.PYPI_API_TOKEN }}",
                    "${{ secrets.NPM_TOKEN }}",
                    "${{ secrets.GPG_PRIVATE_KEY }}",
                    "${{ secrets.CODECOV_TOKEN }}",
                ]
            ),
            [
                "publish job: env: TOKEN: <V> (environment 'release', needs reviewer approval)",
                "the workflow reads <V>; if it's empty on forks that's expected",
                '- run: echo "<V>" | gpg --batch --import   # secret itself only in repo settings',
            ],
        ),
        (
            "vault_reference",
            lambda: r.choice(
                [
                    "op://OurLib-Release/PyPI/credential",
                    "op://OurLib-Release/Sonatype/password",
                    "vault kv get -field=token secret/ourlib/npm",
                    "bw get password ourlib-gpg",
                ]
            ),
            [
                "tokens are NOT in this memory; fetch with `<V>` when cutting a release",
                "release checklist: step 2 get the credential via <V>",
            ],
        ),
        (
            "env_var_name_only",
            lambda: r.choice(
                [
                    "CARGO_REGISTRY_TOKEN",
                    "GEM_HOST_API_KEY",
                    "NUGET_API_KEY",
                    "MAVEN_GPG_PASSPHRASE",
                    "SONATYPE_PASSWORD",
                ]
            ),
            [
                "release env must define <V> (ask the lead maintainer, it's in 1Password)",
                "error 'missing <V>' on the tag build means the environment protection blocked it -- approve the deployment",
            ],
        ),
        (
            "revoked_token_prefix",
            revoked_prefix,
            [
                "leaked in a CI log on <DATE>; revoked within 10 min. only the prefix <V>… was visible, audit log clean",
                "old token starting <V> is dead (deleted from the account), ignore it in the shell history",
            ],
        ),
        (
            "trusted_publishing_config",
            lambda: "ourlib/ourlib/.github/workflows/release.yml",
            [
                "PyPI trusted publisher set up: repo+workflow <V>, environment pypi. no API token anymore",
                "crates.io trusted publishing uses OIDC from <V>, so CARGO_REGISTRY_TOKEN is gone",
            ],
        ),
        (
            "stripe_publishable_key",
            lambda: "pk_live_51" + s(ALNUM, 97),
            [
                "checkout page embeds the publishable key <V> (public by design; the sk_ is elsewhere)",
            ],
        ),
        (
            "algolia_search_key",
            lambda: hx(32),
            [
                "docsearch config: appId 'BH4D9OD16A', search-only apiKey '<V>' (public, ships in the docs JS)",
                "algolia search-only key rotated by docsearch team, new public key <V>",
            ],
        ),
        (
            "discord_invite",
            lambda: "https://discord.gg/" + s(ALNUM, 8),
            [
                "community Discord invite for the README badge: <V>",
                "permanent invite (no expiry) <V>",
            ],
        ),
        (
            "discord_snowflake_ids",
            lambda: str(r.randint(10**17, 10**18 - 1)),
            [
                "guild id <V>, #help forum channel is #<N>; the bot config only needs ids, token comes from env",
                "discord application id (public): <V>",
            ],
        ),
        (
            "slack_channel_id",
            lambda: "C0" + s(UP + DIG, 9),
            [
                "post release notes to channel <V> (#ourlib-releases)",
                "slack user id of the security contact: U0<SHORT>; channel <V>",
            ],
        ),
        (
            "matrix_room_id",
            lambda: "!" + s(ALNUM, 18) + ":matrix.org",
            [
                "matrix room id for #ourlib:matrix.org is <V>",
                "bridge config maps discord #general to <V>",
            ],
        ),
        (
            "cloudflare_zone_id",
            lambda: hx(32),
            [
                "ourlib.dev zone id <V> (not secret, needed in the purge URL)",
                "CF account id <V>; purge token is separate and in the vault",
            ],
        ),
        (
            "fastly_service_id",
            lambda: s(ALNUM, 22),
            [
                "fastly service id for cdn.ourlib.dev: <V>",
            ],
        ),
        (
            "github_app_ids",
            lambda: "Iv1." + hx(16),
            [
                "ourlib-bot GitHub App: app id <N>, client id <V> (public), installation id <N>",
                "OAuth client id for the docs login is <V>; client secret is in repo secrets only",
            ],
        ),
        (
            "rtd_webhook_url",
            lambda: f"https://readthedocs.org/api/v2/webhook/ourlib/{r.randint(10000, 299999)}/",
            [
                "RTD webhook endpoint: <V> (the secret field is set in GitHub, not stored here)",
            ],
        ),
        (
            "ci_run_ids",
            lambda: str(r.randint(10**10, 2 * 10**10)),
            [
                "failed run https://github.com/ourlib/ourlib/actions/runs/<V>, job: test (windows, 3.13)",
                "artifact id <V> has the built wheels for the rc",
            ],
        ),
        (
            "uuid_request_id",
            uuid,
            [
                "PyPI upload 400 error, request id <V>, opened support ticket",
                "RTD build <N> failed, build uuid <V>",
            ],
        ),
        (
            "sigstore_rekor_entry",
            lambda: "24296fb24b8ad77a" + hx(64),
            [
                "attestation for ourlib-<VER>.whl logged in rekor, entry uuid <V>",
                "pypi shows the PEP 740 attestation, rekor log entry <V>",
            ],
        ),
        (
            "sonatype_staging_repo",
            lambda: f"ioourlib-{r.randint(1000, 1999)}",
            [
                "staging repo <V> closed and released; Central sync took 25 min",
                "dropped staging repository <V> (bad pom, missing scm url)",
            ],
        ),
        (
            "dns_verification_txt",
            lambda: "OSSRH-" + str(r.randint(10000, 99999)),
            [
                "namespace verification: TXT record on ourlib.dev = <V>, can be removed now",
            ],
        ),
        (
            "google_site_verification",
            lambda: s(B64URL, 43),
            [
                'docs site head: <meta name="google-site-verification" content="<V>"> (public, search console)',
            ],
        ),
        (
            "rfc_test_vector",
            lambda: "0b" * 20,
            [
                "HMAC test uses RFC 4231 test case 1 key 0x<V> (public test vector, not a real secret)",
            ],
        ),
        (
            "hashed_filename",
            lambda: hx(8),
            [
                "docs build outputs assets/main.<V>.js; purge that path after deploy",
                "cache-busting hash changed to <V> after the theme bump",
            ],
        ),
        (
            "version_and_build_metadata",
            lambda: f"{ver()}+g{hx(9)}",
            [
                "setuptools-scm version on main is <V>",
                "nightly wheel reports version <V>, that's expected",
            ],
        ),
        (
            "token_in_tokenizer_sense",
            lambda: "TOKEN_" + r.choice(["IDENT", "STRING", "NUMBER", "LPAREN"]),
            [
                "parser bug #<N>: lexer emits <V> twice for escaped quotes; token stream dump attached",
                "new token type <V> must be added to the keyword table too",
            ],
        ),
        (
            "key_other_sense",
            lambda: r.choice(["sort_key", "cache_key", "primary_key", "key_func"]),
            [
                "API change in <VER>: rename `<V>` kwarg, keep the old name with a DeprecationWarning",
                "perf: <V> computed per call; memoize it (issue #<N>)",
            ],
        ),
        (
            "password_field_talk",
            lambda: "password_hash",
            [
                "user report: example app stores plain passwords; docs now show a <V> column with argon2",
            ],
        ),
        (
            "rotation_policy_talk",
            lambda: "",
            [
                "policy (agreed <DATE>): all publish tokens are project-scoped, rotated every 90 days, never pasted into chat or memory",
                "if a token leaks: revoke on the registry first, then rotate the repo secret, then write a short incident note",
                "we moved GPG signing to a hardware key; passphrase no longer needed in CI",
            ],
        ),
        (
            "codecov_badge_url",
            lambda: "https://codecov.io/gh/ourlib/ourlib/branch/main/graph/badge.svg",
            [
                "README coverage badge: <V>",
            ],
        ),
        (
            "coveralls_job_url",
            lambda: f"https://coveralls.io/builds/{r.randint(60000000, 79999999)}",
            [
                "coverage dropped 0.4% in <V>, it's the new untested windows branch",
            ],
        ),
        (
            "opencollective_slug",
            lambda: "https://opencollective.com/ourlib",
            [
                "sponsors page pulls the public backers list from <V>/members/all.json, no key needed",
            ],
        ),
        (
            "base64_nonsecret",
            lambda: base64.b64encode(
                b'{"schemaVersion":1,"label":"downloads","message":"2.3M/month"}'
            ).decode(),
            [
                "shields endpoint badge payload (base64 for the data URI): <V>",
            ],
        ),
        (
            "random_test_seed",
            lambda: hx(32),
            [
                "hypothesis found a failing example; reproduce with @reproduce_failure and seed blob <V>",
                "fuzz corpus entry id <V> crashes the parser (issue #<N>)",
            ],
        ),
        (
            "gpg_key_expiry_talk",
            lambda: hx(16).upper(),
            [
                "release key <V> expires <DATE>; extend expiry with `gpg --quick-set-expire` and re-upload the public key",
            ],
        ),
        (
            "nuget_cert_thumbprint",
            lambda: hx(64).upper(),
            [
                "nuget.org registered signing cert SHA-256 fingerprint: <V>",
            ],
        ),
        (
            "pypi_project_urls",
            lambda: "https://pypi.org/manage/project/ourlib/settings/publishing/",
            [
                "to add a trusted publisher go to <V> (owner access required)",
            ],
        ),
        (
            "secret_scanning_alert",
            lambda: f"alert #{r.randint(1, 80)}",
            [
                "secret scanning <V>: a slack webhook in an old example; it was already deleted in Slack, closed as revoked",
                "GitGuardian <V> was a false positive on a test fixture sha",
            ],
        ),
        (
            "crates_owner_team",
            lambda: "github:ourlib:release",
            [
                "cargo owner --add <V> ourlib-core so releases don't depend on one person",
            ],
        ),
    ]

    rows: list[dict] = []

    def add(label: str, specs: list) -> None:
        for kind, gen, templates in specs:
            for t in templates:
                v = gen()
                text = fill(t, v)
                if label == "benign" and kind == "rotation_policy_talk":
                    v = ""
                rows.append({"label": label, "kind": kind, "text": text, "value": v})

    add("secret", secret_specs)
    add("benign", benign_specs)

    # extra secret rows in other layouts: multi-line memos mixing look-alikes and a live value
    extra_secret = [
        (
            "npm_publish_token",
            npm,
            "release v<VER> checklist:\n- tag <SHA>\n- `npm publish --access public` with token <V>\n- verify integrity on npmjs",
        ),
        (
            "pypi_api_token",
            pypi,
            "Nota per chi rilascia: il token PyPI del progetto è <V> (scade mai, da ruotare)",
        ),
        (
            "gpg_passphrase",
            pw,
            "Passphrase der Signaturschlüssel für Releases: <V>\nFingerprint steht in KEYS.",
        ),
        (
            "discord_bot_token",
            discord_bot,
            "bot restarted after the outage; env was wiped so I re-set DISCORD_TOKEN='<V>'",
        ),
        (
            "cloudflare_api_token",
            lambda: s(B64URL, 40),
            'post-deploy hook:\n  curl -sX POST https://api.cloudflare.com/client/v4/zones/<SHORT>/purge_cache \\\n    -H "Authorization: Bearer <V>"',
        ),
        ("crates_io_token", cio, "rust release went fine. (token for next time: <V>)"),
        (
            "sonatype_user_token",
            lambda: s(ALNUM, 44),
            "settings.xml server central: <username>Xk29aQ</username><password><V></password>",
        ),
        (
            "github_pat_classic",
            gh_classic,
            "triage script 429s without auth -> run with GITHUB_TOKEN=<V> python scripts/label_stale.py",
        ),
        (
            "codecov_upload_token",
            uuid,
            "codecov upload 'Token required' on main -> fixed by passing -t <V> to the uploader",
        ),
        (
            "slack_webhook_url",
            slack_hook,
            "security advisories auto-post to #sec via <V> (GHSA webhook relay)",
        ),
        ("rubygems_api_key", rubygems, "ruby maintainer on leave; gem push key handed over: <V>"),
        (
            "matrix_access_token",
            matrix,
            'matrix bot login returned {"access_token": "<V>", "device_id": "OURLIBBOT"}',
        ),
    ]
    for kind, gen, t in extra_secret:
        v = gen()
        rows.append({"label": "secret", "kind": kind, "text": fill(t, v), "value": v})

    extra_benign = [
        (
            "git_commit_sha",
            lambda: hx(40),
            "Merge-base for the 4.x branch: <V>\n(needed for `git log <V>..main --oneline` when writing notes)",
        ),
        (
            "git_commit_sha",
            lambda: hx(40),
            "Co-authored-by trailers were lost in squash <V>; re-credit in the release notes",
        ),
        ("release_sha256", lambda: hx(64), 'Homebrew PR: url .../v<VER>.tar.gz\nsha256 "<V>"'),
        (
            "release_sha256",
            lambda: hx(64),
            "reproducible build check: two CI runs gave the same wheel hash <V>, so SOURCE_DATE_EPOCH works",
        ),
        (
            "gpg_fingerprint",
            gpg_fpr,
            "Schlüssel-Fingerabdruck für die Release-Signatur: <V> (öffentlich)",
        ),
        (
            "gpg_fingerprint",
            lambda: hx(40).upper(),
            "keys.openpgp.org confirmed email for <V>, WKD also serves it now",
        ),
        (
            "gpg_long_key_id",
            lambda: hx(16).upper(),
            "sec   ed25519/<V> 2025-03-02 [SC] [expires: 2027-03-02]\n(output of gpg -K; the secret key never leaves the yubikey)",
        ),
        (
            "ssh_public_key",
            lambda: "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABgQ" + s(B64, 200),
            "new deploy key pub for the gh-pages repo: <V> ourlib-docs-deploy-<DATE>",
        ),
        (
            "ssh_host_fingerprint",
            lambda: "SHA256:" + s(B64, 43),
            "known_hosts pin for the sftp mirror (verify, don't TOFU): <V>",
        ),
        (
            "npm_integrity",
            npm_integrity,
            'yarn.lock:\n"ourlib@^<VER>":\n  version "<VER>"\n  integrity <V>',
        ),
        (
            "npm_integrity",
            lambda: "sha1-" + b64raw(20),
            "old lockfile v1 entry still has <V>; regenerate with npm 10",
        ),
        (
            "docker_image_digest",
            lambda: "sha256:" + hx(64),
            "renovate pinned python:3.13-slim@<V> in the docs Dockerfile",
        ),
        (
            "pinned_action_sha",
            lambda: hx(40),
            "zizmor flagged unpinned action; pinned sigstore/gh-action-sigstore-python to <V>",
        ),
        (
            "issue_pr_numbers",
            lambda: f"#{r.randint(1000, 9999)}",
            "good first issue candidates: <V>, #<N>, #<N> (all docs typos)",
        ),
        (
            "issue_pr_numbers",
            lambda: f"gh-{r.randint(1000, 9999)}",
            "regression from <V>; the fix needs a test with an empty token list",
        ),
        (
            "cve_id",
            lambda: f"CVE-20{r.choice(['25', '26'])}-{r.randint(10000, 59999)}",
            "embargo lifts <DATE> 14:00 UTC for <V>; coordinate with distro packagers via linux-distros list",
        ),
        (
            "ghsa_id",
            ghsa,
            "pip-audit in CI reports <V> on a dev dependency (sphinx), ignore until upstream release",
        ),
        (
            "zenodo_doi",
            lambda: f"10.5281/zenodo.{r.randint(1000000, 17000000)}",
            "Zenodo minted version DOI <V> for v<VER> automatically via the GitHub integration",
        ),
        (
            "zenodo_doi",
            lambda: f"10.21105/joss.{r.randint(1000, 8999):05d}",
            "JOSS DOI for the paper: <V>",
        ),
        ("orcid", orcid, "authors list sync: Dana K. (ORCID <V>) wants affiliation updated"),
        (
            "redacted_token",
            lambda: "npm_" + "*" * 32,
            "npm token list shows: <V>  publish  created <DATE>  (CIDR none)",
        ),
        (
            "redacted_token",
            lambda: "sk-proj-…" + s(ALNUM, 4),
            "OpenAI dashboard lists our key only as <V>; the full value was never saved anywhere",
        ),
        (
            "secret_reference_actions",
            lambda: "${{ secrets.DISCORD_WEBHOOK }}",
            "announce job posts to Discord using <V>; forks skip it",
        ),
        (
            "secret_reference_actions",
            lambda: "${{ secrets.CF_PURGE_TOKEN }}",
            "docs deploy step 3 purges cache with bearer <V>",
        ),
        (
            "vault_reference",
            lambda: "op read op://OurLib-Community/discord-bot/token",
            "bot deploy: DISCORD_TOKEN=$(<V>) fly deploy",
        ),
        (
            "env_var_name_only",
            lambda: "SLACK_BOT_TOKEN",
            "bot crashes with KeyError: '<V>' when run locally; copy .env.example and fill it yourself",
        ),
        (
            "env_var_name_only",
            lambda: "MATRIX_ACCESS_TOKEN=",
            "the .env.example has <V> (empty) on purpose",
        ),
        (
            "revoked_token_prefix",
            revoked_prefix,
            "GitHub secret scanning partner auto-revoked the token (prefix <V>) that was pushed in a test file; nothing to rotate",
        ),
        (
            "revoked_token_prefix",
            lambda: "rubygems_" + hx(4),
            "rubygems key <V>… removed on <DATE> after the maintainer left; new key issued to the team account",
        ),
        (
            "placeholder_token",
            lambda: "cio" + "0" * 32,
            "docs: cargo login takes a token like <V> (dummy shown, don't copy)",
        ),
        (
            "placeholder_token",
            lambda: "xoxb-000000000000-0000000000000-EXAMPLEEXAMPLEEXAMPLE",
            "slack bot README example: SLACK_BOT_TOKEN=<V>",
        ),
        (
            "docs_example_token",
            lambda: "ghp_16C7e42F292c6912E7710c838347Ae178B4a",
            "GitHub docs sample token (from their REST auth page) used in our tutorial: <V>; it's the published example",
        ),
        (
            "stripe_publishable_key",
            lambda: "pk_test_" + s(ALNUM, 99),
            "test-mode publishable key for the sponsor page staging: <V>",
        ),
        (
            "discord_snowflake_ids",
            lambda: str(r.randint(10**17, 10**18 - 1)),
            "moderator role id <V>; used in the bot's permission check",
        ),
        ("cloudflare_zone_id", lambda: hx(32), "Cloudflare Pages project id <V> for docs-preview"),
        (
            "github_app_ids",
            lambda: str(r.randint(100000, 999999)),
            "APP_ID=<V> (public numeric id; private key lives in the repo secret APP_PRIVATE_KEY)",
        ),
        (
            "ci_run_ids",
            lambda: str(r.randint(10**10, 2 * 10**10)),
            "rerun <V> passed; windows flake again (test_unicode_paths)",
        ),
        (
            "uuid_request_id",
            uuid,
            "Sonatype Central deployment id <V> FAILED validation: missing javadoc jar",
        ),
        ("uuid_request_id", uuid, "codecov commit report id <V> shows the upload arrived twice"),
        (
            "sigstore_rekor_entry",
            lambda: str(r.randint(10**8, 2 * 10**8)),
            "rekor log index <V> for the v<VER> sdist signature",
        ),
        ("hashed_filename", lambda: hx(20), "webpack chunk vendors.<V>.js is 1.2MB, split it"),
        (
            "random_test_seed",
            lambda: str(r.randint(10**9, 2**32)),
            "pytest-randomly seed <V> reproduces the ordering bug",
        ),
        (
            "key_other_sense",
            lambda: "keyring",
            "issue #<N>: twine picks up the <V> backend on linux and hangs; set PYTHON_KEYRING_BACKEND to null",
        ),
        (
            "token_in_tokenizer_sense",
            lambda: "max_tokens=4096",
            "benchmark for the summarize example uses <V>; token counts are in the README table",
        ),
        (
            "password_field_talk",
            lambda: "SecretStr",
            "pydantic model for the config now types the password as <V> so it never prints in repr",
        ),
        (
            "rotation_policy_talk",
            lambda: "",
            "reminder: the nuget key expires on <DATE>; renew it in the nuget.org UI and update the repo secret (don't paste it here)",
        ),
        (
            "rotation_policy_talk",
            lambda: "",
            "Sonatype creds moved from the old JIRA account to a Central Portal user token, stored only in the release environment",
        ),
        (
            "gpg_key_expiry_talk",
            lambda: hx(16).upper(),
            "Maven Central rejects signatures from expired key <V>; the renewed key has the same fingerprint",
        ),
        (
            "maven_checksum",
            lambda: hx(32),
            "md5 of ourlib-core-<VER>.pom is <V> (Central still wants md5 sidecars)",
        ),
        (
            "secret_scanning_alert",
            lambda: "push protection",
            "<V> blocked a commit with a pypi- string in tests/fixtures; it was a fake, bypassed as 'used in tests'",
        ),
        (
            "sri_hash",
            lambda: "sha256-" + b64raw(32),
            "CSP header for the docs: script-src 'self' '<V>' (inline theme script hash)",
        ),
        (
            "cargo_lock_checksum",
            lambda: hx(64),
            "vendored crate tarball checksum changed to <V> after yanking 0.9.3",
        ),
    ]
    for kind, gen, t in extra_benign:
        v = gen()
        rows.append({"label": "benign", "kind": kind, "text": fill(t, v), "value": v})

    for row in rows:
        assert row["value"] in row["text"], row
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

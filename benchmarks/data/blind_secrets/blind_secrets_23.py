"""Blind secrets corpus 23: open-source maintainers and CI/CD engineers.

Brief: GitHub Actions, GitLab CI, CircleCI, Buildkite, Jenkins, Argo CD, Terraform Cloud,
release signing (GPG, cosign/sigstore, Apple notarization, Windows code signing), package
publishing (npm, PyPI, crates.io, RubyGems, Maven Central, NuGet, Docker Hub, GHCR), bots and
webhooks; plus look-alikes (commit and tag SHAs, OIDC subjects and claims, run and job ids,
public keys, signatures, SBOM and image digests, checksums, masked `***` values in logs).

Written blind on 2026-12-06: the author did not read the detector, its tests or any earlier corpus.

Run:
    python benchmarks/data/blind_secrets/blind_secrets_23.py /tmp/blind23.jsonl
(without an argument the JSONL goes to stdout). Every random value comes from
random.Random(SEED); none is a real credential.

Kinds
  secret (74):
    github_pat_classic, github_pat_fine_grained, github_oauth_token,
    github_app_installation_token, github_refresh_token, github_app_private_key,
    github_webhook_secret, gitlab_pat, gitlab_runner_registration_token,
    gitlab_runner_auth_token, gitlab_deploy_token, gitlab_trigger_token,
    gitlab_ci_job_token_leak, circleci_personal_token, circleci_project_token,
    buildkite_api_token, buildkite_agent_token, jenkins_api_token,
    jenkins_initial_admin_password, argocd_admin_password, argocd_auth_token,
    terraform_cloud_token, pgp_private_key, gpg_passphrase, cosign_private_key,
    cosign_password, apple_app_specific_password, app_store_connect_p8, windows_pfx_password,
    windows_pfx_base64, azure_client_secret, npm_automation_token, npm_legacy_uuid_token,
    pypi_api_token, testpypi_token, crates_io_token, rubygems_api_key,
    maven_central_user_token, ossrh_password, nuget_api_key, dockerhub_pat,
    docker_config_auth, ghcr_login_pat, slack_webhook_url, slack_bot_token,
    discord_webhook_url, telegram_bot_token, gitlab_webhook_secret_token,
    buildkite_webhook_token, codecov_upload_token, sonarcloud_token, snyk_token,
    aws_access_key_pair, gcp_service_account_key, vault_token, github_oidc_id_token_live,
    actions_runtime_token, ssh_deploy_key, minisign_secret_key, signing_key_password,
    android_keystore_password, vscode_marketplace_pat, jetbrains_marketplace_token,
    openvsx_token, sentry_auth_token, cloudflare_api_token, database_url_in_ci,
    doppler_service_token, heroku_api_key, k8s_sa_token_for_argo, gitea_access_token,
    netlify_auth_token, actions_runner_registration_token, jfrog_access_token
  benign (111):
    commit_sha, short_sha, annotated_tag_object_sha, pinned_action_sha, github_run_id,
    github_job_id, gitlab_pipeline_job_ids, buildkite_build_uuid, circleci_workflow_id,
    jenkins_build_tag, oidc_subject, oidc_decoded_claims, oidc_claims_segment_only,
    fulcio_san, pgp_public_key_block, gpg_fingerprint, gpg_long_key_id, gpg_keygrip,
    cosign_public_key, cosign_signature, rekor_entry_uuid, fulcio_certificate, image_digest,
    sbom_digest, spdx_document_namespace, slsa_provenance_subject, sha256sums_line,
    sha512_checksum, npm_integrity, pip_hash_pin, cargo_lock_checksum, go_sum_hash,
    masked_log_value, masked_gitlab_value, secrets_context_reference, ci_variable_reference,
    vault_path_reference, op_reference, jenkins_credentials_id, placeholder_token,
    angle_bracket_placeholder, documented_example_key, jwt_io_example,
    truncated_revoked_token, token_last_four, apple_team_id, notary_submission_id,
    asc_key_id_issuer, cert_thumbprint, ssh_public_key, ssh_host_fingerprint,
    ssh_signature_block, pgp_detached_signature, minisign_public_key, age_public_key,
    github_app_ids, github_delivery_guid, webhook_signature_header, gitlab_event_uuid,
    slack_ids, tfc_workspace_run_ids, argocd_sync_revision, docker_image_id,
    actions_cache_key, turbo_or_bazel_hash, aws_role_arn, azure_ids,
    pypi_trusted_publisher_config, secret_names_listing, token_hash_stored,
    talk_about_rotation, password_policy_talk, token_other_sense, key_other_sense,
    secret_word_in_prose, base64_non_secret, uuid_request_id, public_jwks_modulus,
    docker_content_trust_key_id, npm_provenance_log_index, dependabot_branch,
    webhook_url_without_secret, example_pem_header_only, random_build_nonce,
    gitlab_oidc_subject, circleci_oidc_subject, tfc_oidc_subject, npm_shasum,
    nuget_content_hash, maven_md5, git_blob_sha, sigstore_bundle_signature,
    sealed_secret_ciphertext, sops_encrypted_value, ansible_vault_blob, travis_secure_value,
    keychain_profile_name, installation_id, semver_build_metadata, empty_password_field,
    env_example_changeme, zeroed_test_fixture_token, permissions_block, docs_hmac_test_vector,
    cosign_verify_output, rekor_log_id, buildkite_redacted, jenkins_masked_stars,
    circleci_context_talk, gitlab_vault_secret_ref, argocd_target_revision
"""

import base64
import json
import random
import string
import sys

SEED = 523023

ALNUM = string.ascii_letters + string.digits
LOWER_ALNUM = string.ascii_lowercase + string.digits
HEX = "0123456789abcdef"
B64 = string.ascii_letters + string.digits + "+/"
B64URL = string.ascii_letters + string.digits + "-_"

SECRET_KINDS: list[str] = []
BENIGN_KINDS: list[str] = []


def corpus() -> list[dict]:
    rng = random.Random(SEED)

    def rs(alphabet: str, n: int) -> str:
        return "".join(rng.choice(alphabet) for _ in range(n))

    def uuid() -> str:
        h = rs(HEX, 32)
        return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{rng.choice('89ab')}{h[17:20]}-{h[20:]}"

    def b64u(obj: dict) -> str:
        raw = json.dumps(obj, separators=(",", ":")).encode()
        return base64.urlsafe_b64encode(raw).decode().rstrip("=")

    def jwt(payload: dict, alg: str = "RS256") -> str:
        head = b64u({"alg": alg, "typ": "JWT", "kid": rs(HEX, 16)})
        return f"{head}.{b64u(payload)}.{rs(B64URL, 342 if alg == 'RS256' else 43)}"

    def pem(label: str, lines: int = 8) -> str:
        body = "\n".join(rs(B64, 64) for _ in range(lines))
        return f"-----BEGIN {label}-----\n{body}\n{rs(B64, 20)}==\n-----END {label}-----"

    def pw(n: int = 18) -> str:
        return rs(ALNUM + "!#%^*-_=+", n)

    # ---- secret value generators -------------------------------------------------
    def ghp() -> str:
        return "ghp_" + rs(ALNUM, 36)

    def gh_fine() -> str:
        return (
            "github_pat_11" + rs(string.ascii_uppercase + string.digits, 20) + "_" + rs(ALNUM, 59)
        )

    def oidc_live() -> str:
        now = 1796000000 + rng.randint(0, 9999999)
        return jwt(
            {
                "jti": uuid(),
                "sub": "repo:octo-org/widget:ref:refs/heads/main",
                "aud": "sts.amazonaws.com",
                "iss": "https://token.actions.githubusercontent.com",
                "exp": now + 300,
                "iat": now,
            }
        )

    def argocd_jwt() -> str:
        now = 1796000000 + rng.randint(0, 9999999)
        return jwt(
            {"iss": "argocd", "sub": "ci-deployer:apiKey", "nbf": now, "iat": now, "jti": uuid()},
            alg="HS256",
        )

    def pypi() -> str:
        return "pypi-AgEIcHlwaS5vcmc" + rs(B64URL, 140)

    def testpypi() -> str:
        return "pypi-AgENdGVzdC5weXBpLm9yZw" + rs(B64URL, 130)

    def docker_auth() -> str:
        return base64.b64encode(f"relbot:dckr_pat_{rs(B64URL, 27)}".encode()).decode()

    def gcp_key_json() -> str:
        key = pem("PRIVATE KEY", 6).replace("\n", "\\n")
        return key

    def minisign_sk() -> str:
        return "RWRTY0Iy" + rs(B64, 204) + "="

    sec: list[tuple[str, object, list[str]]] = [
        (
            "github_pat_classic",
            ghp,
            [
                "Release bot PAT (classic, repo + workflow scopes) for the homebrew tap "
                "bump: <<V>>",
                "gh auth login --with-token <<< <<V>>   # maintainer account, expires in 90 days",
                "HOMEBREW_GITHUB_API_TOKEN=<<V>>\nset this in the tap-bump job, not in "
                "the repo env",
            ],
        ),
        (
            "github_pat_fine_grained",
            gh_fine,
            [
                "Fine-grained PAT scoped to octo-org/widget (contents:write, "
                "pull_requests:write):\n<<V>>",
                "renovate self-hosted: RENOVATE_TOKEN=<<V>>",
                "note to self: changesets action needs a PAT so the release PR triggers CI. "
                "Using <<V>> for now",
            ],
        ),
        (
            "github_oauth_token",
            lambda: "gho_" + rs(ALNUM, 36),
            [
                "~/.config/gh/hosts.yml on the build box:\ngithub.com:\n    user: relbot\n"
                "    oauth_token: <<V>>\n    git_protocol: https",
                "The gh CLI token I copied from `gh auth token` on the release laptop: <<V>>",
            ],
        ),
        (
            "github_app_installation_token",
            lambda: "ghs_" + rs(ALNUM, 36),
            [
                "Installation token minted for the docs-bot app (valid 1h), pushing to gh-pages "
                "with it: <<V>>",
                "Debug step accidentally echoed GITHUB_TOKEN unmasked because it was base64'd "
                "then decoded: <<V>>",
                "git remote set-url origin "
                "https://x-access-token:<<V>>@github.com/octo-org/widget.git",
            ],
        ),
        (
            "github_refresh_token",
            lambda: "ghr_" + rs(ALNUM, 76),
            [
                "GitHub App user-to-server refresh token for the triage bot (refresh "
                "every 8h): <<V>>",
                "refresh_token=<<V>>&grant_type=refresh_token  <- what the bot POSTs to "
                "/login/oauth/access_token",
            ],
        ),
        (
            "github_app_private_key",
            lambda: pem("RSA PRIVATE KEY", 4),
            [
                "Private key for GitHub App 'widget-release' (app id 412733), store as "
                "APP_PRIVATE_KEY:\n<<V>>",
                "downloaded widget-bot.2026-11-30.private-key.pem, contents:\n<<V>>",
            ],
        ),
        (
            "github_webhook_secret",
            lambda: rs(HEX, 40),
            [
                "Webhook secret for the org-level hook -> probot app (used to verify "
                "X-Hub-Signature-256): <<V>>",
                "WEBHOOK_SECRET=<<V>>\nmust match what is set on Settings > Webhooks",
                "Jenkins GitHub plugin shared secret (credential id gh-hook-secret) = <<V>>",
            ],
        ),
        (
            "gitlab_pat",
            lambda: "glpat-" + rs(B64URL, 20),
            [
                "GitLab PAT (api, write_repository) for the mirror job: <<V>>",
                "git clone https://oauth2:<<V>>@gitlab.example.org/platform/ci-templates.git",
                "export GITLAB_TOKEN=<<V>>  # glab CLI, self-managed instance",
            ],
        ),
        (
            "gitlab_runner_registration_token",
            lambda: "GR1348941" + rs(B64URL, 20),
            [
                "gitlab-runner register --url https://gitlab.example.org "
                "--registration-token <<V>> --executor docker",
                "Runner registration token for the platform group (old flow, still enabled): <<V>>",
            ],
        ),
        (
            "gitlab_runner_auth_token",
            lambda: "glrt-" + rs(B64URL, 20),
            [
                '/etc/gitlab-runner/config.toml\n[[runners]]\n  name = "arm64-builder"\n'
                '  url = "https://gitlab.example.org"\n  token = "<<V>>"',
                "New runner auth token from the UI (shown once): <<V>>",
            ],
        ),
        (
            "gitlab_deploy_token",
            lambda: "gldt-" + rs(B64URL, 20),
            [
                "Deploy token for pulling from the container registry, user gitlab+deploy-token-17:"
                " <<V>>",
                "docker login registry.example.org -u gitlab+deploy-token-4 -p <<V>>",
            ],
        ),
        (
            "gitlab_trigger_token",
            lambda: "glptt-" + rs(HEX, 40),
            [
                'curl -X POST -F token=<<V>> -F ref=main "https://gitlab.example.org/api/v4/'
                'projects/88/trigger/pipeline"',
                "Pipeline trigger token for the nightly docs rebuild: <<V>>",
            ],
        ),
        (
            "gitlab_ci_job_token_leak",
            lambda: "glcbt-" + rs(HEX, 2) + "_" + rs(B64URL, 20),
            [
                "Job log printed CI_JOB_TOKEN in clear because set -x ran before masking kicked "
                "in: <<V>> (job still running when I copied it)",
            ],
        ),
        (
            "circleci_personal_token",
            lambda: "CCIPAT_" + rs(ALNUM, 22) + "_" + rs(HEX, 40),
            [
                "CircleCI personal API token for the `circleci` CLI: <<V>>",
                "curl -H 'Circle-Token: <<V>>' https://circleci.com/api/v2/me",
            ],
        ),
        (
            "circleci_project_token",
            lambda: rs(HEX, 40),
            [
                "CircleCI project API token (widget, scope: all) used by the release "
                "trigger script: CIRCLE_TOKEN=<<V>>",
                "circleci context 'publish' -> CIRCLECI_API_TOKEN = <<V>>",
            ],
        ),
        (
            "buildkite_api_token",
            lambda: "bkua_" + rs(HEX, 40),
            [
                "Buildkite API token (read_builds, write_builds) for the bk CLI: <<V>>",
                "BUILDKITE_API_TOKEN=<<V>> bk build create --pipeline widget",
            ],
        ),
        (
            "buildkite_agent_token",
            lambda: rs(HEX, 50),
            [
                'buildkite-agent.cfg on the mac minis:\ntoken="<<V>>"\ntags="queue=macos"',
                "Agent token for the default cluster, put it in the ASG launch template: <<V>>",
            ],
        ),
        (
            "jenkins_api_token",
            lambda: "11" + rs(HEX, 32),
            [
                "Jenkins API token for user relbot (crumb not needed with token): <<V>>",
                "curl -u deploy:<<V>> https://ci.example.org/job/widget/buildWithParameters",
                "jenkins-cli: java -jar jenkins-cli.jar -s https://ci.example.org/ -auth "
                "admin:<<V>> list-jobs",
            ],
        ),
        (
            "jenkins_initial_admin_password",
            lambda: rs(HEX, 32),
            [
                "cat /var/jenkins_home/secrets/initialAdminPassword -> <<V>> "
                "(new controller, setup wizard not done yet)",
                "Unlock Jenkins with <<V>>, haven't created the real admin user yet",
            ],
        ),
        (
            "argocd_admin_password",
            lambda: rs(ALNUM + "-", 16),
            [
                "argocd admin initial-password -n argocd\n<<V>>\n(still the bootstrap admin, "
                "rotate after SSO is wired)",
                "argocd login argocd.example.org --username admin --password <<V>>",
            ],
        ),
        (
            "argocd_auth_token",
            argocd_jwt,
            [
                "ARGOCD_AUTH_TOKEN for the ci-deployer account (no expiry): <<V>>",
                "argocd account generate-token --account ci-deployer gave me\n<<V>>",
            ],
        ),
        (
            "terraform_cloud_token",
            lambda: rs(ALNUM, 14) + ".atlasv1." + rs(ALNUM, 67),
            [
                '~/.terraform.d/credentials.tfrc.json\n{"credentials": {"app.terraform.io": '
                '{"token": "<<V>>"}}}',
                "TFC team token for the 'platform-apply' team: <<V>>",
                "TF_TOKEN_app_terraform_io=<<V>>  (set in the Actions env for the plan job)",
            ],
        ),
        (
            "pgp_private_key",
            lambda: pem("PGP PRIVATE KEY BLOCK", 4),
            [
                "Release signing subkey export (gpg --export-secret-subkeys), import on the "
                "signing runner:\n<<V>>",
                "GPG_PRIVATE_KEY secret for the Maven Central deploy job:\n<<V>>",
            ],
        ),
        (
            "gpg_passphrase",
            pw,
            [
                "Passphrase for the release signing key 0x9F3C1A7E2B6D4C80: <<V>>",
                "MAVEN_GPG_PASSPHRASE=<<V>>",
                "gpg --batch --pinentry-mode loopback --passphrase '<<V>>' --detach-sign "
                "dist/widget-2.4.0.tar.gz",
            ],
        ),
        (
            "cosign_private_key",
            lambda: pem("ENCRYPTED SIGSTORE PRIVATE KEY", 4),
            [
                "cosign.key (goes with COSIGN_PASSWORD in the same secret store):\n<<V>>",
            ],
        ),
        (
            "cosign_password",
            pw,
            [
                "COSIGN_PASSWORD=<<V>> cosign sign --key cosign.key "
                "ghcr.io/octo-org/widget@sha256:...",
                "password for cosign.key generated with `cosign generate-key-pair`: <<V>>",
            ],
        ),
        (
            "apple_app_specific_password",
            lambda: "-".join(rs(string.ascii_lowercase, 4) for _ in range(4)),
            [
                "xcrun notarytool store-credentials widget-notary --apple-id rel@example.org "
                "--team-id 7QX4K2M9ZP --password <<V>>",
                "App-specific password for notarization (Apple ID releases@example.org): <<V>>",
                "AC_PASSWORD=<<V>>  # gon / notarytool",
            ],
        ),
        (
            "app_store_connect_p8",
            lambda: pem("PRIVATE KEY", 4),
            [
                "AuthKey_4XK29PQ7LM.p8 for notarytool --key, issuer id is in 1Password too:\n<<V>>",
                "APP_STORE_CONNECT_API_KEY_CONTENT:\n<<V>>",
            ],
        ),
        (
            "windows_pfx_password",
            pw,
            [
                "signtool sign /f widget-ev.pfx /p <<V>> /tr http://timestamp.digicert.com "
                "/td sha256 /fd sha256 widget-setup.exe",
                "WINDOWS_CERT_PASSWORD (for the base64'd .pfx in WINDOWS_CERT_PFX): <<V>>",
            ],
        ),
        (
            "windows_pfx_base64",
            lambda: "MII" + rs(B64, 380) + "=",
            [
                "WINDOWS_CERT_PFX (base64 of the code signing .pfx, password-protected but the "
                "password is stored right next to it):\n<<V>>",
            ],
        ),
        (
            "azure_client_secret",
            lambda: rs(ALNUM, 3) + "8Q~" + rs(ALNUM + "_.-~", 34),
            [
                "Azure Trusted Signing: AZURE_CLIENT_SECRET=<<V>> (app reg widget-signer)",
                "client secret for the sp that azuresigntool uses: <<V>>  expires 2027-06",
            ],
        ),
        (
            "npm_automation_token",
            lambda: "npm_" + rs(ALNUM, 36),
            [
                "npm automation token for publishing @octo/widget (bypasses 2FA): <<V>>",
                "//registry.npmjs.org/:_authToken=<<V>>",
                "NODE_AUTH_TOKEN=<<V>> npm publish --provenance --access public",
            ],
        ),
        (
            "npm_legacy_uuid_token",
            uuid,
            [
                ".npmrc on the old jenkins box:\n//registry.npmjs.org/:_authToken=<<V>>\n"
                "always-auth=true",
                "legacy npm publish token (pre-granular, still works): <<V>>",
            ],
        ),
        (
            "pypi_api_token",
            pypi,
            [
                "PyPI project token for widget (scope: project widget): <<V>>",
                "~/.pypirc\n[pypi]\n  username = __token__\n  password = <<V>>",
                "TWINE_USERNAME=__token__ TWINE_PASSWORD=<<V>> twine upload dist/*",
            ],
        ),
        (
            "testpypi_token",
            testpypi,
            [
                "TestPyPI token for dry-run releases: <<V>>",
                "[testpypi]\nrepository = https://test.pypi.org/legacy/\nusername = __token__\n"
                "password = <<V>>",
            ],
        ),
        (
            "crates_io_token",
            lambda: "cio" + rs(ALNUM, 32),
            [
                "CARGO_REGISTRY_TOKEN=<<V>>",
                "crates.io token 'release-ci' (publish-update scope): <<V>>",
                '~/.cargo/credentials.toml\n[registry]\ntoken = "<<V>>"',
            ],
        ),
        (
            "rubygems_api_key",
            lambda: "rubygems_" + rs(HEX, 48),
            [
                "~/.gem/credentials\n---\n:rubygems_api_key: <<V>>",
                "GEM_HOST_API_KEY=<<V>> gem push widget-2.4.0.gem",
            ],
        ),
        (
            "maven_central_user_token",
            lambda: rs(ALNUM + "+/", 44),
            [
                "settings.xml server central: <username>Xk3pQ9wZ</username>\n"
                "<password><<V>></password>",
                "Central Portal user token password (username part is Hy7Rb2Lq): <<V>>",
            ],
        ),
        (
            "ossrh_password",
            pw,
            [
                "OSSRH_PASSWORD for the legacy s01.oss.sonatype.org deploy: <<V>>",
                "gradle.properties (user home, not the repo!)\nossrhUsername=relbot\n"
                "ossrhPassword=<<V>>\nsigning.keyId=2B6D4C80",
            ],
        ),
        (
            "nuget_api_key",
            lambda: "oy2" + rs(string.ascii_lowercase + string.digits, 43),
            [
                "dotnet nuget push bin/Release/Widget.2.4.0.nupkg --api-key <<V>> "
                "--source https://api.nuget.org/v3/index.json",
                "NuGet API key (glob Widget.*, push new versions), expires in 365 days: <<V>>",
            ],
        ),
        (
            "dockerhub_pat",
            lambda: "dckr_pat_" + rs(B64URL, 27),
            [
                "Docker Hub access token for octoorg (read/write): <<V>>",
                "echo <<V>> | docker login -u octoorg --password-stdin",
                "DOCKERHUB_TOKEN=<<V>>",
            ],
        ),
        (
            "docker_config_auth",
            docker_auth,
            [
                '~/.docker/config.json on the runner: {"auths": {"https://index.docker.io/v1/": '
                '{"auth": "<<V>>"}}}',
                "The base64 `auth` blob from the runner's docker config (user:token): <<V>>",
            ],
        ),
        (
            "ghcr_login_pat",
            ghp,
            [
                "echo <<V>> | docker login ghcr.io -u relbot --password-stdin  (write:packages)",
                "PAT for pushing to ghcr.io/octo-org from the Buildkite agents: <<V>>",
            ],
        ),
        (
            "slack_webhook_url",
            lambda: (
                "https://hooks.slack.com/services/T"
                + rs(string.ascii_uppercase + string.digits, 8)
                + "/B"
                + rs(string.ascii_uppercase + string.digits, 10)
                + "/"
                + rs(ALNUM, 24)
            ),
            [
                "Release announcements go to #releases via <<V>>",
                "SLACK_WEBHOOK_URL=<<V>>",
                "build-failure notifier webhook: <<V>>",
            ],
        ),
        (
            "slack_bot_token",
            lambda: (
                "xoxb-" + rs(string.digits, 12) + "-" + rs(string.digits, 13) + "-" + rs(ALNUM, 24)
            ),
            [
                "Slack bot token for the deploy-bot app (chat:write): <<V>>",
                "SLACK_BOT_TOKEN=<<V>>",
            ],
        ),
        (
            "discord_webhook_url",
            lambda: (
                "https://discord.com/api/webhooks/" + rs(string.digits, 19) + "/" + rs(B64URL, 68)
            ),
            [
                "Discord webhook for the #announcements channel: <<V>>",
                "DISCORD_WEBHOOK=<<V>>",
            ],
        ),
        (
            "telegram_bot_token",
            lambda: str(rng.randint(5000000000, 7999999999)) + ":AA" + rs(B64URL, 33),
            [
                "Telegram bot for release pings: <<V>> (chat id -1001234567890)",
                "TELEGRAM_TOKEN=<<V>>",
            ],
        ),
        (
            "gitlab_webhook_secret_token",
            lambda: rs(ALNUM, 32),
            [
                "GitLab webhook 'Secret token' for the argo events sensor: <<V>>",
                "X-Gitlab-Token we expect on incoming hooks: <<V>>",
            ],
        ),
        (
            "buildkite_webhook_token",
            lambda: rs(HEX, 32),
            [
                "Buildkite notification service token (X-Buildkite-Token) for the build-status "
                "relay: <<V>>",
            ],
        ),
        (
            "codecov_upload_token",
            uuid,
            [
                "CODECOV_TOKEN=<<V>> (repo upload token, widget)",
                "codecov upload token for the private fork: <<V>>",
            ],
        ),
        (
            "sonarcloud_token",
            lambda: "sqp_" + rs(HEX, 40),
            [
                "SONAR_TOKEN=<<V>>",
                "sonar-scanner -Dsonar.token=<<V>> -Dsonar.projectKey=octo_widget",
            ],
        ),
        (
            "snyk_token",
            uuid,
            ["SNYK_TOKEN=<<V>> (service account, org widget)", "snyk auth <<V>>"],
        ),
        (
            "aws_access_key_pair",
            lambda: rs(ALNUM + "/+", 40),
            [
                "Old long-lived CI user (before OIDC): AWS_ACCESS_KEY_ID=AKIA"
                + "Q7RZ3XW2NLKP4T6M AWS_SECRET_ACCESS_KEY=<<V>>",
                "[ci-publisher]\naws_access_key_id = AKIAZ4M8VQ2KD7H3XN5R\n"
                "aws_secret_access_key = <<V>>",
                "S3 artifact bucket uploader secret key: <<V>>",
            ],
        ),
        (
            "gcp_service_account_key",
            gcp_key_json,
            [
                '{"type": "service_account", "project_id": "widget-ci", "private_key_id": '
                '"3f1c0a", "private_key": "<<V>>", "client_email": '
                '"gar-pusher@widget-ci.iam.gserviceaccount.com"}',
            ],
        ),
        (
            "vault_token",
            lambda: "hvs." + rs(B64URL, 24),
            [
                "VAULT_TOKEN=<<V>> (periodic token for the jenkins controller)",
                "vault login <<V>>",
            ],
        ),
        (
            "github_oidc_id_token_live",
            oidc_live,
            [
                "ACTIONS_ID_TOKEN: fetched from ACTIONS_ID_TOKEN_REQUEST_URL mid-run, pasting so "
                "I can replay the AssumeRoleWithWebIdentity call:\n<<V>>",
                'curl -sH "Authorization: bearer $ACTIONS_ID_TOKEN_REQUEST_TOKEN" ... returned '
                'value "<<V>>"',
            ],
        ),
        (
            "actions_runtime_token",
            lambda: jwt(
                {"scp": "Actions.Results:42:7", "iss": "vstoken.actions.githubusercontent.com"}
            ),
            [
                "ACTIONS_RUNTIME_TOKEN from the runner env (cache/artifact API): <<V>>",
            ],
        ),
        (
            "ssh_deploy_key",
            lambda: pem("OPENSSH PRIVATE KEY", 4),
            [
                "Deploy key with write access to octo-org/widget-docs (used by the docs "
                "job):\n<<V>>",
                "SSH_PRIVATE_KEY for webfactory/ssh-agent:\n<<V>>",
            ],
        ),
        (
            "minisign_secret_key",
            minisign_sk,
            [
                "untrusted comment: minisign encrypted secret key\n<<V>>",
                "TAURI_SIGNING_PRIVATE_KEY content (minisign secret key) for updater artifacts: "
                "<<V>>",
            ],
        ),
        (
            "signing_key_password",
            pw,
            [
                "TAURI_SIGNING_PRIVATE_KEY_PASSWORD=<<V>>",
                "MATCH_PASSWORD=<<V>> (fastlane match decrypts the certs repo with this)",
            ],
        ),
        (
            "android_keystore_password",
            pw,
            [
                "release.keystore: storePassword=<<V>> keyAlias=upload",
                "Upload keystore password for Play: <<V>> (same for key password)",
            ],
        ),
        (
            "vscode_marketplace_pat",
            lambda: rs("abcdefghijklmnopqrstuvwxyz234567", 52),
            [
                "VSCE_PAT=<<V>> (Azure DevOps PAT, Marketplace: Manage)",
                "vsce publish -p <<V>>",
            ],
        ),
        (
            "jetbrains_marketplace_token",
            lambda: "perm:" + rs(B64, 28) + "." + rs(B64, 40),
            [
                "PUBLISH_TOKEN for the IntelliJ plugin (JetBrains Marketplace): <<V>>",
            ],
        ),
        (
            "openvsx_token",
            uuid,
            ["OVSX_PAT=<<V>>", "ovsx publish -p <<V>> widget-0.9.1.vsix"],
        ),
        (
            "sentry_auth_token",
            lambda: "sntrys_" + rs(B64URL, 140),
            [
                "SENTRY_AUTH_TOKEN for uploading source maps in the release job: <<V>>",
            ],
        ),
        (
            "cloudflare_api_token",
            lambda: rs(B64URL, 40),
            [
                "CLOUDFLARE_API_TOKEN (Pages: edit, for wrangler pages deploy): <<V>>",
            ],
        ),
        (
            "database_url_in_ci",
            lambda: "postgres://ci_migrator:" + rs(ALNUM, 22) + "@db.staging.example.org:5432/app",
            [
                "migration job DATABASE_URL (staging, real data): <<V>>",
            ],
        ),
        (
            "doppler_service_token",
            lambda: "dp.st.prd." + rs(ALNUM, 43),
            ["DOPPLER_TOKEN=<<V>> (service token, config prd)"],
        ),
        (
            "heroku_api_key",
            lambda: "HRKU-AA" + rs(B64URL, 58),
            ["HEROKU_API_KEY=<<V>> for the review-app deploy step"],
        ),
        (
            "k8s_sa_token_for_argo",
            lambda: jwt(
                {
                    "iss": "kubernetes/serviceaccount",
                    "kubernetes.io/serviceaccount/namespace": "argocd",
                    "sub": "system:serviceaccount:argocd:argocd-manager",
                }
            ),
            [
                "bearer token for the argocd-manager SA on prod-eu (cluster secret):\n<<V>>",
            ],
        ),
    ]

    # ---- benign value generators --------------------------------------------------
    def sha40() -> str:
        return rs(HEX, 40)

    def sha64() -> str:
        return rs(HEX, 64)

    def oidc_claims() -> str:
        return json.dumps(
            {
                "sub": "repo:octo-org/widget:environment:release",
                "aud": "https://github.com/octo-org",
                "ref": "refs/tags/v2.4.0",
                "sha": rs(HEX, 40),
                "run_id": str(rng.randint(10**10, 2 * 10**10)),
                "job_workflow_ref": (
                    "octo-org/widget/.github/workflows/release.yml@refs/tags/v2.4.0"
                ),
            }
        )

    def claims_b64() -> str:
        return b64u({"sub": "repo:octo-org/widget:ref:refs/heads/main", "aud": "sts.amazonaws.com"})

    def gpg_fpr() -> str:
        return " ".join(rs("0123456789ABCDEF", 4) for _ in range(10))

    def ssh_pub() -> str:
        return "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + rs(B64, 43)

    def sri() -> str:
        return "sha512-" + rs(B64, 86) + "=="

    def masked() -> str:
        return "***"

    ben: list[tuple[str, object, list[str]]] = [
        (
            "commit_sha",
            sha40,
            [
                "v2.4.0 was cut from <<V>> on main; cherry-pick the hotfix on top of that.",
                "bisect landed on <<V>> as the first bad commit (flaky test introduced there)",
                "Renovate's lockfile maintenance PR is based on <<V>>",
            ],
        ),
        (
            "short_sha",
            lambda: rs(HEX, 7),
            [
                "image tag widget:sha-<<V>> is what staging runs right now",
                "revert <<V>> if the arm64 build is still red tomorrow",
            ],
        ),
        (
            "annotated_tag_object_sha",
            sha40,
            [
                "git rev-parse v2.4.0 -> <<V>> (that's the tag object, not the commit; use "
                "v2.4.0^{} for the commit)",
                "signed tag v3.0.0-rc.1 object id <<V>>",
            ],
        ),
        (
            "pinned_action_sha",
            sha40,
            [
                "uses: actions/checkout@<<V>> # v4.2.2",
                "pin pypa/gh-action-pypi-publish to <<V>> (release/v1), zizmor flags unpinned tags",
                "step-security harden-runner pinned at @<<V>>",
            ],
        ),
        (
            "github_run_id",
            lambda: str(rng.randint(10**10, 2 * 10**10)),
            [
                "release run that failed on notarization: https://github.com/octo-org/widget/"
                "actions/runs/<<V>>",
                "gh run rerun <<V>> --failed",
                "GITHUB_RUN_ID=<<V>> GITHUB_RUN_ATTEMPT=2 in the flaky upload",
            ],
        ),
        (
            "github_job_id",
            lambda: str(rng.randint(3 * 10**10, 4 * 10**10)),
            [
                "job id <<V>> is the windows-latest matrix leg that timed out",
                "gh run view --job <<V>> --log-failed",
            ],
        ),
        (
            "gitlab_pipeline_job_ids",
            lambda: str(rng.randint(10**6, 9 * 10**6)),
            [
                "pipeline #<<V>> on gitlab.example.org is the one with the cache miss",
                "CI_JOB_ID=<<V>> - retried twice, runner arm64-builder",
            ],
        ),
        (
            "buildkite_build_uuid",
            uuid,
            [
                "BUILDKITE_BUILD_ID=<<V>> (build 1842 on widget/main)",
                "buildkite job uuid <<V>> got stuck in 'assigned'",
            ],
        ),
        (
            "circleci_workflow_id",
            uuid,
            [
                "CircleCI workflow <<V>> - the nightly one, hold job waiting for approval",
                "circleci pipeline id <<V>> number 5120",
            ],
        ),
        (
            "jenkins_build_tag",
            lambda: "jenkins-widget-release-" + str(rng.randint(100, 999)),
            [
                "BUILD_TAG=<<V>> produced the broken tarball",
                "archived artifacts for <<V>> are kept 30 days",
            ],
        ),
        (
            "oidc_subject",
            lambda: (
                "repo:octo-org/widget:environment:" + rng.choice(["release", "pypi", "production"])
            ),
            [
                "IAM trust policy condition token.actions.githubusercontent.com:sub = <<V>>",
                "The OIDC sub claim we allow for the publish role: <<V>>",
                "PyPI trusted publisher expects sub <<V>> - the environment name must match",
            ],
        ),
        (
            "oidc_decoded_claims",
            oidc_claims,
            [
                "decoded the id token payload (no signature, just the claims) to debug the "
                "trust policy:\n<<V>>",
                "claims we saw in the failing AssumeRole:\n<<V>>",
            ],
        ),
        (
            "oidc_claims_segment_only",
            claims_b64,
            [
                "middle segment of the id token (claims only, header and signature dropped): "
                "<<V>> - base64url-decode it to read the sub",
            ],
        ),
        (
            "fulcio_san",
            lambda: (
                "https://github.com/octo-org/widget/.github/workflows/release.yml@refs/tags/v"
                + str(rng.randint(1, 9))
                + ".0.0"
            ),
            [
                "cosign verify --certificate-identity <<V>> --certificate-oidc-issuer "
                "https://token.actions.githubusercontent.com ghcr.io/octo-org/widget:2.4.0",
            ],
        ),
        (
            "pgp_public_key_block",
            lambda: pem("PGP PUBLIC KEY BLOCK", 4),
            [
                "KEYS file entry for the release manager (public key, publish freely):\n<<V>>",
                "Add this public key to the apt repo docs:\n<<V>>",
            ],
        ),
        (
            "gpg_fingerprint",
            gpg_fpr,
            [
                "release signing key fingerprint: <<V>> (verify before trusting any tarball)",
                "gpg --recv-keys then check fpr == <<V>>",
            ],
        ),
        (
            "gpg_long_key_id",
            lambda: rs("0123456789ABCDEF", 16),
            [
                "signing.keyId in gradle is the short form; the long id is <<V>>",
                "git config user.signingkey <<V>>!",
            ],
        ),
        (
            "gpg_keygrip",
            lambda: rs("0123456789ABCDEF", 40),
            [
                "gpg --with-keygrip shows Keygrip = <<V>> for the [S] subkey; the agent file is "
                "named after it (the file itself never leaves the yubikey host)",
            ],
        ),
        (
            "cosign_public_key",
            lambda: (
                "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE"
                + rs(B64, 28)
                + "\n"
                + rs(B64, 56)
                + "==\n-----END PUBLIC KEY-----"
            ),
            [
                "cosign.pub committed at the repo root so users can verify:\n<<V>>",
                "Kyverno verifyImages policy public key:\n<<V>>",
            ],
        ),
        (
            "cosign_signature",
            lambda: "MEUCIQ" + rs(B64, 42) + "AiB" + rs(B64, 41) + "=",
            [
                "signature from the .sig layer: <<V>>",
                "cosign triangulate then crane manifest; the annotation dev.cosignproject.cosign/"
                "signature is <<V>>",
            ],
        ),
        (
            "rekor_entry_uuid",
            lambda: "24296fb24b8ad77a" + rs(HEX, 64),
            [
                "Rekor tlog entry for the v2.4.0 signature: <<V>> (logIndex 15023118)",
                "rekor-cli get --uuid <<V>>",
            ],
        ),
        (
            "fulcio_certificate",
            lambda: pem("CERTIFICATE", 4),
            [
                "short-lived Fulcio cert from the keyless signing (public, expires in 10 min, "
                "already in Rekor):\n<<V>>",
                "intermediate CA for our code signing chain, goes in the installer bundle:\n<<V>>",
            ],
        ),
        (
            "image_digest",
            lambda: "sha256:" + sha64(),
            [
                "deploy by digest: ghcr.io/octo-org/widget@<<V>>",
                "Argo CD app widget-prod is synced to image <<V>>",
                "docker buildx imagetools inspect says the index digest is <<V>>",
            ],
        ),
        (
            "sbom_digest",
            lambda: "sha256:" + sha64(),
            [
                "SBOM attestation (spdx-json) attached, predicate digest <<V>>",
                "syft output sbom.cdx.json has checksum <<V>>",
            ],
        ),
        (
            "spdx_document_namespace",
            lambda: "https://anchore.com/syft/image/ghcr.io/octo-org/widget-" + uuid(),
            ["SPDX documentNamespace: <<V>>"],
        ),
        (
            "slsa_provenance_subject",
            sha64,
            [
                'provenance subject: {"name": "widget-2.4.0.tar.gz", "digest": '
                '{"sha256": "<<V>>"}}',
                "slsa-verifier verify-artifact reported subject sha256 <<V>> - matches",
            ],
        ),
        (
            "sha256sums_line",
            sha64,
            [
                "SHA256SUMS:\n<<V>>  widget_2.4.0_linux_amd64.tar.gz",
                "sha256 of the windows installer: <<V>>",
                'Homebrew formula sha256 "<<V>>"',
            ],
        ),
        (
            "sha512_checksum",
            lambda: rs(HEX, 128),
            ["Maven Central wants .sha512 too; widget-2.4.0.jar.sha512 = <<V>>"],
        ),
        (
            "npm_integrity",
            sri,
            [
                '"integrity": "<<V>>" in package-lock for @octo/widget 2.4.0',
                "npm view @octo/widget dist.integrity -> <<V>>",
            ],
        ),
        (
            "pip_hash_pin",
            sha64,
            [
                "requirements.txt: twine==5.1.1 --hash=sha256:<<V>>",
            ],
        ),
        (
            "cargo_lock_checksum",
            sha64,
            [
                '[[package]]\nname = "serde"\nversion = "1.0.215"\nsource = "registry+https://'
                'github.com/rust-lang/crates.io-index"\nchecksum = "<<V>>"',
            ],
        ),
        (
            "go_sum_hash",
            lambda: "h1:" + rs(B64, 43) + "=",
            ["go.sum: github.com/sigstore/cosign/v2 v2.4.1 <<V>>"],
        ),
        (
            "masked_log_value",
            masked,
            [
                "log line: Run twine upload dist/* env: TWINE_PASSWORD: <<V>> - masking works",
                "npm publish output shows //registry.npmjs.org/:_authToken=<<V>>, so the token "
                "never hit the log",
                "Actions mirror of the GitLab job: echo $DEPLOY_KEY printed <<V>> (GitLab "
                "prints [MASKED] for the same step)",
            ],
        ),
        (
            "masked_gitlab_value",
            lambda: "[MASKED]",
            [
                "job log: Using docker login with password <<V>> - good, masking on protected "
                "branch works",
            ],
        ),
        (
            "secrets_context_reference",
            lambda: (
                "${{ secrets."
                + rng.choice(["NPM_TOKEN", "PYPI_API_TOKEN", "GPG_PRIVATE_KEY"])
                + " }}"
            ),
            [
                "env:\n  NODE_AUTH_TOKEN: <<V>>",
                "with:\n  password: <<V>>  # switching to trusted publishing soon",
                "the import step reads <<V>> then runs gpg --import",
            ],
        ),
        (
            "ci_variable_reference",
            lambda: rng.choice(["$CI_JOB_TOKEN", "$CI_REGISTRY_PASSWORD", "$CIRCLE_TOKEN"]),
            [
                "docker login -u $CI_REGISTRY_USER -p <<V>> $CI_REGISTRY",
                "the mirror step authenticates with <<V>>, nothing stored in the repo",
            ],
        ),
        (
            "vault_path_reference",
            lambda: "secret/data/ci/" + rng.choice(["npm", "pypi", "signing"]) + "/publish",
            [
                "publish token lives at <<V>> (key: token); jenkins reads it via the vault plugin",
                "vault kv get -field=password <<V>>",
            ],
        ),
        (
            "op_reference",
            lambda: "op://Release/" + rng.choice(["Notary", "PyPI", "NuGet"]) + "/credential",
            ["the release script resolves <<V>> at run time with `op read`"],
        ),
        (
            "jenkins_credentials_id",
            lambda: rng.choice(["npm-publish-token", "gpg-signing-key", "dockerhub-relbot"]),
            [
                "withCredentials([string(credentialsId: '<<V>>', variable: 'TOKEN')]) { sh "
                "'./publish.sh' }",
            ],
        ),
        (
            "placeholder_token",
            lambda: rng.choice(["ghp_" + "x" * 36, "npm_" + "X" * 36, "glpat-" + "x" * 20]),
            [
                "CONTRIBUTING snippet: export GH_TOKEN=<<V>>  # replace with your own",
                "example .npmrc in the docs uses <<V>> as a stand-in",
            ],
        ),
        (
            "angle_bracket_placeholder",
            lambda: rng.choice(["<YOUR_PYPI_TOKEN>", "<cosign-password>", "<paste-token-here>"]),
            [
                "docs: TWINE_PASSWORD=<<V>> twine upload dist/*",
                "password: <<V>>  (template, real value is in the vault)",
            ],
        ),
        (
            "documented_example_key",
            lambda: rng.choice(
                ["AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"]
            ),
            [
                "The AWS docs example <<V>> is what the localstack fixture uses",
                "moto tests use the documented example value <<V>>; never a real key",
            ],
        ),
        (
            "jwt_io_example",
            lambda: (
                "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6Ikpva"
                "G4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
            ),
            [
                "the webhook parser test uses the jwt.io sample <<V>> (John Doe, signed "
                "with 'secret')"
            ],
        ),
        (
            "truncated_revoked_token",
            lambda: "ghp_" + rs(ALNUM, 4) + "…",
            [
                "Secret scanning alert: PAT starting <<V>> was revoked by GitHub on 2026-11-02, "
                "replaced by a fine-grained token",
            ],
        ),
        (
            "token_last_four",
            lambda: rs(ALNUM, 4),
            [
                "npm token list shows the automation token ending in ...<<V>>, created 2026-09-14",
                "PyPI token 'ci-widget' (last 4: <<V>>) deleted after the move to "
                "trusted publishing",
            ],
        ),
        (
            "apple_team_id",
            lambda: rs(string.ascii_uppercase + string.digits, 10),
            [
                "Developer ID team id <<V>>; signing identity 'Developer ID Application: Octo Org "
                "(<<V>>)'",
                "notarytool --team-id <<V>> (the password comes from the keychain profile)",
            ],
        ),
        (
            "notary_submission_id",
            uuid,
            [
                "notarytool log <<V>> --keychain-profile widget-notary shows 'The binary is not "
                "signed with a valid Developer ID certificate'",
                "Notarization submission id <<V>> accepted",
            ],
        ),
        (
            "asc_key_id_issuer",
            uuid,
            [
                "App Store Connect API: key id 4XK29PQ7LM, issuer id <<V>> (the .p8 is not here, "
                "it's in the vault)",
            ],
        ),
        (
            "cert_thumbprint",
            lambda: rs("0123456789ABCDEF", 40),
            [
                "signtool sign /sha1 <<V>> /tr http://timestamp.digicert.com /td sha256 (cert in "
                "the HSM, thumbprint only)",
                "EV cert thumbprint <<V>>, expires 2027-03-01",
            ],
        ),
        (
            "ssh_public_key",
            ssh_pub,
            [
                "deploy key (public half) added to widget-docs: <<V>> docs-ci",
                "allowed_signers: releases@example.org <<V>>",
            ],
        ),
        (
            "ssh_host_fingerprint",
            lambda: "SHA256:" + rs(B64, 43),
            [
                "github.com ED25519 host key fingerprint <<V>> - pin it in known_hosts "
                "for the runner",
            ],
        ),
        (
            "ssh_signature_block",
            lambda: (
                "-----BEGIN SSH SIGNATURE-----\nU1NIU0lHAAAAAQ"
                + rs(B64, 50)
                + "\n"
                + rs(B64, 70)
                + "\n-----END SSH SIGNATURE-----"
            ),
            ["git cat-file tag v2.4.0 ends with the tag signature:\n<<V>>"],
        ),
        (
            "pgp_detached_signature",
            lambda: pem("PGP SIGNATURE", 3),
            [
                "widget-2.4.0.jar.asc:\n<<V>>",
                "InRelease signature for the apt repo:\n<<V>>",
            ],
        ),
        (
            "minisign_public_key",
            lambda: "RWQ" + rs(B64, 53),
            [
                "TAURI updater pubkey in tauri.conf.json: <<V>>",
                "minisign -Vm widget.tar.gz -P <<V>>",
            ],
        ),
        (
            "age_public_key",
            lambda: "age1" + rs("qpzry9x8gf2tvdw0s3jn54khce6mua7l", 58),
            ["SOPS recipient for the ci secrets file: <<V>> (public)"],
        ),
        (
            "github_app_ids",
            lambda: "Iv23li" + rs(ALNUM, 14),
            [
                "GitHub App widget-release: app id 412733, client id <<V>> (client id is public, "
                "the key is in the vault)",
                "OAuth app client_id=<<V>> for the docs site login button",
            ],
        ),
        (
            "github_delivery_guid",
            uuid,
            [
                "X-GitHub-Delivery: <<V>> - redeliver it from the app's advanced tab",
                "hook delivery <<V>> returned 502 from the probot pod",
            ],
        ),
        (
            "webhook_signature_header",
            lambda: "sha256=" + sha64(),
            [
                "X-Hub-Signature-256: <<V>> did not match our computed HMAC, body was re-encoded "
                "by the proxy",
                "captured header x-hub-signature-256=<<V>> from a ping event",
            ],
        ),
        (
            "gitlab_event_uuid",
            uuid,
            ["X-Gitlab-Event-UUID: <<V>> (merge request hook)"],
        ),
        (
            "slack_ids",
            lambda: "C0" + rs(string.ascii_uppercase + string.digits, 9),
            [
                "release bot posts to channel <<V>> (#releases)",
                "conversations.join channel=<<V>> failed: not_in_channel",
            ],
        ),
        (
            "tfc_workspace_run_ids",
            lambda: rng.choice(["ws-", "run-"]) + rs(ALNUM, 16),
            [
                "Terraform Cloud <<V>> is stuck in 'planning' since the agent pool restart",
                "tfc notification for <<V>> sent to the #infra channel",
            ],
        ),
        (
            "argocd_sync_revision",
            sha40,
            [
                "argocd app get widget-prod: Sync Revision <<V>>, Health Degraded",
                "rollback to revision <<V>> (history id 41)",
            ],
        ),
        (
            "docker_image_id",
            lambda: "sha256:" + sha64(),
            ["docker images --no-trunc: widget latest <<V>> 2 hours ago"],
        ),
        (
            "actions_cache_key",
            lambda: "Linux-npm-" + sha64(),
            [
                "cache hit on key <<V>> (restore-keys fell through to Linux-npm-)",
                "actions/cache saved <<V>>, 412 MB",
            ],
        ),
        (
            "turbo_or_bazel_hash",
            lambda: rs(HEX, 16),
            [
                "turbo: cache miss, executing <<V>> for @octo/widget#build",
                "remote cache hash <<V>> - identical on both runners",
            ],
        ),
        (
            "aws_role_arn",
            lambda: "arn:aws:iam::" + rs(string.digits, 12) + ":role/gha-widget-publish",
            ["configure-aws-credentials role-to-assume: <<V>> (OIDC, no stored keys)"],
        ),
        (
            "azure_ids",
            uuid,
            [
                "azure/login with client-id, tenant-id <<V>> and subscription id - federated "
                "credential, no client secret at all",
            ],
        ),
        (
            "pypi_trusted_publisher_config",
            lambda: "release.yml",
            [
                "PyPI trusted publisher: owner octo-org, repo widget, workflow <<V>>, environment "
                "pypi. Deleted the old API token.",
            ],
        ),
        (
            "secret_names_listing",
            lambda: "NPM_TOKEN",
            [
                "gh secret list:\n<<V>>  Updated 2026-11-02\nPYPI_API_TOKEN  Updated 2026-08-19\n"
                "GPG_PASSPHRASE  Updated 2026-01-11",
            ],
        ),
        (
            "token_hash_stored",
            sha64,
            [
                "the webhook relay stores only sha256(token) = <<V>> and compares hashes",
            ],
        ),
        (
            "talk_about_rotation",
            lambda: "",
            [
                "Rotated the npm automation token after the maintainer left; new one is only in "
                "the org secrets, no copies anywhere else.",
                "TODO: rotate GPG passphrase and cosign password together next quarter, and move "
                "both to the HSM-backed signer.",
            ],
        ),
        (
            "password_policy_talk",
            lambda: "",
            [
                "Apple requires an app-specific password for notarytool if you don't use an API "
                "key; we use the API key path instead.",
            ],
        ),
        (
            "token_other_sense",
            lambda: "",
            [
                "the YAML parser choked on token ':' at line 42 of release.yml (unquoted colon in "
                "the step name)",
                "rate limiter is a token bucket: 5000 tokens/hour for GITHUB_TOKEN, refills hourly",
            ],
        ),
        (
            "key_other_sense",
            lambda: "",
            [
                "matrix key `os` must be listed under strategy.matrix, not at job level",
                "concurrency group key: ${{ github.workflow }}-${{ github.ref }} cancel-in-"
                "progress true",
            ],
        ),
        (
            "secret_word_in_prose",
            lambda: "",
            [
                "Forks don't get repository secrets on pull_request; pull_request_target does, "
                "which is why we never check out PR code there.",
            ],
        ),
        (
            "base64_non_secret",
            lambda: base64.b64encode(
                b"widget release notes 2.4.0: fixes arm64 notarization"
            ).decode(),
            [
                "the release notes body is passed base64 to avoid quoting hell: <<V>>",
            ],
        ),
        (
            "uuid_request_id",
            uuid,
            [
                "npm publish failed with E403, npm-notice request id <<V>>",
                "PyPI 400 on upload, X-Request-Id <<V>>",
            ],
        ),
        (
            "public_jwks_modulus",
            lambda: rs(B64URL, 342),
            [
                'GitHub OIDC JWKS entry kid 38826b17: {"kty": "RSA", "e": "AQAB", "n": "<<V>>"}',
            ],
        ),
        (
            "docker_content_trust_key_id",
            sha64,
            ["notary root key id <<V>> (id only; the root key is offline)"],
        ),
        (
            "npm_provenance_log_index",
            lambda: str(rng.randint(10**8, 2 * 10**8)),
            ["npm provenance for @octo/widget@2.4.0 is Rekor log index <<V>>"],
        ),
        (
            "dependabot_branch",
            lambda: (
                "dependabot/npm_and_yarn/"
                + rng.choice(["semver-7.6.3", "esbuild-0.24.0"])
                + "-"
                + rs(HEX, 6)
            ),
            ["closed <<V>>, superseded by the grouped update"],
        ),
        (
            "webhook_url_without_secret",
            lambda: "https://ci.example.org/github-webhook/",
            [
                "GitHub webhook payload URL: <<V>> (content type json; the shared secret is "
                "configured separately in Jenkins credentials)",
            ],
        ),
        (
            "example_pem_header_only",
            lambda: "-----BEGIN OPENSSH PRIVATE KEY-----",
            [
                "ssh-agent action fails if the secret lacks a trailing newline after <<V>>... "
                "END line; fixed by quoting the secret in the step",
            ],
        ),
        (
            "random_build_nonce",
            lambda: rs(ALNUM, 32),
            [
                "reproducible build: SOURCE_DATE_EPOCH=1764979200, build id <<V>> differs between "
                "runs only because of the timestamp",
            ],
        ),
    ]

    # ---- extra templates and kinds ------------------------------------------------
    sec_extra: dict[str, list[str]] = {
        "github_pat_classic": [
            "git push https://relbot:<<V>>@github.com/octo-org/homebrew-tap.git HEAD:main",
        ],
        "github_pat_fine_grained": [
            "A contributor hardcoded GH_TOKEN: <<V>> in .github/workflows/backport.yml; still "
            "valid, revoke it and scrub the history",
        ],
        "github_app_private_key": ["probot .env for local dev, PRIVATE_KEY=\n<<V>>"],
        "github_webhook_secret": [
            "probot .env\nAPP_ID=412733\nWEBHOOK_SECRET=<<V>>\nPRIVATE_KEY_PATH=widget-bot.pem",
        ],
        "gitlab_pat": ["glab auth login --hostname gitlab.example.org --token <<V>>"],
        "gitlab_runner_auth_token": [
            "gitlab-runner register --non-interactive --url https://gitlab.example.org "
            "--token <<V>> --executor shell",
        ],
        "npm_automation_token": [
            "Buildkite pipeline env for the publish step: NPM_TOKEN='<<V>>' (granular, "
            "@octo scope, read-write)",
        ],
        "pypi_api_token": ["uv publish --token <<V>>", "poetry config pypi-token.pypi <<V>>"],
        "crates_io_token": ["cargo login <<V>>"],
        "rubygems_api_key": ["RUBYGEMS_API_KEY=<<V>> bundle exec rake release"],
        "nuget_api_key": ["NUGET_API_KEY=<<V>>"],
        "dockerhub_pat": [
            "Jenkins credential dockerhub-relbot (secret text) value: <<V>>",
        ],
        "slack_bot_token": [
            "curl -H 'Authorization: Bearer <<V>>' -d channel=C07RELEASE "
            "https://slack.com/api/chat.postMessage",
        ],
        "discord_webhook_url": [
            "curl -H 'Content-Type: application/json' -d '{\"content\": \"v2.4.0 is out\"}' <<V>>",
        ],
        "telegram_bot_token": [
            "https://api.telegram.org/bot<<V>>/sendMessage?chat_id=-1001234567890&text=released",
        ],
        "terraform_cloud_token": ["`terraform login` wrote this user token: <<V>>"],
        "gpg_passphrase": [
            "Passphrase für den Signierschlüssel des APT-Repos (reprepro): <<V>>",
        ],
        "apple_app_specific_password": [
            "xcrun altool --notarize-app -f widget.zip -u rel@example.org -p <<V>> "
            "(old flow, altool is deprecated)",
        ],
        "jenkins_api_token": [
            "jenkins_jobs.ini\n[jenkins]\nuser=relbot\npassword=<<V>>\nurl=https://ci.example.org",
        ],
        "vault_token": ["curl -H 'X-Vault-Token: <<V>>' https://vault.example.org/v1/ci/data/npm"],
        "argocd_admin_password": ["contraseña del admin de Argo CD (staging): <<V>>"],
        "sonarcloud_token": ["SONAR_TOKEN en el contexto 'quality' de CircleCI: <<V>>"],
        "buildkite_agent_token": [
            "BUILDKITE_AGENT_TOKEN=<<V>> buildkite-agent start --tags queue=gpu"
        ],
        "circleci_personal_token": [
            "circleci setup --token <<V>> --host https://circleci.com --no-prompt",
        ],
        "aws_access_key_pair": [
            "aws configure set aws_secret_access_key <<V>> --profile release",
        ],
        "docker_config_auth": [
            'imagePullSecret, decoded .dockerconfigjson: {"auths": {"docker.io": '
            '{"auth": "<<V>>"}}}',
        ],
        "windows_pfx_password": [
            "mot de passe du certificat Authenticode (fichier widget-ev.pfx) : <<V>>",
        ],
        "cosign_password": [
            "cosign sign-blob --key env://COSIGN_PRIVATE_KEY dist/widget.tar.gz; the "
            "COSIGN_PASSWORD we set in the release env is <<V>>",
        ],
        "ssh_deploy_key": ["id_ed25519 the gh-pages push uses (copied off the runner):\n<<V>>"],
        "maven_central_user_token": ["JRELEASER_MAVENCENTRAL_PASSWORD=<<V>>"],
        "heroku_api_key": ["heroku authorizations:create -d ci gave Token: <<V>>"],
        "codecov_upload_token": [
            "- uses: codecov/codecov-action@v5\n  with:\n    token: <<V>>   # "
            "hardcoded, private repo",
        ],
    }
    sec += [
        (
            "gitea_access_token",
            lambda: rs(HEX, 40),
            [
                "Gitea access token for the mirror bot (write:repository): <<V>>",
                "tea login add --name codeberg --url https://codeberg.org --token <<V>>",
            ],
        ),
        (
            "netlify_auth_token",
            lambda: "nfp_" + rs(ALNUM, 36),
            ["NETLIFY_AUTH_TOKEN=<<V>> (deploy previews for the docs site)"],
        ),
        (
            "actions_runner_registration_token",
            lambda: "A" + rs(string.ascii_uppercase + string.digits, 28),
            [
                "./config.sh --url https://github.com/octo-org --token <<V>> --labels "
                "self-hosted,arm64 (token valid for an hour, registering now)",
            ],
        ),
        (
            "jfrog_access_token",
            lambda: "cmVmdGtuOjAxOjE3" + rs(ALNUM, 48),
            [
                "JFROG_ACCESS_TOKEN for pushing to the internal maven mirror: <<V>>",
                "jf c add artifactory --url https://example.jfrog.io --access-token <<V>>",
            ],
        ),
    ]

    ben_extra: dict[str, list[str]] = {
        "commit_sha": ["merge commit <<V>> is missing the Signed-off-by trailer (DCO bot red)"],
        "short_sha": ["git describe --tags -> v2.3.1-14-g<<V>>"],
        "image_digest": [
            "crane digest ghcr.io/octo-org/widget:2.4.0 => <<V>>",
            "Dockerfile: FROM node:22-alpine@<<V>>",
        ],
        "sha256sums_line": ["shasum -a 256 widget.dmg matched the published <<V>>"],
        "oidc_subject": [
            "aws iam trust policy StringLike sub: <<V>> (plus aud sts.amazonaws.com)",
        ],
        "github_run_id": [
            "artifact sbom.spdx.json from run <<V>> expires in 90 days",
        ],
        "pinned_action_sha": ["uses: sigstore/cosign-installer@<<V>> # v3.7.0"],
        "npm_integrity": [
            "yarn.lock entry for esbuild@0.24.0:\n  integrity <<V>>",
        ],
        "gpg_fingerprint": ["Fingerprint des Release-Schlüssels: <<V>>"],
        "secrets_context_reference": [
            "if: <<V>> != '' - skip publishing on forks where the secret is empty",
        ],
        "apple_team_id": ["codesign -dv shows TeamIdentifier=<<V>>"],
        "cert_thumbprint": ["Get-ChildItem Cert:\\CurrentUser\\My | thumbprint <<V>> CN=Octo Org"],
        "cosign_signature": ["sigstore-python verify wrote the raw signature: <<V>>"],
        "rekor_entry_uuid": ["search.sigstore.dev result: entry <<V>>"],
        "github_delivery_guid": [
            "ngrok inspector replayed delivery <<V>> against the local probot"
        ],
        "uuid_request_id": ["crates.io 429 on publish, x-request-id <<V>>, retry after 10 min"],
        "sbom_digest": ["grype sbom:./sbom.cdx.json found 0 critical; sbom blob digest <<V>>"],
        "buildkite_build_uuid": ["bk build view <<V>> --web"],
        "ssh_public_key": ["gitlab deploy key (read-only) fingerprint comment widget-ci: <<V>>"],
        "pgp_public_key_block": ["gpg --armor --export 0x2B6D4C80 > KEYS.asc gives\n<<V>>"],
        "vault_path_reference": ["Jenkins vault plugin path <<V>>, key token, env NPM_TOKEN"],
        "placeholder_token": ["README badge example: curl -H 'Authorization: token <<V>>' ..."],
        "webhook_signature_header": [
            "X-Hub-Signature-256 <<V>> verified OK with constant-time compare"
        ],
        "masked_log_value": [
            "curl -H 'Authorization: token <<V>>' https://api.github.com/repos/octo-org/widget/"
            "releases -> 201 Created",
        ],
    }
    ben += [
        (
            "gitlab_oidc_subject",
            lambda: (
                "project_path:platform/widget:ref_type:tag:ref:v" + str(rng.randint(2, 5)) + ".0.0"
            ),
            ["id_tokens: VAULT_ID_TOKEN, Vault role bound_claims sub = <<V>>"],
        ),
        (
            "circleci_oidc_subject",
            lambda: "org/" + uuid() + "/project/" + uuid() + "/user/" + uuid(),
            [
                "CircleCI OIDC sub looks like <<V>>; AWS trust policy uses StringLike "
                "on the project part"
            ],
        ),
        (
            "tfc_oidc_subject",
            lambda: "organization:octo:project:Default:workspace:widget-prod:run_phase:apply",
            ["TFC dynamic credentials: trust condition app.terraform.io:sub = <<V>>"],
        ),
        (
            "npm_shasum",
            sha40,
            ["npm view @octo/widget@2.4.0 dist.shasum -> <<V>>"],
        ),
        (
            "nuget_content_hash",
            lambda: rs(B64, 86) + "==",
            [
                'packages.lock.json: "Newtonsoft.Json": {"resolved": "13.0.3", '
                '"contentHash": "<<V>>"}'
            ],
        ),
        (
            "maven_md5",
            lambda: rs(HEX, 32),
            ["widget-2.4.0.pom.md5 = <<V>> (Central still wants md5 + sha1 next to the .asc)"],
        ),
        (
            "git_blob_sha",
            sha40,
            ["git hash-object action.yml -> <<V>>; same blob on both branches"],
        ),
        (
            "sigstore_bundle_signature",
            lambda: "MEQCI" + rs(B64, 43) + "AiA" + rs(B64, 40) + "=",
            [
                'widget.sigstore.json: {"messageSignature": {"messageDigest": {"algorithm": '
                '"SHA2_256"}, "signature": "<<V>>"}} - public, ships next to the wheel',
            ],
        ),
        (
            "sealed_secret_ciphertext",
            lambda: "AgB" + rs(B64, 300) + "==",
            [
                "SealedSecret for the argocd repo creds (only the in-cluster controller can "
                "decrypt, safe to commit):\nencryptedData:\n  password: <<V>>",
            ],
        ),
        (
            "sops_encrypted_value",
            lambda: (
                "ENC[AES256_GCM,data:"
                + rs(B64, 40)
                + "=,iv:"
                + rs(B64, 43)
                + "=,tag:"
                + rs(B64, 22)
                + "==,type:str]"
            ),
            ["secrets.enc.yaml (sops, age recipient in .sops.yaml):\nnpm_token: <<V>>"],
        ),
        (
            "ansible_vault_blob",
            lambda: (
                "$ANSIBLE_VAULT;1.1;AES256\n" + "\n".join(rs("0123456789", 80) for _ in range(3))
            ),
            [
                "group_vars/ci/vault.yml (encrypted, vault password is on the "
                "controller only):\n<<V>>"
            ],
        ),
        (
            "travis_secure_value",
            lambda: rs(B64, 340) + "=",
            [
                'legacy .travis.yml env:\n  global:\n    secure: "<<V>>"\n(encrypted to the '
                "repo's public key, dead since we left Travis)",
            ],
        ),
        (
            "keychain_profile_name",
            lambda: "widget-notary",
            ["xcrun notarytool submit widget.zip --keychain-profile <<V>> --wait"],
        ),
        (
            "installation_id",
            lambda: str(rng.randint(40000000, 59999999)),
            ["GitHub App installation id for octo-org is <<V>>; the app mints tokens per run"],
        ),
        (
            "semver_build_metadata",
            lambda: "2.5.0-dev+sha." + rs(HEX, 12),
            ["nightly wheel version <<V>> uploaded to the internal index"],
        ),
        (
            "empty_password_field",
            lambda: 'password: ""',
            ["registry mirror config: username: anonymous\n<<V>>  # public pulls only"],
        ),
        (
            "env_example_changeme",
            lambda: "changeme",
            [".env.example\nNPM_TOKEN=\nPYPI_TOKEN=\nCOSIGN_PASSWORD=<<V>>"],
        ),
        (
            "zeroed_test_fixture_token",
            lambda: "ghp_" + "0" * 36,
            ["test fixture for the token redaction filter uses the fake <<V>>"],
        ),
        (
            "permissions_block",
            lambda: "id-token: write",
            ["permissions:\n  <<V>>\n  contents: read\n  attestations: write"],
        ),
        (
            "docs_hmac_test_vector",
            lambda: "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17",
            [
                "GitHub's docs test vector: secret \"It's a Secret to Everybody\", payload "
                '"Hello, World!" -> <<V>>; our verifier unit test uses exactly that',
            ],
        ),
        (
            "cosign_verify_output",
            lambda: "sha256:" + sha64(),
            [
                '[{"critical": {"identity": {"docker-reference": "ghcr.io/octo-org/widget"}, '
                '"image": {"docker-manifest-digest": "<<V>>"}, "type": "cosign container image '
                'signature"}}]',
            ],
        ),
        (
            "rekor_log_id",
            sha64,
            ["Rekor logID <<V>>, integratedTime 1764979201"],
        ),
        (
            "buildkite_redacted",
            lambda: "[REDACTED]",
            ["buildkite log: + npm config set //registry.npmjs.org/:_authToken <<V>>"],
        ),
        (
            "jenkins_masked_stars",
            lambda: "****",
            ["Jenkins console: + docker login -u relbot -p <<V>> docker.io\nLogin Succeeded"],
        ),
        (
            "circleci_context_talk",
            lambda: "",
            [
                "The npm-publish CircleCI context holds NPM_TOKEN and is restricted to the "
                "release security group; forks can't read it.",
            ],
        ),
        (
            "gitlab_vault_secret_ref",
            lambda: "ci/npm/token@kv",
            ["release:\n  secrets:\n    NPM_TOKEN:\n      vault: <<V>>\n      file: false"],
        ),
        (
            "argocd_target_revision",
            lambda: "v" + str(rng.randint(2, 4)) + "." + str(rng.randint(0, 9)) + ".0",
            [
                "repoURL: https://github.com/octo-org/deploy.git\ntargetRevision: "
                "<<V>>\npath: apps/widget"
            ],
        ),
    ]
    for table, extra in ((sec, sec_extra), (ben, ben_extra)):
        for kind, _gen, templates in table:
            templates.extend(extra.get(kind, []))

    rows: list[dict] = []
    for label, table, kinds in (("secret", sec, SECRET_KINDS), ("benign", ben, BENIGN_KINDS)):
        for kind, gen, templates in table:
            if kind not in kinds:
                kinds.append(kind)
            for t in templates:
                v = gen()  # type: ignore[operator]
                text = t.replace("<<V>>", v) if v else t
                rows.append({"label": label, "kind": kind, "text": text, "value": v})

    for r in rows:
        assert r["value"] in r["text"], r
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

"""Every GRAPHIT_* value is checked in one place (config.validate) before a command reads or
writes anything: a bad value is one `Error:` line naming the variable and what it accepts,
exit code 3, and nothing written."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphit_cli import config
from graphit_cli.errors import InvalidInput
from tests.conftest import PROJECT_ID

BAD = [
    ("GRAPHIT_FOLD_THRESHOLD", "abc"),
    ("GRAPHIT_FOLD_THRESHOLD", "-1"),
    ("GRAPHIT_VERSION_RETENTION", "an hour"),
    ("GRAPHIT_EMBED_THREADS", "0"),
    ("GRAPHIT_DEBUG", "maybe"),
    ("GRAPHIT_NO_DAEMON", "perhaps"),
    ("GRAPHIT_PROJECT_ID", "not-a-ulid"),
    ("GRAPHIT_SCOPE", "everything"),
    ("GRAPHIT_EMBEDDER", "no such thing"),
    ("GRAPHIT_EMBED_INTERVAL", "0"),
    ("GRAPHIT_MAINTAIN_INTERVAL", "soon"),
    ("GRAPHIT_MCP_BACKFILL_INTERVAL", "-3"),
    ("GRAPHIT_BACKOFF_MAX", "no"),
    ("GRAPHIT_STABLE_SECONDS", "0"),
    ("GRAPHIT_MAX_FAILURES", "many"),
    ("GRAPHIT_ACTIVE_DAYS", "0"),
    ("GRAPHIT_PROVIDER", "my provider"),
    ("GRAPHIT_S3_BUCKET", "Bad_Bucket"),
    ("GRAPHIT_S3_PREFIX", "../up"),
    ("GRAPHIT_S3_ENDPOINT", "ftp://example.com"),
    ("GRAPHIT_BROKER_TOKEN", "two words"),
    ("GRAPHIT_GRANT_CHECK_SECONDS", "99"),
    ("GRAPHIT_AUTHOR", "a\x01b"),
]


@pytest.mark.parametrize(("name", "value"), BAD)
def test_a_bad_setting_refuses_the_command_and_writes_nothing(
    cli, graphit_home: Path, monkeypatch: pytest.MonkeyPatch, name: str, value: str
) -> None:
    monkeypatch.setenv("GRAPHIT_NO_DAEMON", "1")
    monkeypatch.setenv(name, value)
    result = cli("memory", "upsert", "--title", "t", "--body", "b")
    assert result.exit_code == 3, (result.stdout, result.stderr)
    assert result.stdout == ""
    [line] = result.stderr.splitlines()
    assert line.startswith("Error: ") and name in line, line
    assert not (graphit_home / "memory" / f"memory-project-{PROJECT_ID}").exists()
    assert not (graphit_home / "memory").exists() or not any(
        p.name.startswith("memory-") for p in (graphit_home / "memory").iterdir()
    )


@pytest.mark.parametrize(("name", "value"), BAD)
def test_validate_names_the_variable(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str
) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(InvalidInput) as refused:
        config.validate()
    assert name in refused.value.message


def test_good_settings_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in (
        ("GRAPHIT_FOLD_THRESHOLD", "0"),
        ("GRAPHIT_DEBUG", "off"),
        ("GRAPHIT_NO_DAEMON", "TRUE"),
        ("GRAPHIT_SCOPE", "context:team"),
        ("GRAPHIT_EMBEDDER", "tests.embedders:HashingEmbedder"),
        ("GRAPHIT_PROVIDER", "s3"),
        ("GRAPHIT_S3_BUCKET", "graphit-ci"),
        ("GRAPHIT_S3_ENDPOINT", "http://127.0.0.1:9000"),
        ("GRAPHIT_GRANT_CHECK_SECONDS", "30"),
        ("GRAPHIT_ACTIVE_DAYS", "0.5"),
    ):
        monkeypatch.setenv(name, value)
    config.validate()
    assert config.no_daemon() and not config.debug()


def test_the_settings_know_every_embedding_backend() -> None:
    """`config.validate` accepts exactly the backends `embed` can load (it cannot import embed:
    embed reads config)."""
    from graphit_cli import config, embed

    assert set(config.EMBED_BACKENDS) == set(embed.BACKENDS)

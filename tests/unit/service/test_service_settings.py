"""Service settings: the loopback rule, token sources, limits."""

from __future__ import annotations

from pathlib import Path

import pytest

from neardup.exceptions import ConfigError
from neardup.service.settings import ServiceSettings, read_token_file


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "::1", "127.0.0.5"])
def test_service_loopback_without_token_is_allowed(host: str) -> None:
    ServiceSettings(host=host).check_bind()


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.5", "::", "example.com"])
def test_service_public_bind_without_token_is_refused(host: str) -> None:
    with pytest.raises(ConfigError, match=r"refusing to listen .* without a bearer token: set NEARDUP_TOKEN"):
        ServiceSettings(host=host).check_bind()
    ServiceSettings(host=host, token="x" * 32).check_bind()


def test_service_token_from_env_or_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NEARDUP_TOKEN", "env-token-0123456789")
    assert ServiceSettings().with_token_from_env().token == "env-token-0123456789"
    f = tmp_path / "tok"
    f.write_text("  file-token-0123456789\n")
    assert ServiceSettings().with_token_from_env(f).token == "file-token-0123456789"
    monkeypatch.delenv("NEARDUP_TOKEN")
    assert ServiceSettings().with_token_from_env().token is None


def test_service_bad_tokens_and_limits_are_config_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=">= 16 characters, got 5"):
        ServiceSettings(token="short")
    with pytest.raises(ConfigError, match="analysis_processes must be between 0 and 64, got 65"):
        ServiceSettings(analysis_processes=65)
    (tmp_path / "empty").write_text("\n")
    with pytest.raises(ConfigError, match="is empty"):
        read_token_file(tmp_path / "empty")
    with pytest.raises(ConfigError, match="cannot read the token file"):
        read_token_file(tmp_path / "missing")
    with pytest.raises(ConfigError, match="max_batch must be >= 1, got 0"):
        ServiceSettings(max_batch=0)
    with pytest.raises(ConfigError, match="redis must be a redis://"):
        ServiceSettings(redis="http://x")


@pytest.mark.parametrize("query", ["buckets=4096", "bloom=0.001", "sync=1", "job=crawl-1"])
def test_service_redis_url_takes_only_what_both_of_its_stores_read(query: str) -> None:
    pytest.importorskip("redis")
    with pytest.raises(ConfigError) as err:
        ServiceSettings(redis=f"redis://127.0.0.1:1/0?prefix=p&{query}")
    said = str(err.value)
    assert f"unknown query parameter {query.partition('=')[0]};" in said
    assert "URL seen-stores and ContentSeen's key map" in said and "reads prefix;" in said
    assert ServiceSettings(redis="redis://127.0.0.1:1/0?prefix=p&socket_timeout=2").redis


def test_service_settings_repr_hides_the_token() -> None:
    assert "secret-secret-secret" not in repr(ServiceSettings(token="secret-secret-secret"))


def test_service_state_path_is_made_absolute(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert ServiceSettings(state="st").state == tmp_path / "st"  # type: ignore[arg-type]

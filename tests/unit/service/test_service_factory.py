"""The real backend behind the app (ContentSeen + SeenURLs in memory), the env factory and the CLI."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from service_testkit import ASGIClient

from neardup.cli.serve import serve_cmd
from neardup.exceptions import ConfigError
from neardup.service.app import app_from_env, create_app
from neardup.service.backend import StateBackend
from neardup.service.settings import ServiceSettings

PAGE = "<html><body><nav>首页 | 新闻</nav><article><p>{}</p></article><footer>版权</footer></body></html>"
TEXT = "长江是中华民族的母亲河，也是中华民族发展的重要支撑。十年来沿江省市共抓大保护、不搞大开发，生态环境发生了转折性变化。"


def test_service_real_backend_in_memory_round_trip() -> None:
    c = ASGIClient(create_app(ServiceSettings()))
    try:
        a = c.post(
            "/v1/documents/check", json={"url": "https://a.example/1", "html": PAGE.format(TEXT)}
        ).json()
        assert a["kind"] == "new" and isinstance(a["doc_id"], int)
        b = c.post(
            "/v1/documents/check", json={"url": "https://b.example/1", "html": PAGE.format(TEXT)}
        ).json()
        assert b["kind"] == "exact" and b["duplicate_of"] == a["doc_id"]
        d = c.get(f"/v1/documents/{a['doc_id']}/duplicates").json()
        assert [x["doc_id"] for x in d["duplicates"]] == [b["doc_id"]]
        assert c.get("/v1/documents/12345/duplicates").status_code == 404
        assert c.get("/v1/documents/x/duplicates").status_code == 422
        r = c.post(
            "/v1/urls/check",
            json={"job": "j", "urls": ["https://a.example/?utm_source=x", "https://a.example/"]},
        )
        assert r.json()["seen"] == [False, True]  # canonicalized: the tracking parameter is dropped
        health = c.get("/v1/health").json()
        assert health["contentseen"]["documents"] == 2 and health["url_jobs_open"] == 1
    finally:
        c.close()


def test_service_state_dir_layout_and_reopen(tmp_path: Path) -> None:
    s = ServiceSettings(state=tmp_path / "st")
    be = StateBackend(s)
    v = be.check_document("https://a.example/1", None, TEXT, True)
    assert be.check_urls("job", ["https://a.example/1"]) == [False]
    be.close()
    be.close()  # idempotent
    assert (tmp_path / "st" / "contentseen").is_dir() and (tmp_path / "st" / "urls.sqlite").exists()
    be = StateBackend(s)
    try:
        again = be.check_document("https://b.example/1", None, TEXT, False)
        assert again["duplicate_of"] == v["doc_id"]
        assert be.check_urls("job", ["https://a.example/1"]) == [True]
    finally:
        be.close()


def test_service_app_from_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NEARDUP_STATE", str(tmp_path / "st"))
    monkeypatch.setenv("NEARDUP_TOKEN", "env-token-0123456789")
    monkeypatch.setenv("NEARDUP_ANALYSIS_PROCESSES", "0")
    app = app_from_env()
    try:
        assert app.state.settings.token == "env-token-0123456789"
        assert app.state.settings.state == tmp_path / "st"
        assert app.state.settings.analysis_processes == 0 and app.state.backend.pool is None
    finally:
        app.state.backend.close()
    monkeypatch.setenv("NEARDUP_ANALYSIS_PROCESSES", "two")
    with pytest.raises(ConfigError, match="NEARDUP_ANALYSIS_PROCESSES must be a whole number"):
        app_from_env()


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--host", "0.0.0.0"], "refusing to listen on '0.0.0.0' without a bearer token"),
        (["--token-file", "/nonexistent/token"], "cannot read the token file"),
        (["--max-batch", "0"], "--max-batch"),
        (["--analysis-processes", "-1"], "--analysis-processes"),
    ],
)
def test_service_cli_refuses_bad_settings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], says: str
) -> None:
    monkeypatch.delenv("NEARDUP_TOKEN", raising=False)
    r: Any = CliRunner().invoke(serve_cmd, ["--state", str(tmp_path / "s"), *args])
    assert r.exit_code != 0
    assert says in (str(r.exception) + r.output)

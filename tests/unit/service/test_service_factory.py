"""The real backend behind the app (ContentSeen + SeenURLs in memory), the env factory and the CLI."""

from __future__ import annotations

import errno
import logging
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from service_testkit import ASGIClient

from neardup.cli.serve import serve_cmd
from neardup.exceptions import ConfigError, StoreError
from neardup.index import HammingIndex
from neardup.service.app import app_from_env, create_app
from neardup.service.backend import StateBackend
from neardup.service.settings import ServiceSettings
from neardup.stores import journal

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


def test_service_urls_only_canonicalization_refuses_get_the_bad_url_answer() -> None:
    c = ASGIClient(create_app(ServiceSettings()))
    try:
        bad = (
            "https://a.example:99999/",  # a port out of range
            "https://xn--99999999999.example/",  # not punycode
            "https://" + "a" * 64 + ".example/",  # a label over 63 bytes
            "https://..../",
        )
        for url in bad:
            r = c.post("/v1/urls/check", json={"job": "j", "urls": ["https://ok.example/", url]})
            body = r.json()
            assert r.status_code == 422 and set(body) == {"error", "detail", "bad_indexes"}, body
            assert body["error"] == "invalid" and body["bad_indexes"] == [1], body
            assert body["detail"].startswith("1 URL(s) cannot be checked: urls.1: ") and url in body["detail"]
            assert "on_invalid" not in body["detail"] and "send it again without them" in body["detail"]
        # the same shape as a URL the service refuses before the store
        r = c.post("/v1/urls/check", json={"job": "j", "urls": ["ftp://a.example/"]})
        assert r.status_code == 422 and set(r.json()) == {"error", "detail", "bad_indexes"}, r.text
        # nothing of the refused batches was recorded
        r = c.post("/v1/urls/check", json={"job": "j", "urls": ["https://ok.example/"]})
        assert r.json()["seen"] == [False]
    finally:
        c.close()


def _no_space(*args: Any, **kwargs: Any) -> None:
    raise OSError(errno.ENOSPC, "No space left on device", "index.hx")


def test_service_shutdown_on_a_full_disk_logs_one_line_and_releases_the_state(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    s = ServiceSettings(state=tmp_path / "st")
    c = ASGIClient(create_app(s))
    first = c.post("/v1/documents/check", json={"url": "https://a.example/1", "text": TEXT}).json()
    monkeypatch.setattr(HammingIndex, "save", _no_space)  # the snapshot: the disk is full
    with caplog.at_level(logging.INFO, logger="neardup.service"):
        c.close()  # the lifespan's shutdown, as on SIGTERM
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1 and errors[0].exc_info is None, [r.getMessage() for r in errors]
    line = errors[0].getMessage()
    assert "could not save ContentSeen's index snapshot" in line and "No space left on device" in line
    assert "the journal" in line and "holds every acknowledged page" in line and "\n" not in line
    assert not any("state flushed and closed" in r.getMessage() for r in caplog.records)
    monkeypatch.undo()
    be = StateBackend(s)  # the directory's lock was released, and the journal holds the page
    try:
        assert be.check_document("https://b.example/1", None, TEXT, False)["duplicate_of"] == first["doc_id"]
    finally:
        be.close()


def test_service_close_names_a_journal_it_cannot_sync_and_releases_the_state(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    s = ServiceSettings(state=tmp_path / "st", durability="no")  # no background sync: close syncs
    be = StateBackend(s)
    be.check_document("https://a.example/1", None, TEXT, True)
    be.check_urls("job", ["https://a.example/1"])
    monkeypatch.setattr(journal, "_datasync", _no_space)
    with pytest.raises(StoreError, match="could not sync ContentSeen's journal") as info:
        be.close()
    assert "may not be on disk" in str(info.value)
    monkeypatch.undo()
    be = StateBackend(s)
    try:
        assert be.check_urls("job", ["https://a.example/1"]) == [True]
    finally:
        be.close()

"""``neardup dedup`` never hangs on a worker that is alive but stuck: past ``--record-timeout`` the
run stops with one line naming the record, exit 2."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

import neardup.dedup.fingerprints as fpmod
from neardup.cli.main import main

pytestmark = pytest.mark.timeout(120)


def _stall_on_poison(item: tuple[str | None, str | None], extractor: str) -> object:
    if item[1] and "STALL" in item[1]:
        time.sleep(3600)  # a worker alive but stuck (a loop in C, a lock never released)
    return fpmod.read_page(item[0], item[1], extractor)


def test_dedup_stops_at_the_record_deadline_with_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(fpmod, "_read_item", _stall_on_poison)  # the workers are forked: they see it
    pages = tmp_path / "pages.jsonl"
    lines = [
        {"id": f"p{i}", "html": f"<html><body><p>第{i}页的正文内容。</p></body></html>"} for i in range(30)
    ]
    lines[11]["html"] = "<html><body><p>STALL</p></body></html>"
    pages.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), encoding="utf-8")
    out = tmp_path / "out.jsonl"
    t0 = time.monotonic()
    with pytest.raises(SystemExit) as info:
        main(["dedup", str(pages), "-o", str(out), "--workers", "2", "--record-timeout", "5", "-q"])
    assert info.value.code == 2
    assert time.monotonic() - t0 < 100
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert err[0].startswith(
        f"neardup: error: {pages}:12: record 'p11': extracting its main text took over 5 s"
    )
    assert not out.exists()  # nothing half written


def test_record_timeout_must_be_positive_at_the_cli(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pages = tmp_path / "pages.jsonl"
    pages.write_text('{"id": "a", "text": "x"}\n', encoding="utf-8")
    with pytest.raises(SystemExit) as info:
        main(["dedup", str(pages), "-o", str(tmp_path / "o.jsonl"), "--record-timeout", "0"])
    assert info.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["neardup: error: --record-timeout must be > 0 seconds, got 0.0"], err

"""Stored signatures (corpus indexes, ContentSeen states, the service's fleet log) name the engine
that made them (``ENGINE_VERSION`` in their settings) and are refused by another. The version must
therefore change whenever the way a text is read or signed changes: this test pins the signatures
of probe texts, one or more for every pass of the reading, to the version."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from neardup.match.config import ENGINE_VERSION, MatchConfig
from neardup.match.signature import FIELDS, read_as_signed, signatures

PROBES = [
    # credits, quotation, occasion numbers, numbers with a place unit, dates and times, percentages
    "新华社北京5月6日电（记者张三）十三届全国人大常委会第十四次会议今天上午闭幕。"
    "“会议强调要坚持稳中求进的工作总基调，统筹做好疫情防控和经济社会发展工作，确保完成全年目标任务。”"
    "全年增长十五万人，达到1.5万亿元，同比增长百分之六点一。（责任编辑：李四）",
    "二〇二〇年五月六日上午十点半，会议在人民大会堂举行，18:04结束，星期三下午三点整再次开会。",
    # traditional script, Taiwan phrasing
    "國務院今天召開常務會議，部署加強資訊安全和軟體產業發展，會議由總理主持，遊客1.35億人次。",
    # English: house style, British spellings, contractions, numbers, dates, ordinals
    "The U.S. government's programme to organise the centre's defence won't start until "
    "January 10th, 2005, said twenty-five officials; £9.4m, 76 per cent, the third of May, first.",
    "Sept. 3, 2019 at 10.00 a.m.: the colour of the catalogue travelled to the 21st floor.",
    # a reply quoting its parent, a short text, an empty one
    "> I don't think so.\n> The meeting is on Monday.\nYes it is, see you there.",
    "短",
    "",
]

PINNED = ("neardup.match/9", "dc751ac776ce4610e4047c91d2ec1144")


def _digest() -> str:
    sigs = signatures(PROBES, MatchConfig())
    h = hashlib.blake2b(digest_size=16)
    for col in (*(getattr(sigs, name) for name in FIELDS), sigs.prof_ptr, sigs.prof):
        h.update(np.ascontiguousarray(col).tobytes())
    for text in PROBES:
        h.update(read_as_signed(text).encode("utf-8") + b"\0")
    return h.hexdigest()


def test_the_probe_texts_sign_as_this_engine_version_pins() -> None:
    assert (ENGINE_VERSION, _digest()) == PINNED, (
        "the reading or signing of the probe texts changed: bump ENGINE_VERSION in "
        "neardup/match/config.py (stores signed the old way are then refused, with a message to "
        "rebuild) and pin the new version and digest here"
    )


def test_stores_signed_by_another_engine_are_refused_with_what_to_do(tmp_path: Path) -> None:
    """A ContentSeen state and a corpus index written by another engine version name it and say
    what to do, instead of comparing signatures that read text otherwise."""
    from click.testing import CliRunner

    from neardup.cli.main import cli
    from neardup.contentseen import ContentSeen
    from neardup.dedup.index import header_checksum
    from neardup.exceptions import ConfigError

    text = "今天北京天气晴朗，气温适宜，适合出行，市民纷纷走出家门参加户外活动。" * 3
    state = tmp_path / "state"
    cs = ContentSeen(str(state))
    cs.check("https://example.com/1", text=text)
    cs.close()
    header = state / "contentseen.json"
    head = json.loads(header.read_text())
    head["match"]["engine"] = "neardup.match/1"
    header.write_text(json.dumps(head))
    with pytest.raises(ConfigError, match=r"match\.engine='neardup\.match/1', not '" + ENGINE_VERSION):
        ContentSeen(str(state))

    corpus = tmp_path / "c.jsonl"
    corpus.write_text(json.dumps({"id": "a", "text": text}, ensure_ascii=False) + "\n", encoding="utf-8")
    runner = CliRunner()
    assert (
        runner.invoke(cli, ["index", "build", str(corpus), "-o", str(tmp_path / "idx"), "-q"]).exit_code == 0
    )
    hp = tmp_path / "idx" / "header.json"
    head = json.loads(hp.read_text())
    head["settings"]["engine"] = "neardup.match/1"
    head["header_xxh3"] = header_checksum(head)  # as that engine's neardup wrote it
    hp.write_text(json.dumps(head))
    res = runner.invoke(
        cli, ["dedup", str(corpus), "--against", str(tmp_path / "idx"), "-o", str(tmp_path / "o.jsonl")]
    )
    assert res.exit_code != 0
    assert "rebuild it with `neardup index build`" in res.output + str(res.exception)

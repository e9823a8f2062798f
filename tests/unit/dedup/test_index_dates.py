"""The corpus index keeps each row's day: a batch deduplicated --against it tells a yearly notice
from a copy of last year's, and an index written before days (version 3) reads as days unknown."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import orjson
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from neardup.cli.main import cli, main
from neardup.dedup.config import DedupConfig
from neardup.dedup.fingerprints import fingerprint_records
from neardup.dedup.index import DAY, HEADER, VERSION, CorpusIndex, file_xxh3
from neardup.dedup.local import dedup_records
from neardup.io import Record
from neardup.match.dates import NO_DAY, day_number

NOTICE = (
    "国家主席习近平在人民大会堂同智利总统博里奇举行会谈。习近平欢迎博里奇来华进行国事访问。"
    "习近平指出，中方高度重视发展同智利的关系，愿同智方一道推动两国全面战略伙伴关系不断向前发展。"
    "博里奇表示，智方愿同中方加强各领域合作，共同维护多边主义和自由贸易。"
)
EDITED = NOTICE.replace("愿同智方", "愿与智方")
OTHER = "今天天气很好，我们去公园散步，看见许多只鸟在湖边飞来飞去，孩子们在草地上放风筝。"
CFG = DedupConfig(workers=1)


def _fps(rows: list[tuple[str, str, str | None]]):  # type: ignore[no-untyped-def]
    recs = [Record(id=i, text=t, extra={"date": d} if d else {}) for i, t, d in rows]
    return fingerprint_records(recs, CFG)


def _corpus(path: Path) -> CorpusIndex:
    return CorpusIndex.create(path, CFG, _fps([("a2023", NOTICE, "2023-03-01"), ("x", OTHER, None)]))


def test_build_and_merge_store_the_days_and_readers_give_them_back(tmp_path: Path) -> None:
    ix = _corpus(tmp_path / "idx")
    assert ix.header["version"] == VERSION == 4 and ix.info()["days_unknown"] == 0
    ix.append(_fps([("b2024", EDITED, "2024-03-01")]))
    ix = CorpusIndex.open(tmp_path / "idx")
    days = np.concatenate([s.day for _, s in ix.iter_signatures()]).tolist()
    assert days == [day_number("2023-03-01"), NO_DAY, day_number("2024-03-01")]
    ids, sigs = ix.lookup(np.array([0, 2]))
    assert ids == ["a2023", "b2024"] and sigs.day.tolist() == [days[0], days[2]]


def test_against_the_index_next_years_notice_is_another_occasion(tmp_path: Path) -> None:
    ix = _corpus(tmp_path / "idx")
    batch = [
        Record(id="b2024", text=EDITED, extra={"date": "2024-03-01"}),
        Record(id="c2023", text=EDITED + "记者报道。", extra={"date": "2023-03-04"}),
    ]
    rows = {r["id"]: r for r in dedup_records(batch, CFG, against=ix)}
    assert rows["b2024"]["duplicate_of"] is None and rows["b2024"]["kind"] != "near"
    assert rows["c2023"]["duplicate_of"] == "a2023" and rows["c2023"]["kind"] == "near"
    shown = DedupConfig.from_dict({"workers": 1, "match": {"report_templates": True}})
    rows = {r["id"]: r for r in dedup_records(batch[:1], shown, against=ix)}
    assert rows["b2024"]["kind"] == "template"


def _as_version_3(path: Path) -> None:
    """Rewrite an index as version 3 wrote it: parts without the day column, header version 3."""
    header = orjson.loads((path / HEADER).read_bytes())
    for seg in header["segments"]:
        for pt in seg["parts"]:
            f = path / seg["name"] / pt["file"]
            pq.write_table(pq.read_table(f).drop_columns([DAY]), f)
            pt.update(bytes=f.stat().st_size, xxh3=file_xxh3(f))
        del seg["days"]
    header["version"] = 3
    del header["header_xxh3"]  # version 3 wrote none
    (path / HEADER).write_bytes(orjson.dumps(header))


def test_a_version_3_index_reads_with_unknown_days_and_a_merge_adds_them(tmp_path: Path) -> None:
    _corpus(tmp_path / "idx")
    _as_version_3(tmp_path / "idx")
    ix = CorpusIndex.open(tmp_path / "idx")
    ix.verify()
    assert ix.info()["days_unknown"] == 2
    shown = CliRunner().invoke(cli, ["index", "info", str(tmp_path / "idx")])
    assert shown.exit_code == 0 and "unknown for 2 documents" in shown.output
    assert np.concatenate([s.day for _, s in ix.iter_signatures()]).tolist() == [NO_DAY, NO_DAY]
    # no day for the corpus row: the text decides, as before days were stored
    batch = [Record(id="b2024", text=EDITED, extra={"date": "2024-03-01"})]
    assert next(dedup_records(batch, CFG, against=ix))["duplicate_of"] == "a2023"
    ix.append(_fps([("b2024", EDITED, "2024-03-01")]))
    ix = CorpusIndex.open(tmp_path / "idx")
    assert ix.header["version"] == 4 and ix.info()["days_unknown"] == 2
    assert ix.lookup(np.array([1, 2]))[1].day.tolist() == [NO_DAY, day_number("2024-03-01")]


def test_the_command_line_builds_and_dedups_against_with_the_days(tmp_path: Path) -> None:
    def write(name: str, docs: list[dict[str, str]]) -> Path:
        p = tmp_path / name
        p.write_text("".join(json.dumps(d, ensure_ascii=False) + "\n" for d in docs), encoding="utf-8")
        return p

    corpus = write("corpus.jsonl", [{"id": "a2023", "text": NOTICE, "date": "20230301"}])
    batch = write(
        "batch.jsonl",
        [
            {"id": "b2024", "text": EDITED, "date": "20240301"},
            {"id": "c2023", "text": NOTICE + "记者报道。", "date": "20230305"},
        ],
    )
    with pytest.raises(SystemExit) as stop:
        main(["index", "build", str(corpus), "-o", str(tmp_path / "idx"), "-j", "1", "-q"])
    assert stop.value.code == 0
    out = tmp_path / "out.jsonl"
    with pytest.raises(SystemExit) as stop:
        main(["dedup", str(batch), "--against", str(tmp_path / "idx"), "-o", str(out), "-j", "1", "-q"])
    assert stop.value.code == 0
    rows = {r["id"]: r for r in map(json.loads, out.read_text(encoding="utf-8").splitlines())}
    assert rows["b2024"]["duplicate_of"] is None
    assert rows["c2023"]["duplicate_of"] == "a2023"

"""ContentSeen reads pages' dates: next year's yearly notice is another occasion, not a duplicate."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import orjson
import pytest

from neardup.contentseen import ContentSeen
from neardup.contentseen.fleet import LogEntry, MemoryLog
from neardup.contentseen.records import DocRecord
from neardup.exceptions import FormatError, InputError
from neardup.match import MatchConfig
from neardup.match.dates import NO_DAY, day_number

NOTICE = (
    "国家主席习近平在人民大会堂同智利总统博里奇举行会谈。习近平欢迎博里奇来华进行国事访问。"
    "习近平指出，中方高度重视发展同智利的关系，愿同智方一道推动两国全面战略伙伴关系不断向前发展。"
    "博里奇表示，智方愿同中方加强各领域合作，共同维护多边主义和自由贸易。"
)
EDITED = NOTICE.replace("愿同智方", "愿与智方")
SHOWN = MatchConfig(report_templates=True)


def test_a_near_copy_a_year_later_is_a_template_and_days_apart_a_week_stay_near() -> None:
    with ContentSeen(match=SHOWN) as cs:
        assert cs.check("https://a.example/2023", text=NOTICE, date="2023-03-01").kind == "new"
        later = cs.check("https://a.example/2024", text=EDITED, date=dt.date(2024, 3, 1))
        assert later.kind == "template"
        # a week after that one: the same occasion
        week = cs.check("https://b.example/2024", text=EDITED + "记者报道。", date="1709856000")
        assert (week.kind, week.duplicate_url) == ("near", "https://a.example/2024")


def test_without_dates_or_with_one_unreadable_the_text_decides() -> None:
    with ContentSeen() as cs:
        cs.check("https://a.example/1", text=NOTICE)
        assert cs.check("https://a.example/2", text=EDITED, add=False).kind == "near"
        assert cs.check("https://a.example/2", text=EDITED, add=False, date="next year").kind == "near"
        # a value no date can be read from (a list) is refused, as the service refuses it (422)
        with pytest.raises(InputError, match="date"):
            cs.check("https://a.example/2", text=EDITED, add=False, date=[2024])


def test_an_exact_copy_on_another_date_stays_a_duplicate_and_keeps_its_own_day() -> None:
    with ContentSeen() as cs:
        cs.check("https://a.example/1", text=NOTICE, date="2023-03-01")
        v = cs.check("https://mirror.example/1", text=NOTICE, date="2024-03-01")
        assert v.kind == "exact"
        # the copy was remembered with its own date: an edit a day later is its near copy
        v2 = cs.check("https://a.example/3", text=EDITED, date="2024-03-02", add=False)
        assert (v2.kind, v2.duplicate_of) == ("near", 1)
        assert cs._state.engine.sigs.day[1] == day_number("2024-03-01")


def test_the_analysed_path_takes_the_date_too() -> None:
    with ContentSeen() as cs:
        cs.check_analysed("https://a.example/1", cs.analyse(text=NOTICE), date="2023-03-01")
        v = cs.check_analysed("https://a.example/2", cs.analyse(text=EDITED), date="2024-03-01")
        assert v.kind == "new"  # a template, not reported without report_templates


def test_a_state_directory_replays_the_days_of_its_journal(tmp_path: Path) -> None:
    with ContentSeen(tmp_path / "s") as cs:
        cs.check("https://a.example/2023", text=NOTICE, date="2023-03-01")
        cs.check("https://a.example/undated", text="只有一句话的短文，没有日期。")
    assert orjson.loads((tmp_path / "s" / "contentseen.json").read_bytes())["version"] == 4
    with ContentSeen(tmp_path / "s", match=SHOWN) as cs:
        v = cs.check("https://a.example/2024", text=EDITED, date="2024-03-01", add=False)
        assert v.kind == "template"
        assert cs.check("https://b.example/2023", text=EDITED, date="2023-03-05").kind == "near"


def test_a_version_3_directory_is_read_with_unknown_days_and_carries_on_at_version_4(
    tmp_path: Path,
) -> None:
    with ContentSeen(tmp_path / "s") as cs:
        cs.check("https://a.example/2023", text=NOTICE)  # no date: a record as version 3 wrote it
    header = tmp_path / "s" / "contentseen.json"
    head = orjson.loads(header.read_bytes())
    header.write_bytes(orjson.dumps({**head, "version": 3}))
    with ContentSeen(tmp_path / "s") as cs:
        # the old document's day is unknown: the text decides
        assert cs.check("https://a.example/2024", text=EDITED, date="2024-03-01").kind == "near"
    assert orjson.loads(header.read_bytes())["version"] == 4
    header.write_bytes(orjson.dumps({**head, "version": 2}))
    with pytest.raises(FormatError, match="version 2"):
        ContentSeen(tmp_path / "s")


def test_records_and_log_entries_round_trip_their_day_and_refuse_a_wrong_one() -> None:
    d = DocRecord(1, "u", "new", 1, None, b"sig", (7,), 0.0, day=19_500)
    assert DocRecord.from_record(d.record()).day == 19_500
    assert DocRecord.from_record(DocRecord(1, "u", "new", 1, None, b"", (), 0.0).record()).day == NO_DAY
    bad = d.record().replace(b'"d":19500', b'"d":"x"')
    with pytest.raises(ValueError, match="day"):
        DocRecord.from_record(bad)
    e = LogEntry("u", 1, b"\x00", (1,), ("甲。",), 1.5, 19_500)
    assert LogEntry.decode(e.encode()) == e
    with pytest.raises(FormatError):
        LogEntry.decode(e.encode().replace(b'"d":19500', b'"d":1.5'))


def test_fleet_members_decide_with_the_days_of_each_others_entries() -> None:
    log = MemoryLog()
    a, b = ContentSeen(fleet=log, match=SHOWN), ContentSeen(fleet=log, match=SHOWN)
    assert a.check("https://a.example/2023", text=NOTICE, date="2023-03-01").kind == "new"
    assert b.check("https://b.example/2024", text=EDITED, date="2024-03-01").kind == "template"
    assert a.check("https://a.example/2024", text=EDITED + "记者报道。", date="2024-03-02").kind == "near"
    a.close()
    b.close()


def test_document_and_duplicates_show_each_pages_date_after_a_reopen(tmp_path: Path) -> None:
    with ContentSeen(tmp_path / "s") as cs:
        first = cs.check("https://a.example/1", text=NOTICE, date="2023-03-01")
        copy = cs.check("https://b.example/1", text=NOTICE)
        assert cs.document(first.doc_id)["date"] == "2023-03-01"  # type: ignore[index]
    with ContentSeen(tmp_path / "s") as cs:
        group = cs.duplicates(copy.doc_id)
        assert group["date"] is None
        assert [d["date"] for d in group["duplicates"]] == ["2023-03-01"]

"""A fleet on a real Redis log carries pages' days: every member decides a yearly notice alike."""

from __future__ import annotations

from pathlib import Path

import pytest

from neardup.contentseen import ContentSeen
from neardup.match import MatchConfig

pytestmark = pytest.mark.redis

NOTICE = (
    "国家主席习近平在人民大会堂同智利总统博里奇举行会谈。习近平欢迎博里奇来华进行国事访问。"
    "习近平指出，中方高度重视发展同智利的关系，愿同智方一道推动两国全面战略伙伴关系不断向前发展。"
    "博里奇表示，智方愿同中方加强各领域合作，共同维护多边主义和自由贸易。"
)
EDITED = NOTICE.replace("愿同智方", "愿与智方")
SHOWN = MatchConfig(report_templates=True)


def test_members_and_a_restarted_member_read_the_days_of_the_log_entries(
    redis_url: str, tmp_path: Path
) -> None:
    url = f"{redis_url}?prefix=dates1"
    a = ContentSeen(tmp_path / "a", fleet=url, match=SHOWN)
    b = ContentSeen(fleet=url, match=SHOWN)
    try:
        assert a.check("https://a.example/2023", text=NOTICE, date="2023-03-01").kind == "new"
        v = b.check("https://b.example/2024", text=EDITED, date="2024-03-01")
        assert v.kind == "template"
        a.catch_up()
    finally:
        a.close()
        b.close()
    # a new member rebuilt from the log, and the restarted one from its directory: the same days
    for state in (None, tmp_path / "a"):
        with ContentSeen(state, fleet=url, match=SHOWN) as c:
            late = c.check("https://c.example/2024", text=EDITED + "记者报道。", date="2024-03-03", add=False)
            assert (late.kind, late.duplicate_url) == ("near", "https://b.example/2024")

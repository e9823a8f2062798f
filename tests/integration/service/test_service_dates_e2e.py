"""A real ``neardup serve``: next year's yearly notice is not a duplicate of this year's, after a restart too."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from service_proc import ServiceProcess

from neardup.client import Client
from neardup.exceptions import InputError

pytestmark = pytest.mark.timeout(400)

NOTICE = (
    "国家主席习近平在人民大会堂同智利总统博里奇举行会谈。习近平欢迎博里奇来华进行国事访问。"
    "习近平指出，中方高度重视发展同智利的关系，愿同智方一道推动两国全面战略伙伴关系不断向前发展。"
    "博里奇表示，智方愿同中方加强各领域合作，共同维护多边主义和自由贸易。"
)
EDITED = NOTICE.replace("愿同智方", "愿与智方")


def test_the_service_decides_with_the_dates_it_journalled(tmp_path: Path) -> None:
    svc = ServiceProcess(tmp_path / "state", tmp_path / "serve.log")
    with svc, Client(svc.url, timeout=60) as c:
        first = c.check("https://a.example/2023", text=NOTICE, date="2023-03-01")
        later = c.check("https://a.example/2024", text=EDITED, date="2024-03-01")
        assert (first.kind, later.kind) == ("new", "new")  # another occasion: not a duplicate
        assert svc.restart() == 0, svc.log()[-2000:]
        week = c.check("https://b.example/2024", text=EDITED + "记者报道。", date=1709424000, add=False)
        assert (week.kind, week.duplicate_of) == ("near", later.doc_id)
        undated = c.check("https://c.example/x", text=EDITED, add=False)
        assert undated.kind == "exact"
        r = httpx.post(
            f"{svc.url}/v1/documents/check",
            json={"url": "https://a.example/1", "text": NOTICE, "date": [2024]},
            timeout=60,
        )
        assert r.status_code == 422 and set(r.json()) == {"error", "detail", "errors"}
        assert r.json()["detail"] == (
            "body.date: expected an ISO date or date-time string (2024-03-01, 2024-03-01T08:00:00Z), "
            "Unix seconds or milliseconds (a number), or null; got an array"
        )
        with pytest.raises(InputError, match="date"):
            c.check("https://a.example/1", text=NOTICE, date={"y": 2024})
    assert "Traceback" not in svc.log()

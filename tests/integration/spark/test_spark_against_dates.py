"""``neardup spark dedup --against`` reads the corpus rows' days and its merge writes the batch's,
as ``neardup dedup --against --merge`` does: the same lines, the same index bytes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from neardup.cli.main import cli

pytestmark = [
    pytest.mark.spark,
    pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning"),
    pytest.mark.filterwarnings("ignore::ResourceWarning"),
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
]

NOTICE = (
    "国家主席习近平在人民大会堂同智利总统博里奇举行会谈。习近平欢迎博里奇来华进行国事访问。"
    "习近平指出，中方高度重视发展同智利的关系，愿同智方一道推动两国全面战略伙伴关系不断向前发展。"
    "博里奇表示，智方愿同中方加强各领域合作，共同维护多边主义和自由贸易。"
)
EDITED = NOTICE.replace("愿同智方", "愿与智方")


def _write(path: Path, docs: list[dict[str, str]]) -> str:
    path.write_text("".join(json.dumps(d, ensure_ascii=False) + "\n" for d in docs), encoding="utf-8")
    return str(path)


def _run(*args: str) -> None:
    res = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert res.exit_code == 0, res.output


def _header(p: Path) -> dict[str, Any]:
    h = json.loads((p / "header.json").read_text())
    return {k: v for k, v in h.items() if k not in ("created", "updated")}


@pytest.mark.timeout(900)
def test_spark_against_tells_next_years_notice_apart_and_merges_the_days_as_dedup_does(
    spark: Any, tmp_path: Path
) -> None:
    corpus = _write(tmp_path / "c.jsonl", [{"id": "a2023", "text": NOTICE, "date": "2023-03-01"}])
    _run("index", "build", corpus, "-o", str(tmp_path / "idx-local"), "-j", "1", "-q")
    shutil.copytree(tmp_path / "idx-local", tmp_path / "idx-spark")
    batch = _write(
        tmp_path / "b.jsonl",
        [
            {"id": "b2024", "text": EDITED, "date": "2024-03-01"},
            {"id": "c2023", "text": NOTICE + "记者报道。", "date": "2023-03-05"},
        ],
    )
    local, remote = tmp_path / "local.jsonl", tmp_path / "spark.jsonl"
    _run("dedup", batch, "--against", str(tmp_path / "idx-local"), "--merge", "--out", str(local), "-j", "1")
    _run("spark", "dedup", batch, "--against", str(tmp_path / "idx-spark"), "--merge", "--out", str(remote))
    lines = local.read_text(encoding="utf-8")
    assert "".join(p.read_text(encoding="utf-8") for p in sorted(remote.glob("part-*.jsonl"))) == lines
    rows = {r["id"]: r for r in map(json.loads, lines.splitlines())}
    assert rows["b2024"]["duplicate_of"] is None
    assert rows["c2023"]["duplicate_of"] == "a2023"
    # the merged segments hold the same days: the same bytes, the same checksums
    assert _header(tmp_path / "idx-local") == _header(tmp_path / "idx-spark")
    # and the days read back on both sides: next year's copy of b2024 is its duplicate, not a2023's
    again = _write(
        tmp_path / "d.jsonl", [{"id": "d2024", "text": EDITED + "记者报道。", "date": "2024-03-02"}]
    )
    for idx, out in (("idx-local", "l2.jsonl"), ("idx-spark", "s2.jsonl")):
        cmd = ["dedup", "-j", "1"] if idx == "idx-local" else ["spark", "dedup"]
        _run(*cmd, again, "--against", str(tmp_path / idx), "--out", str(tmp_path / out))
    l2 = (tmp_path / "l2.jsonl").read_text(encoding="utf-8")
    s2 = "".join(p.read_text(encoding="utf-8") for p in sorted((tmp_path / "s2.jsonl").glob("part-*.jsonl")))
    assert l2 == s2 and json.loads(l2)["duplicate_of"] == "b2024"

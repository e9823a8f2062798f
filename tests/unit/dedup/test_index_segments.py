"""A segment is written as one part per ``CHUNK_ROWS`` rows (the chunks every reader streams, and
what the Spark merge's executors write), and parts written elsewhere become a segment through
``commit_segment``: checked, renamed into place, named by a new header; refused when another merge
landed first."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

from neardup.dedup import index as index_mod
from neardup.dedup.config import DedupConfig
from neardup.dedup.fingerprints import fingerprint_texts
from neardup.dedup.index import CorpusIndex, arrow_table, file_xxh3
from neardup.exceptions import FormatError, StoreError

CFG = DedupConfig(workers=1)


def texts(n: int, tag: str) -> list[str]:
    return [f"{tag}第{i}篇：今天天气很好，我们去公园散步，看见{i}只鸟。" for i in range(n)]


def test_a_segment_is_written_one_part_per_chunk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(index_mod, "CHUNK_ROWS", 2)
    fps = fingerprint_texts(texts(5, "a"), CFG)
    ix = CorpusIndex.create(tmp_path / "idx", CFG, fps)
    parts = ix.segments[0]["parts"]
    assert [p["file"] for p in parts] == ["part-00000.parquet", "part-00001.parquet", "part-00002.parquet"]
    assert [p["rows"] for p in parts] == [2, 2, 1]
    ix.verify()
    pos = np.concatenate([p for p, _ in ix.iter_signatures()])
    assert pos.tolist() == [0, 1, 2, 3, 4]
    ids, sigs = ix.lookup(np.array([1, 4]))
    assert ids == [fps.ids[1], fps.ids[4]] and np.array_equal(sigs.sketch, fps.sigs.sketch[[1, 4]])


def _part(tmp: Path, fps, start: int) -> dict[str, object]:  # type: ignore[no-untyped-def]
    f = tmp / "part-00000.parquet"
    pq.write_table(arrow_table(fps, start), f, row_group_size=index_mod.CHUNK_ROWS)
    return {"file": f.name, "rows": len(fps), "bytes": f.stat().st_size, "xxh3": file_xxh3(f)}


def test_parts_written_elsewhere_become_the_next_segment(tmp_path: Path) -> None:
    ix = CorpusIndex.create(tmp_path / "idx", CFG, fingerprint_texts(texts(3, "a"), CFG))
    more = fingerprint_texts(texts(2, "b"), CFG)
    tmp = ix.segment_tmp("seg-00001")
    assert tmp.name.startswith(".seg-00001.tmp-")
    ix.commit_segment(tmp, 2, [_part(tmp, more, 3)])
    assert not tmp.exists()
    again = CorpusIndex.open(tmp_path / "idx")
    again.verify()
    assert len(again) == 5 and [s["name"] for s in again.segments] == ["seg-00000", "seg-00001"]
    assert again.lookup(np.array([3, 4]))[0] == more.ids


def test_a_commit_is_refused_when_another_merge_landed_first(tmp_path: Path) -> None:
    ix = CorpusIndex.create(tmp_path / "idx", CFG, fingerprint_texts(texts(3, "a"), CFG))
    CorpusIndex.open(tmp_path / "idx").append(fingerprint_texts(texts(1, "c"), CFG))  # another run
    more = fingerprint_texts(texts(2, "b"), CFG)
    tmp = ix.segment_tmp("seg-00001")
    with pytest.raises(StoreError, match="another merge added 1 documents"):
        ix.commit_segment(tmp, 2, [_part(tmp, more, 3)])
    assert not tmp.exists() and len(CorpusIndex.open(tmp_path / "idx")) == 4


def test_a_merge_that_keeps_nothing_adds_no_segment(tmp_path: Path) -> None:
    ix = CorpusIndex.create(tmp_path / "idx", CFG, fingerprint_texts(texts(3, "a"), CFG))
    header = (tmp_path / "idx" / "header.json").read_bytes()
    ix.append(fingerprint_texts([], CFG))
    assert (tmp_path / "idx" / "header.json").read_bytes() == header
    assert [s["name"] for s in CorpusIndex.open(tmp_path / "idx").segments] == ["seg-00000"]


def test_a_header_listing_a_part_twice_is_refused(tmp_path: Path) -> None:
    import json

    CorpusIndex.create(tmp_path / "idx", CFG, fingerprint_texts(texts(3, "a"), CFG))
    hp = tmp_path / "idx" / "header.json"
    header = json.loads(hp.read_text())
    seg = header["segments"][0]
    seg["parts"].append(dict(seg["parts"][0]))
    seg["count"] *= 2
    header["count"] *= 2
    hp.write_text(json.dumps(header))
    with pytest.raises(FormatError, match="the header's checksum does not match its content"):
        CorpusIndex.open(tmp_path / "idx")
    del header["header_xxh3"]  # as a header written before the checksum
    hp.write_text(json.dumps(header))
    with pytest.raises(FormatError, match="lists a part twice"):
        CorpusIndex.open(tmp_path / "idx")

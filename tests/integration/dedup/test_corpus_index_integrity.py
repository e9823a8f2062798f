"""A damaged corpus index is refused with one line and exit 2: never read as "every document unique"."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import orjson
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "unit" / "dedup"))
from dedup_synth import make_docs
from dedup_synth import run_main as run

from neardup.cli.main import main
from neardup.dedup.index import VERSION, CorpusIndex
from neardup.exceptions import FormatError, StoreError


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A corpus, an index of it (two segments), and a batch holding exact copies of corpus docs."""
    d = tmp_path_factory.mktemp("ix")
    docs = make_docs(30, seed=3)
    (d / "corpus.jsonl").write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in docs[:20]))
    (d / "more.jsonl").write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in docs[20:]))
    batch = [{"id": f"copy-{x['id']}", "text": x["text"]} for x in docs[:5]]
    (d / "batch.jsonl").write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in batch))
    with pytest.raises(SystemExit) as e:
        main(["index", "build", str(d / "corpus.jsonl"), "-o", str(d / "idx"), "-j", "1", "-q"])
    assert e.value.code == 0
    with pytest.raises(SystemExit) as e:
        main(
            [
                *("dedup", str(d / "more.jsonl"), "--against", str(d / "idx"), "--merge"),
                *("-o", str(d / "m.jsonl"), "-j", "1", "-q"),
            ]
        )
    assert e.value.code == 0
    return d, d / "idx"


@pytest.fixture
def idx(built: tuple[Path, Path], tmp_path: Path) -> Path:
    copy = tmp_path / "idx"
    shutil.copytree(built[1], copy)
    return copy


def _part(idx: Path) -> Path:
    return next((idx / "seg-00000").glob("*.parquet"))


def _dedup(
    built: tuple[Path, Path], idx: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> tuple[int, str]:
    code, _, err = run(
        [
            "dedup",
            str(built[0] / "batch.jsonl"),
            "--against",
            str(idx),
            "-o",
            str(tmp_path / "o.jsonl"),
            "-j",
            "1",
        ],
        capsys,
    )
    return code, err


def test_intact_index_finds_the_copies_and_verifies(
    built: tuple[Path, Path], idx: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _ = _dedup(built, idx, tmp_path, capsys)
    rows = [json.loads(x) for x in (tmp_path / "o.jsonl").read_text().splitlines()]
    assert code == 0 and all(r["kind"] == "exact" for r in rows)
    code, out, _ = run(["index", "info", str(idx), "--verify"], capsys)
    assert code == 0 and "verified   2 parts" in out and "2 by xxh3 checksum" in out
    header = orjson.loads((idx / "header.json").read_bytes())
    assert header["version"] == VERSION and all(len(s["parts"]) == 1 for s in header["segments"])


@pytest.mark.parametrize("damage", ["deleted", "renamed", "truncated"])
def test_missing_renamed_or_truncated_part_is_refused_on_open(
    built: tuple[Path, Path],
    idx: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    damage: str,
) -> None:
    part = _part(idx)
    if damage == "deleted":
        part.unlink()
    elif damage == "renamed":
        part.rename(part.with_name("part-x.parquet"))
    else:
        part.write_bytes(part.read_bytes()[:-100])
    for args in (["index", "info", str(idx)], None):
        code, err = run(args, capsys)[::2] if args else _dedup(built, idx, tmp_path, capsys)  # type: ignore[assignment]
        assert code == 2 and err.count("\n") == 1 and "Traceback" not in err, err
        assert "part-00000.parquet" in err
    assert not (tmp_path / "o.jsonl").exists()


def test_header_listing_no_segments_is_refused(idx: Path, capsys: pytest.CaptureFixture[str]) -> None:
    header = orjson.loads((idx / "header.json").read_bytes())
    del header["header_xxh3"]  # as a header written before the checksum (with it: refused by it)
    (idx / "header.json").write_bytes(orjson.dumps({**header, "segments": []}))
    code, _, err = run(["index", "info", str(idx)], capsys)
    assert code == 2 and f"the segments hold 0 documents but the header says {header['count']}" in err


def test_flipped_bytes_in_a_part_are_refused_not_read_as_unique(
    built: tuple[Path, Path], idx: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    part = _part(idx)
    data = bytearray(part.read_bytes())
    for at in (len(data) // 3, len(data) // 2, 2 * len(data) // 3):
        data[at] ^= 0xFF
    part.write_bytes(bytes(data))
    code, err = _dedup(built, idx, tmp_path, capsys)
    assert code == 2 and err.count("\n") == 1 and "checksum" in err and "part is damaged" in err
    code, _, err = run(["index", "info", str(idx), "--verify"], capsys)
    assert code == 2 and "checksum" in err


def test_segment_without_a_part_list_is_still_read_and_row_checked(
    built: tuple[Path, Path], idx: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # what a Spark merge on HDFS/S3 writes: a segment entry without "parts"
    header = orjson.loads((idx / "header.json").read_bytes())
    del header["header_xxh3"]  # written before the checksum, as the part lists
    old = {**header, "segments": [{k: v for k, v in s.items() if k != "parts"} for s in header["segments"]]}
    (idx / "header.json").write_bytes(orjson.dumps(old))
    code, out, _ = run(["index", "info", str(idx)], capsys)
    assert code == 0 and "checksums  none" in out
    code, _ = _dedup(built, idx, tmp_path, capsys)
    assert code == 0
    _part(idx).unlink()
    code, _, err = run(["index", "info", str(idx)], capsys)
    assert code == 2 and "has no part files" in err


def test_a_merge_that_finds_the_index_changed_is_refused(built: tuple[Path, Path], idx: Path) -> None:
    from neardup.dedup.config import DedupConfig
    from neardup.dedup.fingerprints import fingerprint_texts

    first, second = CorpusIndex.open(idx), CorpusIndex.open(idx)  # two concurrent --merge runs
    before = len(first)
    cfg = DedupConfig(workers=1)
    fps = fingerprint_texts(["一篇新的文章，讲的是秋天的收成。"], cfg)
    first.append(fps)
    with pytest.raises(StoreError, match=r"another merge added 1 documents .* nothing was merged"):
        second.append(fps)
    again = CorpusIndex.open(idx)
    assert len(again) == before + 1 and len(again.segments) == 3
    again.verify()


def test_damaged_part_list_in_the_header_is_a_format_error(idx: Path) -> None:
    header = orjson.loads((idx / "header.json").read_bytes())
    header["segments"][0]["parts"] = [{"file": "part-00000.parquet"}]
    (idx / "header.json").write_bytes(orjson.dumps(header))
    with pytest.raises(FormatError, match="part list of segment seg-00000 is damaged"):
        CorpusIndex.open(idx)


def test_a_header_edited_in_place_is_refused_by_its_checksum(
    idx: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Settings changed by hand would make dedup read the index's signatures as another engine's."""
    header = orjson.loads((idx / "header.json").read_bytes())
    header["settings"]["sketch_size"] = 64
    (idx / "header.json").write_bytes(orjson.dumps(header))
    code, _, err = run(["index", "info", str(idx)], capsys)
    assert code == 2 and "the header's checksum does not match its content" in err

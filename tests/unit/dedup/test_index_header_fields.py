"""Index headers are checked field by field: a wrong type or range is one FormatError naming the
field (CLI: one line, exit 2), never a traceback; a segment or part name cannot leave the index."""

from __future__ import annotations

import json
import struct
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import xxhash
from dedup_synth import run_main

from neardup.dedup.config import DedupConfig
from neardup.dedup.fingerprints import fingerprint_texts
from neardup.dedup.index import CorpusIndex
from neardup.exceptions import FormatError
from neardup.index import HammingIndex


@pytest.fixture
def index(tmp_path: Path) -> Path:
    fps = fingerprint_texts(
        [f"第{i}篇：今天天气很好，我们去公园散步。" for i in range(5)], DedupConfig(workers=1)
    )
    CorpusIndex.create(tmp_path / "idx", DedupConfig(workers=1), fps)
    return tmp_path / "idx"


EDITS: list[tuple[str, Any]] = [
    ("count", "abc"),
    ("count", -1),
    ("count", True),
    ("settings", "x"),
    ("segments", "x"),
    ("segments", [5]),
    ("updated", "yesterday"),
    ("segments.0.name", "../../etc"),
    ("segments.0.count", "5"),
    ("segments.0.start", None),
    ("segments.0.parts", {"file": "x"}),
    ("segments.0.parts.0.file", "/etc/passwd"),
    ("segments.0.parts.0.rows", 1.5),
    ("segments.0.parts.0.bytes", [1]),
    ("segments.0.parts.0.xxh3", 7),
]


@pytest.mark.parametrize(("field", "value"), EDITS)
def test_a_header_field_of_the_wrong_type_or_range_is_one_line(
    index: Path, field: str, value: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    hp = index / "header.json"
    header = json.loads(hp.read_text())
    *path, last = field.split(".")
    node: Any = header
    for key in path:
        node = node[int(key)] if isinstance(node, list) else node[key]
    node[last] = value
    hp.write_text(json.dumps(header))
    with pytest.raises(FormatError, match=r"the header is damaged|must be|is damaged"):
        CorpusIndex.open(index)
    code, _, err = run_main(["index", "info", str(index)], capsys)
    assert code == 2
    assert len(err.strip().splitlines()) == 1 and err.startswith("neardup: error: "), err


def test_a_hamming_index_header_with_a_recomputed_checksum_is_still_checked(tmp_path: Path) -> None:
    ix = HammingIndex(64, 3)
    ix.add_many(np.arange(200, dtype=np.int64), np.arange(100, 300, dtype=np.uint64))
    path = tmp_path / "x.hx"
    ix.save(path)
    raw = bytearray(path.read_bytes())
    prefix = struct.Struct("<8sIIQ")
    magic, version, hlen, _ = prefix.unpack_from(raw)
    blob = bytes(raw[prefix.size : prefix.size + hlen])
    assert b'"count": 200' in blob
    forged = blob.replace(b'"count": 200', b'"count": "a"')  # same length: offsets stay
    raw[: prefix.size] = prefix.pack(magic, version, hlen, xxhash.xxh3_64_intdigest(forged))
    raw[prefix.size : prefix.size + hlen] = forged
    path.write_bytes(bytes(raw))
    with pytest.raises(FormatError, match="index header field count is 'a'"):
        HammingIndex.open(path)

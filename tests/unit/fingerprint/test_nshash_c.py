"""The C scanner (``_nshash_c``, built at install) gives the numba scanner's rows, counts and md5 keys bit for bit."""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import random
from pathlib import Path

import numpy as np
import pytest

from neardup.fingerprint import _nshash_keys
from neardup.fingerprint import _nshash_scan as numba_scan

_nshash_c = pytest.importorskip("neardup.fingerprint._nshash_c", reason="the C extension is not built here")

DATA = Path(os.environ.get("NEARDUP_DATA", Path(__file__).resolve().parents[3].parent / "shared" / "data"))
# characters the scanner treats apart: terminators, closers, Latin ends, every kind of space,
# CJK inside and outside the fast path's lead bytes, 2- and 4-byte UTF-8, a lone surrogate
_ALPHABET = list("。！？；!?;…”’」』）)\"'.]  \t\n\r\x0b\x0c\x1c\x85\xa0\u1680\u2000\u200a\u2028\u202f\u205f\u3000"
                 "abcXYZ019一中国人民龘ㄅ가éß€😀\ud800")  # fmt: skip


def _random_texts(k: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choices(_ALPHABET, k=rng.randint(0, 120))) for _ in range(k)]


def _corpus(limit: int) -> list[str]:
    out: list[str] = []
    for name in ("zh-xwlb.jsonl.gz", "en-bbc.jsonl.gz", "zh-rmrb-xwlb-2020.jsonl.gz", "en-20news.jsonl.gz"):
        with gzip.open(DATA / name, "rt", encoding="utf-8") as f:
            out += [json.loads(line)["text"] for _, line in zip(range(limit), f, strict=False)]
    return out


def _texts() -> list[str]:
    texts = _random_texts(3_000, seed=25)
    if DATA.is_dir():
        texts += _corpus(1_000)
    return texts


def _utf8(s: str) -> bytes:
    return s.encode("utf-8", "surrogatepass")


def test_constants_match_the_numba_module() -> None:
    assert (_nshash_keys.ROW, _nshash_keys.CHANGED, _nshash_keys.LATIN) == (
        numba_scan.ROW,
        numba_scan.CHANGED,
        numba_scan.LATIN,
    )


@pytest.mark.parametrize(
    ("n", "min_chars", "md5"), [(5, 30, True), (1, 0, False), (3, 5, True), (255, 1, False)]
)
def test_scan_one_equals_numba(n: int, min_chars: int, md5: bool) -> None:
    row = numba_scan.ROW
    for text in _texts():
        raw = _utf8(text)
        tops = [np.full((n, row), -7, np.int64) for _ in range(2)]
        heads = [np.zeros(n if md5 else 0, np.uint64) for _ in range(2)]
        tail = np.zeros(128 if md5 else 0, np.uint8)
        got_c = _nshash_c.scan_one(raw, len(text), n, min_chars, tops[0], heads[0], tail)
        got_nb = numba_scan._scan_one(raw, len(text), n, min_chars, tops[1], heads[1], tail)
        assert got_c == got_nb, text
        kept = got_c & (numba_scan.CHANGED - 1)
        assert tops[0][:kept].tolist() == tops[1][:kept].tolist(), text
        assert heads[0][:kept].tolist() == heads[1][:kept].tolist(), text


@pytest.mark.parametrize(("n", "min_chars"), [(5, 30), (2, 0), (7, 12)])
def test_scan_into_equals_numba_scan(n: int, min_chars: int) -> None:
    texts = _texts()
    rng = random.Random(n)
    for start in range(0, len(texts), 700):
        batch = texts[start : start + rng.randint(1, 700)]
        raw = np.frombuffer(_utf8("".join(batch)), np.uint8)
        bounds = np.zeros(len(batch) + 1, np.int64)
        np.cumsum([len(t) for t in batch], out=bounds[1:])
        rows_nb, kept_nb, latin_nb = numba_scan._scan(raw, bounds, n, min_chars)
        rows_c, kept_c, latin_c = _nshash_keys._scan(raw, bounds, n, min_chars)
        assert rows_c.tolist() == rows_nb.tolist()
        assert kept_c.tolist() == kept_nb.tolist()
        assert latin_c.tolist() == latin_nb.tolist()


def test_md5_head_equals_hashlib() -> None:
    rng = random.Random(5)
    for size in [*range(0, 200), 1000, 4096, 100_003]:
        data = rng.randbytes(size)
        assert _nshash_c.md5_head(data) == int.from_bytes(hashlib.md5(data).digest()[:8], "big")


def test_bad_buffers_are_errors_not_crashes() -> None:
    with pytest.raises(ValueError, match="top"):
        _nshash_c.scan_one(b"abc", 3, 5, 0, np.zeros((1, 6), np.int64), np.zeros(0, np.uint64), b"")
    with pytest.raises(BufferError):
        _nshash_c.scan_one(b"abc", 3, 1, 0, b"read-only bytes" * 4, np.zeros(0, np.uint64), b"")
    # a character count beyond the bytes reads nothing past them
    top = np.zeros((2, 6), np.int64)
    assert _nshash_c.scan_one("一句话。".encode(), 1000, 2, 0, top, np.zeros(0, np.uint64), b"") >= 1

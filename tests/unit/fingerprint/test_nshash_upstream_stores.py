"""veelion/nshash's stores are detected and refused with what to do; ``get_nshash(doc, n)`` as upstream."""

from __future__ import annotations

import hashlib
import pickle
from pathlib import Path

import pytest

from neardup.exceptions import FormatError, StoreError
from neardup.fingerprint.nshash import NSHash
from neardup.stores import open_store

DOC = "第一句话写得比较长，说明了这篇文章的主要内容。第二句话稍短一些。第三句。"


def _upstream_leveldb(path: Path) -> None:
    """A LevelDB laid out as veelion/nshash writes it: md5 hex of a sentence -> decimal similar id."""
    plyvel = pytest.importorskip("plyvel")
    db = plyvel.DB(str(path), create_if_missing=True)
    for i, sentence in enumerate(["第一句话写得比较长", "另一篇文章的最长句子", "第三篇"]):
        db.put(hashlib.md5(sentence.encode()).hexdigest().encode(), str(i + 1).encode())
    db.close()


def test_upstream_leveldb_store_is_refused_not_reused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _upstream_leveldb(tmp_path / "crawl.hashdb")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(FormatError, match=r"veelion/nshash LevelDB store .* Re-run your documents"):
        NSHash(name="crawl", hashdb="leveldb")
    with pytest.raises(FormatError, match="veelion/nshash"):
        open_store(f"leveldb://{tmp_path}/crawl.hashdb")
    # the refusal wrote nothing: the upstream database still has its own keys only
    plyvel = pytest.importorskip("plyvel")
    with plyvel.DB(str(tmp_path / "crawl.hashdb")) as db:
        assert sum(1 for _ in db.iterator()) == 3


def test_other_leveldb_data_is_refused(tmp_path: Path) -> None:
    plyvel = pytest.importorskip("plyvel")
    with plyvel.DB(str(tmp_path / "other"), create_if_missing=True) as db:
        db.put(b"user:1", b"{}")
    with pytest.raises(FormatError, match="other data"):
        open_store(f"leveldb://{tmp_path}/other")


def test_leveldb_store_with_missing_parent_folder_says_so(tmp_path: Path) -> None:
    pytest.importorskip("plyvel")
    missing = tmp_path / "no" / "such"
    with pytest.raises(StoreError, match=r"parent folder .*no/such' does not exist; create it first") as info:
        open_store(f"leveldb://{missing}/db")
    assert "another process" not in str(info.value)


def test_upstream_pickle_memory_store_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "news.hashdb.pkl").write_bytes(pickle.dumps({hashlib.md5(b"x").hexdigest(): 1}))
    with pytest.raises(FormatError, match=r"veelion/nshash's memory store: .* never loads pickles"):
        NSHash(name="news", hashdb="memory")
    with pytest.raises(FormatError, match="is a Python pickle"):
        open_store(f"file://{tmp_path}/news.hashdb.pkl")


def test_get_nshash_takes_n_like_upstream() -> None:
    nsh = NSHash(hashdb="memory://", min_sentence_chars=0)
    assert len(nsh.get_nshash(DOC)) == 3
    assert nsh.get_nshash(DOC, 1) == nsh.get_nshash(DOC)[:1]
    assert nsh.get_nshash(DOC, n=2) == nsh.get_nshash(DOC)[:2]

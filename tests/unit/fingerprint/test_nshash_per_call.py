"""One document a call (``NSHash.get_similar``) gives exactly the batch API's keys and ids, with or without numba."""

from __future__ import annotations

import gzip
import json
import os
import random
from pathlib import Path

import pytest

from neardup.fingerprint import _nshash_keys as mod
from neardup.fingerprint._nshash_keys import _keyer
from neardup.fingerprint.nshash import NSHash

DATA = Path(os.environ.get("NEARDUP_DATA", Path(__file__).resolve().parents[3].parent / "shared" / "data"))

_PIECES = ["这是一个足够长的句子，里面有好几个逗号，而且字数超过了三十个字的下限。", "短句。", "第二个也很长的句子，讲的是别的事情，同样超过了三十个字的长度要求！",
           "“引号里的话也算一句，而且要足够长，长到超过三十个字才会被选中。”", "有空格 的 句子　也要 统一处理，长度也要足够长才可以被选中作为关键句。",
           "\n\n", "Mixed ASCII words in a sentence that is long enough to count here; ", "Dr. Smith went home. He was tired and it was late at night!",
           "…", "；", "？！", "\t", "3.5亿元的投资额在这个足够长的句子里出现了一次，小数点不算句末。", "）", "   "]  # fmt: skip


def _texts(k: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    texts = ["".join(rng.choices(_PIECES, k=rng.randint(1, 12))) for _ in range(k)]
    return [t if t.strip() else "一" for t in texts]


def _corpus(limit: int) -> list[str]:
    out: list[str] = []
    for name in ("zh-xwlb.jsonl.gz", "en-bbc.jsonl.gz"):
        with gzip.open(DATA / name, "rt", encoding="utf-8") as f:
            out += [json.loads(line)["text"] for _, line in zip(range(limit), f, strict=False)]
    return out


@pytest.mark.parametrize(("n", "hashfunc", "min_chars"), [(5, "md5", 30), (1, "xxh3", 10), (3, "md5", 0)])
def test_keys_one_python_and_compiled_equal_keys_many(n: int, hashfunc: str, min_chars: int) -> None:
    keyer = _keyer(n, hashfunc, min_chars)
    texts = _texts(2_000, seed=n)
    if DATA.is_dir():
        texts += _corpus(1_500)
    batch = keyer.keys_many(texts)
    assert [keyer._keys_python(t) for t in texts] == batch
    if mod._nshash_c is not None:
        assert [keyer._keys_compiled(t) for t in texts] == batch


def test_get_similar_one_at_a_time_gives_the_batch_ids() -> None:
    texts = _texts(500, seed=3)
    texts += texts[:100]  # reposts
    one = NSHash(hashdb="memory://")
    many = NSHash(hashdb="memory://")
    assert [one.get_similar(t) for t in texts] == many.get_similar_many(texts)


@pytest.mark.parametrize("with_c", [True, False])
def test_get_similar_with_and_without_the_c_scanner(with_c: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the C extension (no compiler at install) one text takes the plain-Python cut."""
    if with_c and mod._nshash_c is None:
        pytest.skip("the C extension is not built here")
    if not with_c:
        monkeypatch.setattr(mod, "_nshash_c", None)
    nsh = NSHash(hashdb="memory://")
    assert nsh.get_similar(_PIECES[0] + _PIECES[2]) == 1
    assert nsh.get_similar(_PIECES[2] + "另加一句。") == 1
    assert nsh.get_similar(b"\xe5\x8f\xa6\xe4\xb8\x80\xe7\xaf\x87\xe3\x80\x82") == 2  # UTF-8 bytes
    with pytest.raises(mod.InputError, match="empty"):
        nsh.get_similar("  \n ")

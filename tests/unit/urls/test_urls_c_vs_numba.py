"""The C URL kernels (``_urls_c``) give what the numba kernels give: canonical keys and their hashes,
the in-memory seen table and the Bloom filter, on nasty, generated and random inputs."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
import xxhash

_c = pytest.importorskip("neardup.urls._urls_c")

from neardup.urls import _kernels, _kernels_nb  # noqa: E402
from neardup.urls.canonical import DEFAULT_DROP_PARAMS, _drop_key, _drop_spec  # noqa: E402

HERE = Path(__file__).resolve().parent


def _urls() -> list[str]:
    rnd = random.Random(11)
    nasty = [u for u in (HERE / "nasty_urls.txt").read_text(encoding="utf-8").splitlines() if u]
    parts = ["http", "https", "HTTP", "hTTps", "ftp"]
    hosts = [
        "a.com",
        "Example.COM",
        "x-y.z",
        "-bad.com",
        "xn--fsqu00a.com",
        "a..b",
        "b_c.d",
        "1.2.3.4",
        "a.com.",
        "[::1]",
    ]
    ports = ["", ":80", ":443", ":8080", ":0", ":065", ":99999", ":"]
    paths = ["", "/", "/a/b", "/./x", "/a/../b", "/%7E", "/a;b", "/.x", "/..y/", "/a b", "/é"]
    queries = [
        "",
        "?",
        "?b=2&a=1",
        "?utm_source=x&q=1",
        "?a=1&a=0&a",
        "?x=a+b&y=%20",
        "?fbclid=1&Z=2",
        "?a=b=c",
        "?&&",
    ]
    frags = ["", "#f", "#"]
    out = list(nasty)
    for _ in range(3000):
        out.append(
            f"{rnd.choice(parts)}://{rnd.choice(hosts)}{rnd.choice(ports)}{rnd.choice(paths)}"
            f"{rnd.choice(queries)}{rnd.choice(frags)}"
        )
    out.append("https://a.com/" + "x" * 300)  # canonical form over 240 bytes: hashed outside
    out.append("https://a.com/" + "y" * 5000)  # over the length limit
    return out


def _buf(urls: list[str]) -> tuple[np.ndarray, np.ndarray]:
    joined = "".join(urls)
    starts = np.zeros(len(urls) + 1, dtype=np.int64)
    np.cumsum([len(u) for u in urls], out=starts[1:])
    cp = np.frombuffer(joined.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    return np.where(cp < 128, cp, 255).astype(np.uint8), starts


def test_xxh3_matches_xxhash():
    data = bytes(random.Random(3).getrandbits(8) for _ in range(300))
    for n in range(0, 241):
        h, ok = _c.xxh3_64(data[:n])
        assert ok and h == xxhash.xxh3_64_intdigest(data[:n]), n
    assert _c.xxh3_64(data[:241]) == (0, False)
    np.testing.assert_array_equal(
        _kernels.SECRET, __import__("neardup.fingerprint._xxh3", fromlist=["x"]).secret()
    )


@pytest.mark.parametrize(
    "drop", [DEFAULT_DROP_PARAMS, frozenset(), frozenset({"utm_*", "q"}), frozenset({"a?c"})]
)
def test_canonical_batch_equal(drop):
    urls = _urls()
    buf, starts = _buf(urls)
    names, offs, is_prefix, mode = _drop_spec(_drop_key(drop))
    res = []
    for fn in (_c.canonical_batch, _kernels_nb.canonical_batch):
        n = len(urls)
        out = np.zeros(4 * buf.shape[0] + n + 8, dtype=np.uint8)
        out_starts = np.empty(n + 1, dtype=np.int64)
        hashes = np.empty(n, dtype=np.uint64)
        status = np.empty(n, dtype=np.int8)
        fn(buf, starts, 4096, names, offs, is_prefix, mode, _kernels.SECRET, out, out_starts, hashes, status)
        res.append((out[: out_starts[-1]], out_starts, hashes, status))
    for a, b in zip(*res, strict=True):
        np.testing.assert_array_equal(a, b)
    status = res[0][3]
    assert (status == 0).sum() > 30 and (status == 1).sum() > 500 and (status == 2).sum() >= 1
    for i, u in enumerate(urls):
        if u.isascii():
            one_c = _c.canonical_one(
                np.frombuffer(u.encode(), np.uint8), 4096, names, offs, is_prefix, mode, _kernels.SECRET
            )
            one_nb = _kernels_nb.canonical_one(
                np.frombuffer(u.encode(), np.uint8), 4096, names, offs, is_prefix, mode, _kernels.SECRET
            )
            assert (int(one_c[0]), int(one_c[1])) == (int(one_nb[0]), int(one_nb[1])), u
            if one_c[1] == 0:
                assert one_c[0] == res[0][2][i]


def test_memory_table_equal():
    rng = np.random.default_rng(4)
    cap = 1 << 10
    tabs = [(np.zeros(cap, np.uint64), np.zeros(cap, np.uint32)) for _ in range(2)]
    mods = (_c, _kernels_nb)
    pool = np.concatenate(
        [rng.integers(0, 2**63, 400, dtype=np.int64).astype(np.uint64), np.array([0, 1, 2], np.uint64)]
    )
    # clustered hashes make long probe runs (the deletion's backward shift is exercised)
    pool = np.concatenate([pool, (np.arange(60, dtype=np.uint64) * np.uint64(cap)) + np.uint64(5)])
    for step in range(60):
        h = rng.choice(pool, size=int(rng.integers(1, 40)))
        now = step * 10
        op = step % 4
        got = []
        for m, (k, v) in zip(mods, tabs, strict=True):
            out = np.zeros(h.shape[0], np.bool_)
            if op == 0:
                r = m.memory_check_add(k, v, h, now, 25 if step % 8 else -1, out)
            elif op == 1:
                r = m.memory_record(k, v, h, now)
            elif op == 2:
                r = m.memory_contains(k, h, out)
            else:
                r = m.memory_remove(k, v, h)
            got.append(
                (
                    tuple(np.atleast_1d(np.asarray(r, dtype=object)).tolist()) if r is not None else None,
                    out.copy(),
                )
            )
        assert got[0][0] == got[1][0]
        np.testing.assert_array_equal(got[0][1], got[1][1])
        np.testing.assert_array_equal(tabs[0][0], tabs[1][0])
        np.testing.assert_array_equal(tabs[0][1], tabs[1][1])
    big = [(np.zeros(4 * cap, np.uint64), np.zeros(4 * cap, np.uint32)) for _ in range(2)]
    for m, (k, v), (ok, ov) in zip(mods, big, tabs, strict=True):
        m.memory_reinsert(k, v, ok, ov)
    np.testing.assert_array_equal(big[0][0], big[1][0])
    np.testing.assert_array_equal(big[0][1], big[1][1])


@pytest.mark.parametrize(("k", "shard_bits", "shards"), [(1, 64, 1), (7, 10_048, 3), (10, 1 << 20, 1)])
def test_bloom_equal(k, shard_bits, shards):
    rng = np.random.default_rng(k)
    hashes = rng.integers(0, 2**63, 5000, dtype=np.int64).astype(np.uint64)
    hashes = np.concatenate([hashes, hashes[:700]])
    pos = [
        (np.empty(hashes.shape[0], np.uint32), np.empty((hashes.shape[0], k), np.uint32)) for _ in range(2)
    ]
    _c.bloom_positions(hashes, k, shard_bits, shards, *pos[0])
    _kernels_nb.bloom_positions(hashes, k, shard_bits, shards, *pos[1])
    for a, b in zip(*pos, strict=True):
        np.testing.assert_array_equal(a, b)
    words = [np.zeros(shard_bits * shards // 64, np.uint64) for _ in range(2)]
    outs = [np.empty(hashes.shape[0], np.bool_) for _ in range(2)]
    n_c = _c.bloom_check_add(words[0], hashes, k, shard_bits, shards, outs[0])
    n_nb = _kernels_nb.bloom_check_add(words[1], hashes, k, shard_bits, shards, outs[1])
    assert n_c == n_nb
    np.testing.assert_array_equal(words[0], words[1])
    np.testing.assert_array_equal(outs[0], outs[1])


def test_urls_fresh_process_imports_no_numba():
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from neardup.urls import SeenURLs, canonical_hashes\n"
        "urls = [f'https://a.com/{i}?utm_source=x&b={i % 7}' for i in range(100)]\n"
        "for opts in ({}, {'bloom': 0.001, 'capacity': 1000}, {'recrawl_after': 60.0}):\n"
        "    with SeenURLs('t', 'memory://', **opts) as s:\n"
        "        assert all(s.check_and_add_many(urls)) and not any(s.check_and_add_many(urls))\n"
        "canonical_hashes(urls)\n"
        "print('numba' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False"]

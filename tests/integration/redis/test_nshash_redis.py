"""nshash on a real Redis: four processes assign ids concurrently and get the grouping one process gets."""

from __future__ import annotations

import json
import multiprocessing
import random
from pathlib import Path
from typing import Any

import pytest

from neardup.fingerprint.nshash import NSHash
from neardup_testing import partition as _partition

pytestmark = pytest.mark.redis


def _sentence(k: int) -> str:
    # long enough (>= 30 chars) to count, unique per k
    return f"第{k}条测试新闻的关键句子，内容包含足够多的字符以超过最小长度的门槛要求，编号{k}。"


def _corpus(ndocs: int = 240, pool: int = 300, seed: int = 3) -> list[str]:
    """Documents made of 1-3 sentences from a shared pool, so groups chain and merge."""
    rng = random.Random(seed)
    docs = []
    for i in range(ndocs):
        picks = rng.sample(range(pool), rng.randint(1, 3))
        docs.append("".join(_sentence(k) for k in picks) + f"短尾{i}。")
    return docs


def _worker(url: str, docs: list[str], seed: int, queue: Any) -> None:
    order = list(range(len(docs)))
    random.Random(seed).shuffle(order)
    ids: dict[int, int] = {}
    with NSHash(hashdb=url, batch_size=16) as nsh:
        for start in range(0, len(order), 16):
            part = order[start : start + 16]
            for i, sid in zip(part, nsh.get_similar_many([docs[i] for i in part]), strict=True):
                ids[i] = sid
    queue.put(ids)


def test_four_processes_group_like_one(redis_url: str) -> None:
    docs = _corpus()
    with NSHash(hashdb=f"{redis_url}?prefix=single") as one:
        single = one.resolve(one.get_similar_many(docs))

    url = f"{redis_url}?prefix=multi"
    NSHash(hashdb=url).close()  # write the settings once, before the race
    ctx = multiprocessing.get_context("fork")  # Linux; the workers only need this module's function
    queue = ctx.Queue()
    procs = [ctx.Process(target=_worker, args=(url, docs, seed, queue)) for seed in range(4)]
    for p in procs:
        p.start()
    results = [queue.get(timeout=120) for _ in procs]
    for p in procs:
        p.join(timeout=60)
        assert p.exitcode == 0
    with NSHash(hashdb=url) as nsh:
        for ids in results:
            resolved = nsh.resolve([ids[i] for i in range(len(docs))])
            assert _partition(resolved) == _partition(single)
        stats = nsh.stats()
    assert stats["assignments"] == 4 * len(docs)
    assert stats["groups"] == len(set(single)) < len(docs) // 2  # chains merged into few groups
    assert stats["aliases"] > 0


def test_nshash_ids_survive_a_redis_restart(persistent_redis: Any) -> None:
    url = f"{persistent_redis.url}?prefix=nsh"
    docs = _corpus(40)
    with NSHash(hashdb=url) as nsh:
        first = nsh.get_similar_many(docs)
    persistent_redis.restart()
    with NSHash(hashdb=url) as nsh:
        assert nsh.resolve(first) == nsh.get_similar_many(docs)
        fresh = nsh.get_similar("一篇全新的文章，和之前的任何文章都不共享句子，长度也足够长了吧。")
        assert fresh > max(first)


def test_cli_file_mode_and_stats_on_redis(redis_url: str, tmp_path: Path) -> None:
    from click.testing import CliRunner

    from neardup.cli.main import cli

    docs = _corpus(30)
    src = tmp_path / "docs.jsonl"
    src.write_text(
        "".join(
            json.dumps({"id": f"d{i}", "text": t}, ensure_ascii=False) + "\n" for i, t in enumerate(docs)
        ),
        encoding="utf-8",
    )
    url = f"{redis_url}?prefix=cli"
    runner = CliRunner()
    res = runner.invoke(cli, ["nshash", str(src), "--store", url])
    assert res.exit_code == 0, res.output
    rows = [json.loads(line) for line in res.stdout.splitlines()]
    assert [r["id"] for r in rows] == [f"d{i}" for i in range(30)]
    with NSHash(hashdb=url) as nsh:
        assert [r["similar_id"] for r in rows] == nsh.resolve(nsh.get_similar_many(docs))
    res = runner.invoke(cli, ["nshash", "stats", "--store", url, "--json"])
    assert res.exit_code == 0, res.output
    info = json.loads(res.stdout)
    assert info["backend"] == "redis" and info["settings"]["n"] == 5
    assert sum(info["group_sizes"].values()) == info["groups"]


def test_nshash_on_redis_pickles_and_reconnects(redis_url: str) -> None:
    import pickle

    docs = _corpus(10)
    with NSHash(hashdb=f"{redis_url}?prefix=pk") as nsh:
        first = nsh.get_similar_many(docs)
        copy = pickle.loads(pickle.dumps(nsh))
    assert copy.get_similar_many(docs) == copy.resolve(first)
    copy.close()

"""``check_and_add_batches`` on a real redis-server: pipelined batches give the sequential flags,
survive a lost connection and a flushed script cache, and stop at an invalid batch."""

from __future__ import annotations

from typing import Any

import pytest

from neardup.exceptions import InputError
from neardup.urls import SeenURLs

pytestmark = pytest.mark.redis


def _batches(k: int, size: int) -> list[list[str]]:
    # every batch repeats half of the one before it, and one URL twice
    out = []
    for b in range(k):
        urls = [f"https://site{(b * size + i) % (size * 3)}.example/p?i={i % 7}" for i in range(size)]
        out.append([*urls, urls[0]])
    return out


def test_stream_gives_the_flags_of_one_batch_at_a_time(redis_url: str) -> None:
    batches = _batches(12, 400)
    with SeenURLs("seq", redis_url) as seq, SeenURLs("pipe", redis_url) as pipe:
        want = [seq.check_and_add_many(b) for b in batches]
        got = list(pipe.check_and_add_batches(iter(batches)))
        assert got == want
        assert pipe.stats()["urls"] == seq.stats()["urls"]
        assert pipe.stats()["checked"] == seq.stats()["checked"]


def test_stream_survives_a_dropped_connection_and_a_flushed_script_cache(redis_url: str) -> None:
    import redis

    batches = _batches(6, 300)
    admin = redis.Redis.from_url(redis_url)
    with SeenURLs("seq2", redis_url) as seq, SeenURLs("pipe2", redis_url) as pipe:
        want = [seq.check_and_add_many(b) for b in batches]
        store: Any = pipe._store
        reruns = []
        run = store._run
        store._run = lambda batch: reruns.append(1) or run(batch)
        got: list[Any] = []
        for i, flags in enumerate(pipe.check_and_add_batches(iter(batches))):
            got.append(flags)
            if i == 1:  # the next batches are in flight or about to be sent
                admin.script_flush()
                admin.client_kill_filter(_type="normal", skipme=True)
        assert got == want
        assert reruns  # the batches in flight were run again with their tokens


def test_stream_raises_at_an_invalid_batch_after_the_one_before(redis_url: str) -> None:
    with SeenURLs("bad", redis_url) as seen:
        stream = seen.check_and_add_batches(
            iter([["https://a.example/1"], ["not a url"], ["https://a.example/2"]])
        )
        assert next(stream) == [True]
        with pytest.raises(InputError, match="invalid"):
            next(stream)
        assert seen.stats()["urls"] == 1
        assert seen.check_and_add_many(["https://a.example/1", "https://a.example/2"]) == [False, True]


def test_two_streams_on_one_client_get_their_own_replies(redis_url: str) -> None:
    a = _batches(5, 200)
    b = [[u.replace("https://", "http://other.") for u in batch] for batch in a]
    with SeenURLs("ref", redis_url) as ref_a, SeenURLs("ref_b", redis_url) as ref_b:
        want_a = [ref_a.check_and_add_many(x) for x in a]
        want_b = [ref_b.check_and_add_many(x) for x in b]
    with SeenURLs("both", redis_url) as seen:
        sa, sb = seen.check_and_add_batches(iter(a)), seen.check_and_add_batches(iter(b))
        got_a, got_b = [], []
        for _ in range(len(a)):  # interleaved: each stream has a batch in flight behind the other's
            got_a.append(next(sa))
            got_b.append(next(sb))
        assert got_a == want_a
        assert got_b == want_b

"""Drive a fleet of ``neardup serve --fleet`` servers with concurrent crawler clients, and check that it
agrees (for tests/integration/service/test_service_fleet.py and bench/bench_fleet.py).

A client sends each page to one server (round robin over the servers still alive); when a server
does not answer (killed, 503) it resends the same page to the next one, as a crawler retries.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx
from fleet_pages import Copy

_KEYS = ("kind", "doc_id", "duplicate_of", "duplicate_url", "similar_id", "url")


@dataclass
class Run:
    answers: dict[str, dict[str, Any]] = field(default_factory=dict)  # url -> the 200 answer
    retries: int = 0  # requests resent after a server failed to answer
    unavailable: int = 0  # of which answered 503
    seconds: float = 0.0


def drive(
    servers: list[str],
    pages: Sequence[Copy],
    *,
    clients: int = 16,
    kill_at: int | None = None,
    kill: Callable[[], str] | None = None,
    timeout: float = 120.0,
    attempts: int = 30,
) -> Run:
    """Send every page (add=true) from ``clients`` threads. Once ``kill_at`` pages were answered,
    ``kill()`` runs (it kills a server and returns its URL, which clients then avoid)."""
    run = Run()
    alive = list(servers)
    lock = threading.Lock()
    todo = list(enumerate(pages))
    errors: list[str] = []

    def take() -> tuple[int, Copy] | None:
        with lock:
            return todo.pop(0) if todo else None

    def worker() -> None:
        with httpx.Client(timeout=timeout) as http:
            while (job := take()) is not None:
                i, p = job
                for attempt in range(attempts):
                    with lock:
                        target = alive[(i + attempt) % len(alive)]
                    try:
                        r = http.post(f"{target}/v1/documents/check", json={"url": p.url, "html": p.html})
                    except httpx.TransportError:
                        r = None
                    if r is not None and r.status_code == 200:
                        break
                    if r is not None and r.status_code != 503:
                        errors.append(f"{p.url}: {r.status_code} {r.text[:300]}")
                        return
                    with lock:
                        run.retries += 1
                        run.unavailable += r is not None
                    time.sleep(0.1)
                else:
                    errors.append(f"{p.url}: no server answered in {attempts} attempts")
                    return
                do_kill = False
                with lock:
                    run.answers[p.url] = r.json()
                    if kill is not None and kill_at is not None and len(run.answers) == kill_at:
                        do_kill = True
                if do_kill:
                    assert kill is not None
                    dead = kill()
                    with lock:
                        alive.remove(dead)

    t0 = time.perf_counter()
    threads = [threading.Thread(target=worker) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    run.seconds = time.perf_counter() - t0
    if errors:
        raise AssertionError("\n".join(errors[:10]))
    return run


def verdict_key(v: dict[str, Any]) -> tuple[Any, ...]:
    return tuple(v[k] for k in _KEYS)


def check_agreement(servers: list[str], pages: Sequence[Copy], run: Run, *, resend: bool = True) -> None:
    """Every answered page is known to every server, as the same document in the same cluster; a
    resend of each page to each server (the crawler's retry) is answered the first verdict."""
    with httpx.Client(timeout=120.0) as http:
        for p in pages:
            v = run.answers[p.url]
            docs = []
            for s in servers:
                r = http.get(f"{s}/v1/documents/{v['doc_id']}/duplicates")
                assert r.status_code == 200, (s, p.url, r.status_code, r.text[:300])
                docs.append(r.json())
            assert all(d == docs[0] for d in docs), (p.url, docs)
            assert docs[0]["url"] == p.url and docs[0]["kind"] == v["kind"], (p.url, v, docs[0])
            if resend:
                for s in servers:
                    r = http.post(f"{s}/v1/documents/check", json={"url": p.url, "html": p.html})
                    assert r.status_code == 200, r.text[:300]
                    assert verdict_key(r.json()) == verdict_key(v), (s, v, r.json())

"""Load: 8 client threads check-and-add 200 news pages while the service is restarted mid-way, once
gracefully (SIGTERM) and once killed (SIGKILL: no shutdown, no flush; only what was fsynced before a
page was acknowledged survives); afterwards every acknowledged document is still known."""

from __future__ import annotations

import signal
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from service_pages import page, page_url, read_items
from service_proc import ServiceProcess

from neardup.client import Client
from neardup.exceptions import ServiceUnavailable

pytestmark = [pytest.mark.slow, pytest.mark.timeout(500)]

N_PAGES = 200
N_CLIENTS = 8
STALL_S = 180  # a bound against hangs: no page acknowledged for this long (the test takes ~30-60 s)
DUP_KINDS = {"exact", "content", "near", "layout", "partial"}


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=["sigterm", "sigkill"])
def test_service_load_restart_keeps_every_acknowledged_document(
    tmp_path: Path, data_dir: Path, sig: signal.Signals
) -> None:
    items = read_items(data_dir, N_PAGES // 2)
    # half the pages are originals on site 0, half the same articles mirrored on site 1 or 2
    work = [(page_url(it, 0), page(it, 0)) for it in items]
    work += [(page_url(it, 1 + i % 2), page(it, 1 + i % 2)) for i, it in enumerate(items)]
    svc = ServiceProcess(tmp_path / "state", tmp_path / "serve.log")
    svc.start()
    acked: dict[str, dict[str, Any]] = {}  # url -> the verdict the service acknowledged
    lock = threading.Lock()
    errors: list[BaseException] = []
    retries = [0]
    progress = [time.monotonic()]  # when a page was last acknowledged

    def stalled() -> bool:
        return time.monotonic() - progress[0] > STALL_S

    def worker(k: int) -> None:
        try:
            with Client(svc.url, timeout=120) as c:
                for url, html in work[k::N_CLIENTS]:
                    while True:
                        if stalled():
                            raise TimeoutError(f"no page acknowledged for {STALL_S} s")
                        try:
                            verdict = c.check(url, html=html)
                            break
                        except ServiceUnavailable:  # restarting: not acknowledged, so send again
                            with lock:
                                retries[0] += 1
                            time.sleep(0.1)
                    with lock:
                        acked[url] = verdict
                        progress[0] = time.monotonic()
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(k,), daemon=True) for k in range(N_CLIENTS)]
    t0 = time.monotonic()
    for t in threads:
        t.start()
    while True:  # restart once about half the pages are in
        with lock:
            if len(acked) >= N_PAGES // 2:
                break
        assert not errors, errors
        assert not stalled(), f"no page acknowledged for {STALL_S} s"
        time.sleep(0.02)
    with lock:
        before_restart = len(acked)
    assert svc.stop(sig=sig) == 0, svc.log()[-3000:]
    svc.start()
    progress[0] = time.monotonic()  # the restart is progress too
    for t in threads:
        while t.is_alive() and not stalled():
            t.join(timeout=1.0)
    assert not errors, errors
    assert len(acked) == N_PAGES
    elapsed = time.monotonic() - t0

    try:
        with Client(svc.url, timeout=120) as c:
            lost = []
            for url, html in work:
                ack = acked[url]
                # a page that started a cluster (new, or only related to another) is its own cluster
                starts = ack["kind"] in ("new", "partial", "layout")
                expect = ack["doc_id"] if starts else ack["duplicate_of"]
                again = c.check(url, html=html, add=False)
                if again["kind"] not in DUP_KINDS or again["duplicate_of"] != expect:
                    lost.append((url, ack, again))
            assert not lost, f"{len(lost)} acknowledged documents not known after restart: {lost[:3]}"
            # originals start clusters (new, or related to another story by a passage); a mirror may
            # come first
            starts = sum(a["kind"] in ("new", "partial", "layout") for a in acked.values())
            assert N_PAGES // 2 - 5 <= starts <= N_PAGES // 2 + 5
    finally:
        assert svc.stop() == 0
    print(
        f"load: {N_PAGES} pages, {N_CLIENTS} clients, {sig.name} after {before_restart} acks, "
        f"{retries[0]} retries, {elapsed:.1f}s"
    )

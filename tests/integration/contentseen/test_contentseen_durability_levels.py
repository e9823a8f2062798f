"""Durability levels of a ContentSeen state (always, everysec, no): what each promises, held to it.

A real writer process is SIGKILLed after acknowledged adds (nothing acknowledged may be lost at any
level); a power cut is simulated by truncating the journal to the length its last fsync covered
(what a lost page cache leaves), with an explicit flush point instead of wall time; a failed fsync
is injected (a real EIO cannot be made in CI) and must reach the next caller.
"""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from neardup.contentseen import ContentSeen
from neardup.exceptions import ConfigError, StoreError
from neardup.stores import journal as journal_mod
from neardup.stores.durability import DURABILITY_LEVELS

LEVELS = list(DURABILITY_LEVELS)
TEXTS = [f"第{i}篇：长江是中华民族的母亲河，流域第{i * 7}个城市今天发布了新的治理规划。" for i in range(400)]

# adds FIRST pages, makes them durable with an explicit sync (the flush point), adds up to 300 more;
# after each acknowledged add prints "url journal_bytes journal_synced_bytes"; stops after its last
# add and waits to be killed
_WRITER = textwrap.dedent(
    """
    import sys
    from neardup.contentseen import ContentSeen
    state, level, first = sys.argv[1], sys.argv[2], int(sys.argv[3])
    texts = [f"第{i}篇：长江是中华民族的母亲河，流域第{i * 7}个城市今天发布了新的治理规划。" for i in range(400)]
    cs = ContentSeen(state, durability=level, explain=False)
    for i, t in enumerate(texts[: first + 300]):
        cs.check(f"https://a.example/{i}", text=t)
        if i + 1 == first:
            cs.sync()
            print("flush-point", flush=True)
        st = cs.stats()
        print(f"https://a.example/{i} {st['journal_bytes']} {st['journal_synced_bytes']}", flush=True)
    print("done", flush=True)
    sys.stdin.read()
    """
)


def _run_writer(tmp_path: Path, level: str, *, first: int, kill_after: int) -> list[tuple[str, int, int]]:
    """Start the writer, SIGKILL it once ``kill_after`` adds were acknowledged; every acknowledged
    add (url, journal bytes, synced bytes), including those printed before the kill landed."""
    script = tmp_path / "writer.py"
    script.write_text(_WRITER)
    proc = subprocess.Popen(
        [sys.executable, str(script), str(tmp_path / "cs"), level, str(first)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    acked: list[tuple[str, int, int]] = []
    timer = threading.Timer(300, proc.kill)  # a bound on a wedged writer, not a speed assertion
    timer.start()
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.startswith("https://"):
                url, size, synced = line.split()
                acked.append((url, int(size), int(synced)))
            if len(acked) == kill_after or line == "done\n":
                proc.send_signal(signal.SIGKILL)
                break
        # read the rest through the same file object: its buffer may already hold lines printed
        # before the kill (communicate() would read the pipe beneath it and lose them)
        rest = proc.stdout.read()
        assert proc.stderr is not None
        err = proc.stderr.read()
        proc.wait(timeout=60)
    finally:
        timer.cancel()
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
    assert proc.returncode == -signal.SIGKILL, err
    for line in rest.splitlines():  # printed (acknowledged) before the kill landed
        if line.startswith("https://"):
            url, size, synced = line.split()
            acked.append((url, int(size), int(synced)))
    return acked


def _urls(state: Path) -> list[str]:
    with ContentSeen(state, durability="no") as cs:
        n = len(cs)
        return [doc["url"] for i in range(1, n + 1) if (doc := cs.document(i)) is not None]


@pytest.mark.parametrize("level", LEVELS)
def test_killed_writer_loses_no_acknowledged_page_at_any_level(tmp_path: Path, level: str) -> None:
    acked = _run_writer(tmp_path, level, first=5, kill_after=40)
    assert len(acked) >= 40
    urls = _urls(tmp_path / "cs")
    # every acknowledged page, in order; at most the one being written when the kill came beyond
    assert urls[: len(acked)] == [u for u, _, _ in acked]
    assert len(urls) <= len(acked) + 1


@pytest.mark.parametrize("cut", ["at the last fsync", "inside the next record"])
@pytest.mark.parametrize("level", LEVELS)
def test_lost_page_cache_keeps_everything_before_the_last_fsync(tmp_path: Path, level: str, cut: str) -> None:
    first = 20
    acked = _run_writer(tmp_path, level, first=first, kill_after=first + 30)
    _, size_last, synced_last = acked[-1]
    if level == "always":
        assert all(size == synced for _, size, synced in acked)  # every acknowledgement after its fsync
    # the power cut: the journal as the disk held it at the last fsync we know of
    wal = tmp_path / "cs" / "docs.wal"
    data = wal.read_bytes()
    assert len(data) >= size_last
    length = synced_last
    if cut == "inside the next record" and synced_last < len(data):
        length += (
            min(len(data), next((s for _, s, _ in acked if s > synced_last), len(data))) - synced_last
        ) // 2
    wal.write_bytes(data[:length])
    urls = _urls(tmp_path / "cs")  # reopens: a torn last record is cut off
    durable = [u for u, size, _ in acked if size <= synced_last]
    assert urls[: len(durable)] == durable  # everything acknowledged before the last fsync
    # and nothing out of order or invented: the writer adds page i after page i - 1 (it may have
    # written a page or two it had not yet acknowledged when the kill landed)
    assert urls == [f"https://a.example/{i}" for i in range(len(urls))]
    assert len(urls) <= len(acked) + 2
    assert len(urls) >= first  # the explicit flush point
    if level == "always":
        # every acknowledged page; a page the writer had fsynced but not yet acknowledged when the
        # kill landed (a loaded machine lets it run a record or two ahead) may follow them
        assert urls[: len(acked)] == [u for u, _, _ in acked]


def test_everysec_syncs_in_the_background_at_most_once_a_second(tmp_path: Path) -> None:
    began = time.monotonic()
    before = {t for t in threading.enumerate() if t.name.startswith("neardup-flush")}  # other tests' states
    with ContentSeen(tmp_path / "cs", explain=False) as cs:  # everysec is the default
        assert cs.durability == "everysec"
        for i, t in enumerate(TEXTS[:150]):
            cs.check(f"https://a.example/{i}", text=t)
        deadline = time.monotonic() + 60
        while cs.stats()["journal_synced_bytes"] < cs.stats()["journal_bytes"]:
            assert time.monotonic() < deadline, "the background fsync never covered the adds"
            time.sleep(0.05)
        flusher = cs._state.flusher
        assert flusher is not None and flusher.running
        elapsed = time.monotonic() - began
        # one fsync a second at most, shared by many adds (one more may be running as the clock is read)
        assert 1 <= flusher.syncs <= elapsed + 2
    assert not flusher.running  # close stopped the thread
    assert not [t for t in threading.enumerate() if t.name.startswith("neardup-flush") and t not in before]


def test_failed_background_fsync_is_raised_by_the_next_add_and_close(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    state = tmp_path / "cs"
    cs = ContentSeen(state, explain=False)
    cs.check("https://a.example/0", text=TEXTS[0])
    cs.sync()  # page 0 is durable

    def eio(fd: int) -> None:
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(journal_mod, "_datasync", eio)
    assert cs.check("https://a.example/1", text=TEXTS[1]).doc_id == 2  # acknowledged: in the page cache
    flusher = cs._state.flusher
    assert flusher is not None
    deadline = time.monotonic() + 60
    while flusher.running:  # the thread fails, remembers and stops
        assert time.monotonic() < deadline
        time.sleep(0.02)
    with pytest.raises(StoreError, match=r"could not fsync the journal .*Input/output error.*reopen"):
        cs.check("https://a.example/2", text=TEXTS[2])
    assert cs.check("https://a.example/2", text=TEXTS[2], add=False).doc_id is None  # asking still works
    with pytest.raises(StoreError, match="could not fsync"):
        cs.sync()
    with pytest.raises(StoreError, match="could not fsync"):
        cs.close()  # the lock is released all the same
    monkeypatch.undo()
    assert _urls(state) == ["https://a.example/0", "https://a.example/1"]


def test_always_fsyncs_before_check_returns(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with ContentSeen(tmp_path / "cs", durability="always", explain=False) as cs:
        assert cs._state.flusher is None
        for i, t in enumerate(TEXTS[:5]):
            cs.check(f"https://a.example/{i}", text=t)
            st = cs.stats()
            assert st["journal_synced_bytes"] == st["journal_bytes"]

        # a failed fsync refuses this add (the record is cut back off); the next one may succeed
        def eio(fd: int) -> None:
            raise OSError(errno.EIO, "EIO")

        monkeypatch.setattr(journal_mod, "_datasync", eio)
        with pytest.raises(StoreError, match="EIO"):
            cs.check("https://a.example/5", text=TEXTS[5])
        monkeypatch.undo()
        assert cs.check("https://a.example/6", text=TEXTS[6]).doc_id == 6
    assert len(_urls(tmp_path / "cs")) == 6


def test_no_leaves_the_fsync_to_the_os_until_flush(tmp_path: Path) -> None:
    with ContentSeen(tmp_path / "cs", durability="no", explain=False) as cs:
        opened = cs.stats()["journal_synced_bytes"]
        for i, t in enumerate(TEXTS[:5]):
            cs.check(f"https://a.example/{i}", text=t)
        assert cs._state.flusher is None
        assert cs.stats()["journal_synced_bytes"] == opened < cs.stats()["journal_bytes"]
        cs.flush()
        assert cs.stats()["journal_synced_bytes"] == cs.stats()["journal_bytes"]


def test_everysec_add_never_waits_for_the_disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A stalled fsync holds the flusher thread only: adds are acknowledged meanwhile."""
    release, entered = threading.Event(), threading.Event()
    real = journal_mod._datasync

    def stalled(fd: int) -> None:
        entered.set()
        release.wait(60)
        real(fd)

    with ContentSeen(tmp_path / "cs", explain=False) as cs:
        monkeypatch.setattr(journal_mod, "_datasync", stalled)
        cs.check("https://a.example/0", text=TEXTS[0])
        assert entered.wait(60)  # the flusher is inside a stalled fsync
        for i in range(1, 20):
            assert cs.check(f"https://a.example/{i}", text=TEXTS[i]).doc_id == i + 1
        release.set()
        monkeypatch.undo()
    assert len(_urls(tmp_path / "cs")) == 20


def test_durability_is_checked_and_fsync_is_refused_with_the_replacement(tmp_path: Path) -> None:
    with pytest.raises(
        ConfigError, match="durability must be one of 'always', 'everysec', 'no', got 'sometimes'"
    ):
        ContentSeen(tmp_path / "cs", durability="sometimes")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match=r"durability=.*fsync=True was 'always'"):
        ContentSeen(tmp_path / "cs", fsync=True)
    assert not (tmp_path / "cs").exists()
    with ContentSeen("memory://", durability="always") as cs:  # nothing to sync in memory
        assert cs.check("u", text=TEXTS[0]).doc_id == 1
        assert cs.stats()["journal_bytes"] is None


def test_durability_reaches_the_service_cli_and_scrapy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from click.testing import CliRunner

    from neardup.cli.serve import serve_cmd
    from neardup.service.settings import ServiceSettings

    assert ServiceSettings().durability == "everysec"
    with pytest.raises(ConfigError, match="durability must be one of"):
        ServiceSettings(durability="fast")  # type: ignore[arg-type]
    res = CliRunner().invoke(serve_cmd, ["--state", str(tmp_path / "s"), "--durability", "fast"])
    assert res.exit_code == 2 and "'fast' is not one of 'always', 'everysec', 'no'" in res.output
    ctx = serve_cmd.make_context("serve", ["--state", str(tmp_path), "--durability", "always"])
    assert ctx.params["durability"] == "always"

    pytest.importorskip("scrapy")
    from scrapy.settings import Settings

    from neardup.integrations.scrapy._settings import content_checker

    checker = content_checker(
        Settings({"NEARDUP_STATE": str(tmp_path / "scrapy"), "NEARDUP_DURABILITY": "no"})
    )
    assert isinstance(checker, ContentSeen) and checker.durability == "no"
    checker.close()
    with pytest.raises(ConfigError, match="NEARDUP_DURABILITY must be one of"):
        content_checker(Settings({"NEARDUP_DURABILITY": "sometimes"}))
    with pytest.raises(ConfigError, match="NEARDUP_FSYNC is replaced by NEARDUP_DURABILITY"):
        content_checker(Settings({"NEARDUP_FSYNC": False}))
    assert os.path.isdir(tmp_path / "scrapy")


def test_service_from_env_takes_its_durability(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("fastapi")
    from neardup.service.app import app_from_env

    monkeypatch.setenv("NEARDUP_STATE", str(tmp_path / "st"))
    monkeypatch.setenv("NEARDUP_ANALYSIS_PROCESSES", "0")
    monkeypatch.setenv("NEARDUP_DURABILITY", "always")
    app = app_from_env()
    try:
        assert app.state.settings.durability == app.state.backend.contentseen.durability == "always"
    finally:
        app.state.backend.close()
    monkeypatch.setenv("NEARDUP_DURABILITY", "never")
    with pytest.raises(ConfigError, match="NEARDUP_DURABILITY must be one of"):
        app_from_env()


@pytest.mark.parametrize("level", ["everysec", "always"])
def test_service_event_loop_goes_on_while_an_fsync_stalls(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, level: str
) -> None:
    """everysec: adding requests are answered during a stalled fsync; always: they wait for it,
    off the event loop, which keeps serving."""
    pytest.importorskip("fastapi")
    import asyncio

    from neardup.service.backend import StateBackend
    from neardup.service.settings import ServiceSettings

    backend = StateBackend(ServiceSettings(state=tmp_path / "st", analysis_processes=0, durability=level))  # type: ignore[arg-type]
    release, entered = threading.Event(), threading.Event()
    real = journal_mod._datasync

    def stalled(fd: int) -> None:
        entered.set()
        release.wait(60)
        real(fd)

    async def run() -> list[dict[str, object]]:
        loop = asyncio.get_running_loop()
        first = asyncio.ensure_future(backend.acheck_document("https://a.example/0", None, TEXTS[0], True))
        assert await loop.run_in_executor(None, entered.wait, 60)  # an fsync is stalled now
        if level == "everysec":
            answers = [await first]
            for i in range(1, 5):
                answers.append(await backend.acheck_document(f"https://a.example/{i}", None, TEXTS[i], True))
        else:
            await asyncio.sleep(0.05)
            assert not first.done()  # waits for its fsync...
            assert (await backend.aduplicates("1")) is not None  # ...while the loop serves others
            release.set()
            answers = [await first]
        release.set()
        return answers

    monkeypatch.setattr(journal_mod, "_datasync", stalled)
    try:
        answers = asyncio.run(run())
    finally:
        release.set()
        monkeypatch.undo()
        backend.close()
    assert [a["doc_id"] for a in answers] == list(range(1, len(answers) + 1))

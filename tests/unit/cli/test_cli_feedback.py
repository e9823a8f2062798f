"""Feedback on long runs: the progress line (a terminal, or forced into a log), quiet with -q, and
the notice when numba compiles kernels."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from neardup.cli._common import COMPILING, Feedback, RunProgress
from neardup.io import Record

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "dedup"))
from dedup_synth import make_docs


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("feedback") / "in.jsonl"
    path.write_text("".join(json.dumps(d, ensure_ascii=False) + "\n" for d in make_docs(20, seed=4)))
    return path


def _cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "neardup.cli.main", *args]


def _env() -> dict[str, str]:
    src = str(Path(__file__).resolve().parents[3] / "src")
    return {**os.environ, "PYTHONPATH": src + os.pathsep + os.environ.get("PYTHONPATH", "")}


def test_progress_forced_into_a_log_writes_plain_lines(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "o.jsonl"
    res = subprocess.run(
        _cmd("dedup", str(corpus), "-o", str(out), "-j", "1", "--progress"),
        capture_output=True,
        text=True,
        env=_env(),
        timeout=300,
        check=False,
    )
    assert res.returncode == 0, res.stderr
    n = len(corpus.read_text().splitlines())
    lines = [line for line in res.stderr.splitlines() if line.startswith("neardup dedup: read")]
    assert lines and "\x1b[" not in res.stderr  # plain text into a log, no terminal codes
    assert lines[-1].startswith(f"neardup dedup: read {n}, signed {n}, matched {n}, ")
    assert "docs/s" in lines[-1] and lines[-1].endswith("done")
    assert "documents" in res.stderr.splitlines()[-1]  # the summary comes last


def _on_a_terminal(args: list[str]) -> tuple[int, str]:
    """Run with stderr on a pseudo-terminal; (exit code, what the terminal showed)."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=slave, env=_env()
    )
    os.close(slave)
    chunks: list[bytes] = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # the other end closed
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    return proc.wait(timeout=300), b"".join(chunks).decode("utf-8", "replace")


def test_progress_line_on_a_terminal_and_quiet_with_q(corpus: Path, tmp_path: Path) -> None:
    code, shown = _on_a_terminal(
        _cmd("dedup", str(corpus), "-o", str(tmp_path / "a.jsonl"), "-j", "1", "--progress")
    )
    assert code == 0, shown
    assert "neardup dedup: read" in shown and "signed" in shown and "matched" in shown
    assert "documents" in shown  # the summary
    code, shown = _on_a_terminal(_cmd("dedup", str(corpus), "-o", str(tmp_path / "b.jsonl"), "-j", "1", "-q"))
    assert code == 0 and shown.strip() == ""


def test_progress_line_counts_rate_and_eta_by_the_bytes_of_files_read(tmp_path: Path) -> None:
    files = [tmp_path / "a.jsonl", tmp_path / "b.jsonl"]
    files[0].write_bytes(b"x" * 100)
    files[1].write_bytes(b"x" * 300)
    clock = iter([0.0, *[10.0] * 20])
    run = RunProgress("dedup", tuple(map(str, files)), enabled=True, delay=1e9, announce_compiling=False)
    run._clock = lambda: next(clock)
    run.t0 = 0.0
    recs = [Record(id=str(i), text="t", source=str(files[0])) for i in range(4)]
    recs.append(Record(id="4", text="t", source=str(files[1])))
    it = run.reading(recs)
    for _ in range(5):
        next(it)
    line = run.line()  # 10 s for the first file (100 of 400 bytes): 30 s to go
    assert line == "neardup dedup: read 5, signed 0, matched 0, 0 docs/s, ETA 30 s"
    assert Feedback(quiet=True).run("dedup").enabled is False
    assert Feedback(progress=True).run("dedup").delay == 0.0


@pytest.mark.parametrize("name", ["one.jsonl", "one.jsonl.gz"])
def test_the_eta_of_one_file_counts_how_far_into_it_the_reader_is(tmp_path: Path, name: str) -> None:
    """One input file (a crawl's one big .jsonl.gz): the ETA comes from the reader's place in it,
    not only once the file is done."""
    import gzip
    import itertools
    import random

    from neardup.io import iter_records

    path = tmp_path / name
    rng = random.Random(1)  # random text: gzip cannot shrink it to nothing
    lines = b"".join(
        b'{"id": "%d", "text": "%s"}\n' % (i, bytes(rng.choice(b"abcdefghij") for _ in range(200)))
        for i in range(40_000)
    )
    path.write_bytes(gzip.compress(lines) if name.endswith(".gz") else lines)
    clock = itertools.chain([0.0], itertools.repeat(10.0))
    run = RunProgress("dedup", (str(path),), enabled=True, delay=1e9, announce_compiling=False)
    run._clock = lambda: next(clock)
    run.t0 = 0.0
    it = run.reading(iter_records([str(path)]))
    for _ in range(1000):  # a fortieth of the records: the reader is a little ahead of them
        next(it)
    line = run.line()
    assert "ETA" in line and "unknown" not in line, line
    for _ in it:
        pass
    from neardup.io import read_offset

    assert read_offset(str(path)) is None  # the file is closed and forgotten


def test_compile_notice_fires_once_when_numba_compiles() -> None:
    if os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0"):
        pytest.skip("kernels run interpreted here")
    import numba

    from neardup._jit import on_first_compile

    calls: list[int] = []
    stop = on_first_compile(lambda: calls.append(1))
    try:

        @numba.njit(cache=False)
        def add(a: int, b: int) -> int:
            return a + b

        assert add(1, 2) == 3 and add(1.5, 2.5) == 4.0  # two compilations, one notice
        assert calls == [1]
    finally:
        stop()
    assert "first run only" in COMPILING


def test_a_cold_kernel_cache_is_announced_once_and_a_warm_one_not(corpus: Path, tmp_path: Path) -> None:
    """Where pip built no C extension the numba kernels behind it compile on a first run, which
    says so once; a warm cache says nothing, and with the extensions nothing compiles at all."""
    pytest.importorskip("neardup.match._match_c", reason="the match engine's C extension is not built here")
    pytest.importorskip("neardup.fingerprint._nshash_c", reason="the nshash C extension is not built here")
    env = {
        **_env(),
        "NUMBA_CACHE_DIR": str(tmp_path / "numba-cache"),
        "NEARDUP_JIT": "always",
        "NEARDUP_COMPILE_NOTICE": "1",
    }
    dedup = ("dedup", str(corpus), "-o", str(tmp_path / "o.jsonl"), "-j", "1")
    with_c = subprocess.run(_cmd(*dedup), capture_output=True, text=True, env=env, timeout=600, check=False)
    assert with_c.returncode == 0, with_c.stderr
    assert COMPILING not in with_c.stderr
    # the nshash scanner's extension hidden (the smallest set of kernels that a command compiles;
    # the match engine's are the same notice, only longer to compile): its numba kernels run
    hidden = (
        "import sys; sys.modules['neardup.fingerprint._nshash_c'] = None; "
        "from neardup.cli.main import main; main()"
    )
    args = [sys.executable, "-c", hidden, "nshash", "run", str(corpus), "--store", "memory://"]
    cold = subprocess.run(args, capture_output=True, text=True, env=env, timeout=600, check=False)
    assert cold.returncode == 0, cold.stderr
    assert cold.stderr.count(COMPILING) == 1
    warm = subprocess.run(args, capture_output=True, text=True, env=env, timeout=600, check=False)
    assert warm.returncode == 0, warm.stderr
    assert COMPILING not in warm.stderr

"""Shared fixtures: a real redis-server on a free loopback port, the shared corpora, temp dirs."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
from neardup_testing import DATA_DIR  # noqa: E402

# a cold kernel cache prints a notice on a CLI's stderr; tests that read stderr line by line do not
# expect it (the feedback tests ask for it explicitly)
os.environ.setdefault("NEARDUP_COMPILE_NOTICE", "0")


def _drop_stale_kernel_caches(src: Path) -> None:
    """Delete the checkout's numba caches when any module using numba changed since they were made.

    numba keys a cached kernel on its own file's timestamp and size only: a kernel that calls an
    njit function (or reads a constant) of another module keeps its old compilation when that
    module changes, which can loop forever. A digest of every such module decides instead.
    """
    import hashlib

    digest = hashlib.sha256()
    for path in sorted(src.rglob("*.py")):
        text = path.read_bytes()
        if b"numba" in text or b"njit" in text:
            digest.update(path.relative_to(src).as_posix().encode() + b"\0" + text)
    stamp = src / "__pycache__" / "numba-sources.sha256"
    try:
        if stamp.is_file() and stamp.read_text() == digest.hexdigest():
            return
        for cached in [*src.rglob("*.nbi"), *src.rglob("*.nbc")]:
            cached.unlink(missing_ok=True)
        stamp.parent.mkdir(exist_ok=True)
        stamp.write_text(digest.hexdigest())
    except OSError:  # a read-only checkout: numba cannot cache there either
        pass


_drop_stale_kernel_caches(ROOT / "src" / "neardup")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class RedisServer:
    """A redis-server process on loopback, with optional AOF persistence and restart."""

    def __init__(self, workdir: Path, *, persistent: bool = False) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            pytest.skip("redis-server is not installed (make test installs it)")
        self.binary = binary
        self.workdir = workdir
        self.persistent = persistent
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self.start()

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        args = [
            self.binary,
            "--port",
            str(self.port),
            "--bind",
            "127.0.0.1",
            "--dir",
            str(self.workdir),
            "--save",
            "",
            "--daemonize",
            "no",
            "--protected-mode",
            "yes",
            "--loglevel",
            "warning",
        ]
        if self.persistent:
            args += ["--appendonly", "yes", "--appendfsync", "always"]
        else:
            args += ["--appendonly", "no"]
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2) as s:
                    s.sendall(b"PING\r\n")
                    if s.recv(16).startswith(b"+PONG"):
                        return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"redis-server did not start on port {self.port}")

    def stop(self, *, kill: bool = False) -> None:
        if self.proc is None:
            return
        if kill:
            self.proc.kill()
        else:
            self.proc.terminate()
        self.proc.wait(timeout=10)
        self.proc = None

    def restart(self, *, kill: bool = False) -> None:
        self.stop(kill=kill)
        self.start()

    def flushall(self) -> None:
        with socket.create_connection(("127.0.0.1", self.port), timeout=2) as s:
            s.sendall(b"FLUSHALL\r\n")
            s.recv(16)


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    """One redis-server for the whole session (no persistence). Use ``redis_url`` in tests."""
    with tempfile.TemporaryDirectory(prefix="neardup-redis-") as d:
        server = RedisServer(Path(d))
        yield server
        server.stop()


@pytest.fixture
def redis_url(redis_server: RedisServer) -> Iterator[str]:
    """The shared server's URL; the database is flushed after each test."""
    yield redis_server.url
    redis_server.flushall()


@pytest.fixture
def persistent_redis(tmp_path: Path) -> Iterator[RedisServer]:
    """A private redis-server with AOF (appendfsync always), for restart tests."""
    server = RedisServer(tmp_path, persistent=True)
    yield server
    server.stop()


@pytest.fixture
def free_tcp_port() -> int:
    """A TCP port free on 127.0.0.1 right now (for servers a test starts itself)."""
    return free_port()


@pytest.fixture(scope="session")
def data_dir() -> Path:
    if not DATA_DIR.is_dir():
        pytest.skip(f"shared corpora not found at {DATA_DIR}")
    return DATA_DIR

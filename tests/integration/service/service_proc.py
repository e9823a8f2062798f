"""A real ``neardup serve`` (uvicorn) subprocess on a free loopback port, for end-to-end tests and benches."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

from neardup_testing import wait_healthy


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ServiceProcess:
    """``python -m neardup.cli.main serve --state STATE --port PORT`` with start/stop/restart and its log."""

    def __init__(
        self,
        state: Path,
        log_path: Path,
        *,
        port: int | None = None,
        token_file: Path | None = None,
        token_env: str | None = None,
        redis: str | None = None,
        extra: list[str] | None = None,
        host: str = "127.0.0.1",
    ) -> None:
        self.state = state
        self.log_path = log_path
        self.port = port or free_port()
        self.host = host
        self.token_file = token_file
        self.token_env = token_env
        self.redis = redis
        self.extra = extra or []
        self.proc: subprocess.Popen[bytes] | None = None
        self.starts = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def args(self) -> list[str]:
        a = [
            sys.executable,
            "-m",
            "neardup.cli.main",
            "serve",
            "--state",
            str(self.state),
            "--host",
            self.host,
            "--port",
            str(self.port),
            "--log-level",
            "info",
            *self.extra,
        ]
        if self.token_file is not None:
            a += ["--token-file", str(self.token_file)]
        if self.redis is not None:
            a += ["--redis", self.redis]
        return a

    def start(self, timeout: float = 180.0) -> None:
        env = dict(os.environ)
        env.pop("NEARDUP_TOKEN", None)
        if self.token_env is not None:
            env["NEARDUP_TOKEN"] = self.token_env
        self.starts += 1
        log = self.log_path.open("ab")
        log.write(f"\n=== start {self.starts} ===\n".encode())
        log.flush()
        self.proc = subprocess.Popen(self.args(), stdout=log, stderr=subprocess.STDOUT, env=env)
        log.close()
        if wait_healthy(f"{self.url}/healthz", self.proc, self.log, timeout):
            return
        self.stop(sig=signal.SIGKILL)
        raise RuntimeError(f"neardup serve did not answer within {timeout}s:\n{self.log()[-3000:]}")

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 90.0) -> int:
        """Signal the server and wait; returns its exit code, 0 for a clean stop by ``sig`` (uvicorn
        re-raises the signal after its graceful shutdown, so -SIGTERM is clean; SIGINT exits 130)."""
        if self.proc is None:
            return 0
        proc, self.proc = self.proc, None
        if proc.poll() is None:
            proc.send_signal(sig)
            try:
                proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)
                raise RuntimeError(f"neardup serve ignored signal {sig} for {timeout}s") from None
        code = proc.returncode
        if code == -sig or (sig == signal.SIGINT and code == 130):
            return 0
        return code

    def restart(self, **kw: Any) -> int:
        code = self.stop(**kw)
        self.start()
        return code

    def log(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace") if self.log_path.exists() else ""

    def __enter__(self) -> ServiceProcess:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.proc is not None:
            self.stop()

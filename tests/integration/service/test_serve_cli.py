"""``neardup serve`` refuses a port in use before starting anything, and says what --url-ttl expires."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest
from tests.neardup_testing import run_cli

pytest.importorskip("uvicorn")


def test_port_in_use_is_one_line_and_exit_2_before_the_service_starts(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        env = {**os.environ, "NEARDUP_TOKEN": "t" * 32}
        state = tmp_path / "state"
        res = run_cli(
            [
                "serve",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--state",
                str(state),
                "--analysis-processes",
                "0",
            ],
            cwd=tmp_path,
            env=env,
            timeout=120,
        )
    assert res.returncode == 2, res.stderr
    assert res.stderr.strip().splitlines() == [
        f"neardup: error: port {port} on 127.0.0.1 is already in use (another neardup serve?); "
        "stop it or pick another --port"
    ]
    assert not state.exists()  # nothing was started, no state opened


def test_url_ttl_help_says_the_whole_job_expires(tmp_path: Path) -> None:
    res = run_cli(["serve", "--help"], cwd=tmp_path)
    text = " ".join(res.stdout.split())
    assert "--url-ttl" in text and "whole URL set expires" in text and "stays in" not in text

"""README.md as a new user runs it: every code block is executed here or skipped with its reason.

Python blocks run in one namespace with the inputs they name (``texts``, ``url``, ``body``, ...);
shell lines run through the ``neardup`` command in a folder of small fixtures, in README order (later
lines read what earlier ones wrote). Services the blocks name are started for real: a redis-server
and ``neardup serve`` on free loopback ports. Absolute example paths (``/data``, ``/var/crawl``) are
moved into the test's folder, and the example port and address into the started ones.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from neardup_testing import wait_healthy

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
BIN = Path(sys.executable).parent
TOKEN = "readme-token-0123456789abcdef"

# blocks not run here, by their first line, and why
SKIPPED = {
    "make demo   # creates .venv, installs neardup (core only), deduplicates the small corpus in examples/": (
        "installs packages into .venv (make demo and make test run it)"
    ),
    "pip install -e .            # core: text pipeline, SimHash, nshash (memory), Hamming index, dedup, eval": (
        "installs packages (make demo and make test run it)"
    ),
    "make test        # the whole suite (what CI runs: .ci/run calls make test)": "runs this suite itself",
}
# README lines that are false today, owned elsewhere: strict, so fixing them turns this list red
KNOWN_FALSE: dict[str, str] = {}


def blocks() -> list[tuple[str, str]]:
    """(language, code) of every fenced block of README.md."""
    return re.findall(r"^```(\w*)\n(.*?)^```", README.read_text(encoding="utf-8"), flags=re.S | re.M)


def shell_lines(code: str) -> list[str]:
    """Commands of a shell block: continuation lines joined, comments and blank lines dropped."""
    code = code.replace("\\\n", " ")
    out = []
    for raw in code.splitlines():
        line = raw.split(" #", 1)[0].strip() if not raw.lstrip().startswith("#") else ""
        if line:
            out.append(line)
    return out


def _tour() -> str:
    return next(code for lang, code in blocks() if lang == "bash" and "neardup fingerprint" in code)


def test_every_readme_block_is_run_or_skipped_with_a_reason() -> None:
    run_by_tests = ("neardup fingerprint", "from neardup import", "DUPEFILTER_CLASS")
    for lang, code in blocks():
        first = code.splitlines()[0]
        assert first in SKIPPED or any(k in code for k in run_by_tests), f"README block not tested: {first!r}"
        assert lang in ("bash", "python"), lang


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory, data_dir: Path) -> Path:
    """The files the README's commands name, made small."""
    d = tmp_path_factory.mktemp("readme")
    lines = (ROOT / "examples" / "news.jsonl").read_text(encoding="utf-8").splitlines()
    for name in ("news.jsonl.gz", "corpus.jsonl.gz"):
        with gzip.open(d / name, "wt", encoding="utf-8") as fh:
            fh.write("\n".join(lines) + "\n")
    (d / "corpus").mkdir()
    (d / "corpus" / "part-0.jsonl").write_text("\n".join(lines[:30]) + "\n", encoding="utf-8")
    (d / "new.jsonl").write_text("\n".join(lines[30:]) + "\n", encoding="utf-8")
    texts = [json.loads(line)["text"] for line in lines]
    (d / "a.txt").write_text(texts[0], encoding="utf-8")
    (d / "b.txt").write_text(texts[0][:200] + texts[1], encoding="utf-8")
    (d / "urls.txt").write_text(
        "https://example.com/a?utm_source=x\nhttps://example.com/a\nhttps://b.example/\n"
    )
    with (
        gzip.open(data_dir / "zh-xwlb.jsonl.gz", "rt", encoding="utf-8") as src,
        gzip.open(d / "articles.jsonl.gz", "wt", encoding="utf-8") as dst,
    ):
        for _, line in zip(range(60), src, strict=False):
            dst.write(line)
    return d


def _env(**extra: str) -> dict[str, str]:
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}", **extra}
    env.pop("NEARDUP_TOKEN", None)
    return env


def _localize(line: str, redis_url: str) -> str:
    return line.replace("redis://127.0.0.1:6379/0", redis_url.rstrip("/").rsplit("/", 1)[0] + "/0")


def run_line(line: str) -> str | None:
    """Run one README shell line through the ``neardup`` CLI in this process (``&&``, ``<`` and ``>``
    as the shell does them); None if it succeeded, else its error line."""
    from click.testing import CliRunner

    from neardup.cli.main import cli

    for command in line.split("&&"):
        words = shlex.split(command)
        assert words[0] == "neardup", line
        stdin = stdout = None
        if "<" in words:
            i = words.index("<")
            stdin, words = Path(words[i + 1]).read_bytes(), words[:i] + words[i + 2 :]
        if ">" in words:
            i = words.index(">")
            stdout, words = words[i + 1], words[:i] + words[i + 2 :]
        res = CliRunner().invoke(cli, words[1:], input=stdin, catch_exceptions=True)
        if res.exit_code != 0:
            err = (res.stderr or "").strip() or repr(res.exception)
            return err.splitlines()[-1] if err else f"exit {res.exit_code}"
        if stdout is not None:
            Path(stdout).write_bytes(res.stdout_bytes)
    return None


def test_readme_cli_tour_runs_line_by_line(
    workdir: Path, redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(workdir)
    failed: dict[str, str] = {}
    for line in shell_lines(_tour()):
        if line.startswith(("NEARDUP_TOKEN=", "neardup spark")):
            continue  # the tests below
        err = run_line(_localize(line, redis_url))
        if err is not None:
            failed[line] = err
    assert set(failed) == set(KNOWN_FALSE), failed
    assert (workdir / "report.html").stat().st_size > 10_000
    assert json.loads((workdir / "fps.jsonl").read_text().splitlines()[0]).keys() == {"id", "fingerprint"}
    assert (workdir / "new-urls.txt").read_text().split() == [
        "https://example.com/a?utm_source=x",
        "https://b.example/",
    ]


def test_readme_serve_line_starts_a_service(workdir: Path, free_tcp_port: int) -> None:
    line = next(x for x in shell_lines(_tour()) if x.startswith("NEARDUP_TOKEN="))
    line = line.replace("--host 0.0.0.0", "--host 127.0.0.1").replace(
        "--port 8000", f"--port {free_tcp_port}"
    )
    log = workdir / "serve.log"
    with log.open("wb") as err:
        proc = subprocess.Popen(
            ["bash", "-c", f"exec env {line}"], cwd=workdir, env=_env(), stdout=subprocess.DEVNULL, stderr=err
        )
        try:
            _wait_health(f"http://127.0.0.1:{free_tcp_port}", proc, log=log)
        finally:
            proc.send_signal(signal.SIGTERM)
            code = proc.wait(timeout=90)
    # uvicorn re-raises the signal after its graceful shutdown: -SIGTERM is a clean stop
    assert code in (0, -signal.SIGTERM), log.read_text()[-2000:]
    assert (workdir / "nd-state").is_dir()


def _wait_health(base: str, proc: Any = None, timeout: float = 120.0, log: Path | None = None) -> None:
    def tail() -> str:
        return log.read_text() if log else ""

    if not wait_healthy(f"{base}/v1/health", proc, tail, timeout):
        raise AssertionError(f"{base} did not answer in {timeout} s")


@pytest.fixture
def service(tmp_path: Path, free_tcp_port: int) -> Iterator[str]:
    """The real app under uvicorn in a thread, with a bearer token."""
    uvicorn = pytest.importorskip("uvicorn")
    from neardup.service.app import create_app
    from neardup.service.settings import ServiceSettings

    app = create_app(ServiceSettings(state=tmp_path / "svc", token=TOKEN))
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=free_tcp_port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{free_tcp_port}"
    try:
        _wait_health(base, timeout=60)
        yield base
    finally:
        server.should_exit = True
        thread.join(timeout=30)


def test_readme_python_api_tour_runs(
    workdir: Path, tmp_path: Path, redis_url: str, service: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    code = next(code for lang, code in blocks() if lang == "python" and "from neardup import" in code)
    code = _localize(code, redis_url).replace("http://127.0.0.1:8000", service)
    code = code.replace('"leveldb:///data/', f'"leveldb://{tmp_path}/data/')
    (tmp_path / "data").mkdir()
    monkeypatch.chdir(tmp_path)
    lines = (ROOT / "examples" / "news.jsonl").read_text(encoding="utf-8").splitlines()
    texts = [json.loads(line)["text"] for line in lines]
    article = "".join(f"<p>{t}</p>" for t in texts[0].split("\n") if t)
    body = f'<html><head><meta charset="gbk"></head><body><article>{article}</article></body></html>'
    ns: dict[str, Any] = {
        "texts": texts,
        "text": texts[0],
        "urls": ["https://example.com/1", "https://example.com/2"],
        "url": "https://example.com/news/1.html",
        "body": body.encode("gbk", "replace"),
        "TOKEN": TOKEN,
    }
    exec(compile(code, str(README), "exec"), ns)
    # what the tour's comments promise
    assert ns["fps"].dtype.name == "uint64" and len(ns["fps"]) == len(texts)
    assert ns["index"].query(ns["fps"][0])[0] == (0, 0)
    assert len(ns["ids"]) == len(texts) and ns["ids"][0] == 1
    assert ns["verdict"].kind == "new" and not ns["verdict"].is_duplicate
    assert callable(ns["fingerprint"]) and ns["fingerprint"](texts[0]) == int(ns["fps"][0])
    assert ns["Simhash"]("abc").value == __import__("simhash").Simhash("abc").value


def test_readme_scrapy_settings_are_real(tmp_path: Path) -> None:
    code = next(code for lang, code in blocks() if lang == "python" and "DUPEFILTER_CLASS" in code)
    code = code.replace("/var/crawl/", f"{tmp_path}/")
    settings: dict[str, Any] = {}
    exec(code, settings)
    from scrapy.utils.misc import load_object

    load_object(settings["DUPEFILTER_CLASS"])
    for path in settings["ITEM_PIPELINES"]:
        load_object(path)
    sources = "".join(p.read_text(encoding="utf-8") for p in (ROOT / "src" / "neardup").rglob("*.py"))
    for name in (k for k in settings if k.startswith("NEARDUP_")):
        assert f'"{name}"' in sources, f"README names a setting no code reads: {name}"


def test_readme_spark_line_parses_with_the_real_cli() -> None:
    # running it is tests/integration/spark's job (a JVM start costs more than this whole file)
    from neardup.cli.main import cli

    line = next(x for x in shell_lines(_tour()) if x.startswith("neardup spark"))
    words = shlex.split(line)[1:]
    group = cli.get_command(None, words[0])  # type: ignore[arg-type]
    assert group is not None
    command = group.get_command(None, words[1])  # type: ignore[attr-defined]
    ctx = command.make_context("neardup spark dedup", words[2:])
    assert ctx.params["master"] == "local[*]" and ctx.params["against"] == "corpus.idx"

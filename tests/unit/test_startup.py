"""Start-up: small runs interpret the kernels with the same results; numba always finds a cache folder."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from neardup._jit import prefer_interpreter
from neardup_testing import run_cli

ROOT = Path(__file__).resolve().parents[2]
NEWS = ROOT / "examples" / "news.jsonl"


def _neardup(args: list[str], tmp: Path, jit: str) -> str:
    env = {**os.environ, "NEARDUP_JIT": jit}
    env.pop("NUMBA_DISABLE_JIT", None)
    proc = run_cli(args, tmp, env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Warning" not in proc.stderr, proc.stderr[-2000:]
    return proc.stdout


@pytest.mark.slow  # the compiled side compiles the match engine when numba's cache is cold
def test_interpreted_small_runs_give_the_compiled_results(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    texts = [json.loads(line)["text"] for line in NEWS.read_text(encoding="utf-8").splitlines()[:2]]
    (tmp_path / "a.txt").write_text(texts[0], encoding="utf-8")
    (tmp_path / "b.txt").write_text(texts[0][: len(texts[0]) // 2] + texts[1], encoding="utf-8")
    runs = {
        "dedup": ["dedup", str(NEWS), "--out", "{out}"],
        "fingerprint": ["fingerprint", str(NEWS)],
        "nshash": ["nshash", str(NEWS)],
        "compare": ["compare", "a.txt", "b.txt"],
    }
    from click.testing import CliRunner

    from neardup.cli.main import cli

    monkeypatch.chdir(tmp_path)
    for name, args in runs.items():
        # interpreted: a new process, as a user starts it; compiled: this process's numba kernels
        out = tmp_path / f"{name}-interpreted.jsonl"
        stdout = _neardup([a.format(out=out) for a in args], tmp_path, "never")
        interpreted = out.read_text(encoding="utf-8") if out.exists() else stdout
        out = tmp_path / f"{name}-compiled.jsonl"
        res = CliRunner().invoke(cli, [a.format(out=out) for a in args], catch_exceptions=False)
        assert res.exit_code == 0, res.stderr
        compiled = out.read_text(encoding="utf-8") if out.exists() else res.stdout
        assert interpreted == compiled, name
        assert interpreted.strip(), name


def test_prefer_interpreter_only_for_small_existing_inputs(tmp_path: Path) -> None:
    small = tmp_path / "small.jsonl"
    small.write_text('{"id": 1, "text": "x"}\n')
    big = tmp_path / "big.jsonl"
    big.write_bytes(b"x" * (300 * 1024))
    assert prefer_interpreter([str(small)])
    assert prefer_interpreter([str(tmp_path / "missing"), str(small)])
    assert not prefer_interpreter([str(small), str(big)])
    assert not prefer_interpreter([str(tmp_path / "missing")])
    assert not prefer_interpreter([])


def test_import_works_when_no_numba_cache_folder_is_writable(tmp_path: Path) -> None:
    # an install whose __pycache__ cannot be created (here: files of that name, which stop root too)
    # used with a home folder that cannot be written: numba would refuse every cache=True kernel
    copy = tmp_path / "site"
    shutil.copytree(ROOT / "src" / "neardup", copy / "neardup", ignore=shutil.ignore_patterns("__pycache__"))
    for folder in [copy / "neardup", *(p for p in (copy / "neardup").rglob("*") if p.is_dir())]:
        (folder / "__pycache__").write_text("")
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    env = {
        **os.environ,
        "PYTHONPATH": str(copy),
        "HOME": "/proc/neardup-no-home",
        "XDG_CACHE_HOME": "/proc/neardup-no-home",
        "TMPDIR": str(tmpdir),
    }
    env.pop("NUMBA_CACHE_DIR", None)
    code = "import os, neardup, neardup.fingerprint._kernels_numba; print(neardup.__file__, os.environ['NUMBA_CACHE_DIR'])"
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    where, cache = proc.stdout.split()
    assert where.startswith(str(copy))
    assert Path(cache).parent == tmpdir / f"neardup-numba-{os.getuid()}"
    assert Path(cache).name.startswith("numba-")


@pytest.mark.parametrize("mode", ["always"])
def test_neardup_jit_always_keeps_numba_compiling(mode: str, tmp_path: Path) -> None:
    code = "from neardup.cli.main import _small_run; import sys, os; print(_small_run(sys.argv[1:]))"
    env = {**os.environ, "NEARDUP_JIT": mode}
    env.pop("NUMBA_DISABLE_JIT", None)
    args = [sys.executable, "-c", code, "dedup", str(NEWS)]
    assert subprocess.run(args, env=env, capture_output=True, text=True).stdout.strip() == "False"
    env["NEARDUP_JIT"] = "auto"
    assert subprocess.run(args, env=env, capture_output=True, text=True).stdout.strip() == "True"
    args = [sys.executable, "-c", code, "dedup", str(NEWS), "--against", "x.idx"]
    assert subprocess.run(args, env=env, capture_output=True, text=True).stdout.strip() == "False"


def _copy_package(tmp_path: Path) -> Path:
    copy = tmp_path / "site"
    shutil.copytree(ROOT / "src" / "neardup", copy / "neardup", ignore=shutil.ignore_patterns("__pycache__"))
    return copy


def _cache_env(copy: Path, xdg: Path) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(copy), "XDG_CACHE_HOME": str(xdg)}
    for name in ("NUMBA_CACHE_DIR", "NUMBA_DISABLE_JIT", "NEARDUP_JIT"):
        env.pop(name, None)
    return env


def test_kernels_are_cached_per_user_outside_the_package(tmp_path: Path) -> None:
    copy, xdg = _copy_package(tmp_path), tmp_path / "xdg"
    code = "import os, neardup; print(os.environ['NUMBA_CACHE_DIR'])"
    kernel = (
        "import neardup.fingerprint._md5 as m, numpy as np\n"
        "m.md5_head(np.frombuffer(b'abc', np.uint8), 0, 3, np.zeros(128, np.uint8))\n"
    )
    env = _cache_env(copy, xdg)
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    folder = Path(proc.stdout.strip())
    assert folder.parent == xdg / "neardup"
    assert (
        folder.name.startswith("numba-") and f"-py{sys.version_info[0]}{sys.version_info[1]}-" in folder.name
    )
    proc = subprocess.run(
        [sys.executable, "-c", kernel], env=env, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert list(folder.rglob("*.nbi")), "nothing cached in the per-user folder"
    assert not list((copy / "neardup").rglob("*.nbi")), "a kernel was cached inside the package"
    # an edited source file (an upgrade, a local change) starts another folder: no stale kernels
    (copy / "neardup" / "fingerprint" / "_md5.py").write_text(
        (copy / "neardup" / "fingerprint" / "_md5.py").read_text() + "\n# edited\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert Path(proc.stdout.strip()) != folder and Path(proc.stdout.strip()).parent == folder.parent


def test_numba_cache_dir_is_honoured(tmp_path: Path) -> None:
    env = {**_cache_env(ROOT / "src", tmp_path / "xdg"), "NUMBA_CACHE_DIR": str(tmp_path / "mine")}
    code = "import os, neardup, neardup._jit as j; print(j.configure_cache(), os.environ['NUMBA_CACHE_DIR'])"
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split() == ["None", str(tmp_path / "mine")]
    assert not (tmp_path / "xdg").exists()


@pytest.mark.slow  # compiles the URL kernels once (about a minute on a loaded machine)
def test_warmup_compiles_once_and_then_nothing(tmp_path: Path) -> None:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(ROOT / "src")}
    env.pop("NUMBA_DISABLE_JIT", None)
    args = [sys.executable, "-m", "neardup.warmup", "--only", "urls", "--jobs", "1", "--json"]
    runs = []
    for _ in range(2):
        proc = subprocess.run(args, env=env, capture_output=True, text=True, timeout=900)
        assert proc.returncode == 0, proc.stderr[-2000:]
        runs.append(json.loads(proc.stdout))
    assert runs[0]["cache"] == str(tmp_path / "cache")
    assert runs[0]["workloads"]["urls"]["error"] == ""
    from neardup.urls import _kernels

    # the URL kernels are C where the extension was built: nothing to compile, even the first time
    assert runs[0]["compiled"] > 0 if _kernels.BACKEND == "numba" else runs[0]["compiled"] == 0
    assert runs[1]["compiled"] == 0


def test_every_warmup_workload_runs_its_commands(tmp_path: Path) -> None:
    """Warmup drives the real commands (``make test`` runs it first): each of them must still
    accept what warmup gives it, e.g. an output suffix that names a format."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    proc = subprocess.run(
        [sys.executable, "-m", "neardup.warmup", "--jobs", "1", "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    errors = {name: w["error"] for name, w in json.loads(proc.stdout)["workloads"].items() if w["error"]}
    assert errors == {}


def test_warmup_rejects_an_unknown_workload(tmp_path: Path) -> None:
    proc = run_cli(["warmup", "--only", "nope"], tmp_path, {**os.environ})
    assert proc.returncode == 2
    assert "unknown workload nope" in proc.stderr and "Traceback" not in proc.stderr

"""nshash on LevelDB across real processes: ids continue after a restart, a locked database is named."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from neardup.exceptions import StoreError
from neardup.fingerprint.nshash import NSHash
from neardup_testing import run_cli

ROOT = Path(__file__).resolve().parents[3]

DOCS = [
    "第一篇：这是一篇新闻稿件中的一个很长的句子，长度超过三十个字符，用来生成指纹。",
    "第二篇：另外一篇完全不同的稿件，也有一个很长的句子，长度同样超过三十个字符。",
    "第一篇：这是一篇新闻稿件中的一个很长的句子，长度超过三十个字符，用来生成指纹。（转载）",
]


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    return run_cli(args, cwd, env, timeout=120)


def test_ids_continue_across_processes(tmp_path: Path) -> None:
    for i, name in enumerate(("a.jsonl", "b.jsonl")):
        (tmp_path / name).write_text(json.dumps({"id": name, "text": DOCS[i]}, ensure_ascii=False) + "\n")
    url = f"leveldb://{tmp_path}/db"
    first = _run(["nshash", "a.jsonl", "--store", url], tmp_path)
    second = _run(["nshash", "b.jsonl", "--store", url], tmp_path)
    assert first.returncode == second.returncode == 0, first.stderr + second.stderr
    assert json.loads(first.stdout)["similar_id"] == 1
    assert json.loads(second.stdout)["similar_id"] == 2  # the counter lives in the database
    with NSHash(hashdb=url) as nsh:
        assert nsh.get_similar(DOCS[2]) == 1  # the repost of the first
    stats = _run(["nshash", "stats", "--store", url], tmp_path)
    assert stats.returncode == 0 and "ids_assigned   2" in stats.stdout


def test_database_held_by_another_process_is_a_store_error(tmp_path: Path) -> None:
    url = f"leveldb://{tmp_path}/db"
    with NSHash(hashdb=url) as nsh:
        nsh.get_similar(DOCS[0])
        (tmp_path / "x.jsonl").write_text(json.dumps({"id": 1, "text": DOCS[1]}, ensure_ascii=False) + "\n")
        res = _run(["nshash", "x.jsonl", "--store", url], tmp_path)
        assert res.returncode == 2
        assert f"cannot open store '{url}'" in res.stderr
        assert "Traceback" not in res.stderr
    with pytest.raises(StoreError), NSHash(hashdb=url):
        NSHash(hashdb=url)

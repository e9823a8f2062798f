"""nshash on LevelDB across real processes: ids continue after a restart, a locked database is named."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from neardup.exceptions import FormatError, StoreError
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


def test_a_store_folder_without_its_current_file_is_refused_not_emptied(tmp_path: Path) -> None:
    """LevelDB asked to create a database where tables lie but CURRENT is gone starts empty and
    deletes them: such a folder is refused, and its files stay."""
    path = tmp_path / "db"
    with NSHash(hashdb=f"leveldb://{path}") as nsh:
        nsh.get_similar_many(
            ["第一篇新闻的最长一句话写在这里，足够长了。", "另一篇完全不同的新闻，它的最长一句话在这里。"]
        )
    (path / "CURRENT").unlink()
    before = sorted(os.listdir(path))
    with pytest.raises(FormatError, match="no LevelDB CURRENT file"):
        NSHash(hashdb=f"leveldb://{path}")
    assert sorted(os.listdir(path)) == before

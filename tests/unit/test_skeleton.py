from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from neardup.config import SimHashConfig
from neardup.exceptions import ConfigError, InputError
from neardup.io import atomic_write, iter_records
from neardup.stores._url import parse_store_url


def test_config_rejects_bad_values_with_expected_and_got() -> None:
    with pytest.raises(ConfigError, match=r"bits must be one of 32, 64, got 48"):
        SimHashConfig(bits=48)
    with pytest.raises(ConfigError, match=r"step must be between 1"):
        SimHashConfig(ngram=4, step=5)


def test_config_round_trips_through_dict() -> None:
    cfg = SimHashConfig(features="shingles", ngram=5, boost=("亚冠",))
    assert SimHashConfig.from_dict(cfg.to_dict()) == cfg


def test_store_url_unknown_scheme_lists_valid_ones() -> None:
    with pytest.raises(ConfigError, match=r"valid schemes: memory://, leveldb://"):
        parse_store_url("mysql://x", ("memory", "leveldb"))
    assert parse_store_url("/tmp/db", ("memory", "leveldb")).scheme == "leveldb"


def test_reader_names_file_line_and_field(tmp_path) -> None:
    p = tmp_path / "a.jsonl"
    p.write_text('{"id": 1, "text": "ok"}\n{"id": 2, "body": "x"}\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"a.jsonl:2: has no field 'text'"):
        list(iter_records([p]))


def test_atomic_write_leaves_no_file_on_error(tmp_path) -> None:
    target = tmp_path / "out.txt"
    with pytest.raises(RuntimeError), atomic_write(target, "w") as fh:
        fh.write("half")
        raise RuntimeError("crash")
    assert not target.exists() and list(tmp_path.iterdir()) == []


def test_cli_version_and_unknown_command_exit_codes() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "neardup.cli.main", "--version"], capture_output=True, text=True
    )
    assert out.returncode == 0 and "neardup" in out.stdout
    bad = subprocess.run([sys.executable, "-m", "neardup.cli.main", "nosuch"], capture_output=True, text=True)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr


def test_skip_bad_counts_bad_lines_and_reads_the_rest(tmp_path) -> None:
    from neardup.io import ReadStats

    p = tmp_path / "a.jsonl"
    p.write_bytes(b'{"id": 1, "text": "ok"}\nnot json\n{"id": 3}\n\xff\xfe\n{"id": 5, "text": "fine"}\n')
    stats = ReadStats()
    got = [r.id for r in iter_records([p], skip_bad=True, stats=stats)]
    assert got == ["1", "5"]
    assert stats.read == 2 and stats.skipped == 3 and "a.jsonl:2" in (stats.first_error or "")


def test_license_is_an_spdx_expression_and_the_build_backend_reads_it() -> None:
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+

    data = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())
    assert data["project"]["license"] == "Apache-2.0"  # a table stops building after 2027-02-18
    # setuptools reads a license expression from 77 on; an older backend would refuse the string
    assert any(r.replace(" ", "").startswith("setuptools>=77") for r in data["build-system"]["requires"])
    extras = data["project"]["optional-dependencies"]
    assert any(r.startswith("datasets") for r in extras["hf"])
    assert "hf" in extras["all"][0] and "all" in extras["dev"][0]

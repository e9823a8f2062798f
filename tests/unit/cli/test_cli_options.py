"""Command-line options come from the config dataclasses: every field has an option or a stated
reason not to, defaults are the library's, and the commands that share a config share its options."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner

from neardup.cli._common import Flag, config_fields, config_from_options
from neardup.cli.dedup import DEFAULTS, ENGINE_EXCLUDED, ENGINE_FLAGS, build_config, dedup_cmd
from neardup.cli.fingerprint import SIMHASH_EXCLUDED, SIMHASH_FLAGS, fingerprint_cmd, simhash_config
from neardup.cli.index import build_cmd
from neardup.cli.main import cli, main
from neardup.cli.serve import SERVE_EXCLUDED, SERVE_FLAGS, serve_cmd
from neardup.cli.spark import spark_dedup_cmd
from neardup.config import SimHashConfig
from neardup.dedup.config import DedupConfig
from neardup.service.settings import ServiceSettings

TABLES: list[tuple[type[Any], dict[str, Flag], dict[str, str]]] = [
    (DedupConfig, ENGINE_FLAGS, ENGINE_EXCLUDED),
    (SimHashConfig, SIMHASH_FLAGS, SIMHASH_EXCLUDED),
    (ServiceSettings, SERVE_FLAGS, SERVE_EXCLUDED),
]


@pytest.mark.parametrize(("cls", "flags", "excluded"), TABLES, ids=lambda x: getattr(x, "__name__", ""))
def test_every_config_field_has_an_option_or_a_reason(
    cls: type[Any], flags: dict[str, Flag], excluded: dict[str, str]
) -> None:
    paths = set(config_fields(cls))
    missing = paths - set(flags) - set(excluded)
    assert not missing, f"{cls.__name__} fields with no CLI option: add a Flag or a reason: {sorted(missing)}"
    assert not (set(flags) | set(excluded)) - paths, "options or reasons for fields that do not exist"
    assert not set(flags) & set(excluded)


def _params(cmd: click.Command) -> dict[str, click.Parameter]:
    return {p.name: p for p in cmd.params if p.name}


def test_commands_sharing_the_dedup_config_share_its_options() -> None:
    dests = {spec.dest for spec in ENGINE_FLAGS.values()}
    for cmd in (dedup_cmd, build_cmd, spark_dedup_cmd):
        params = _params(cmd)
        assert dests <= set(params), cmd.name
        for path, spec in ENGINE_FLAGS.items():
            assert set(params[spec.dest].opts) == set(spec.flags), path


def test_option_defaults_are_the_library_defaults() -> None:
    ctx = dedup_cmd.make_context("dedup", ["x.jsonl", "-o", "out.jsonl"])
    engine = {spec.dest: ctx.params[spec.dest] for spec in ENGINE_FLAGS.values()}
    assert build_config(**engine) == build_config() == DEFAULTS == DedupConfig()
    ctx = fingerprint_cmd.make_context("fingerprint", ["x.jsonl"])
    assert simhash_config(dict(ctx.params)) == SimHashConfig()


def test_options_set_nested_fields() -> None:
    config = build_config(
        keep="longest", keep_field="when", max_distance=3, workers=2, duplicate_ids="suffix"
    )
    assert config.match.keep == "longest" and config.match.keep_field == "when"
    assert config.match.candidate_distance == 3 and config.workers == 2 and config.duplicate_ids == "suffix"
    assert config.match.near_similarity == DEFAULTS.match.near_similarity


def test_an_index_header_fixes_the_signature_settings() -> None:
    settings = {**DEFAULTS.fingerprint_settings(), "shingle": 4}
    config = build_config(settings=settings, keep="longest", workers=3)
    assert config.match.shingle == 4 and config.match.keep == "longest" and config.workers == 3


def test_simhash_options_turn_into_the_config() -> None:
    ctx = fingerprint_cmd.make_context(
        "fingerprint",
        ["x.jsonl", "--bits", "32", "--no-stopwords", "--top-n", "auto", "--boost", "上海", "--hash", "md5"],
    )
    cfg = simhash_config(dict(ctx.params))
    assert (cfg.bits, cfg.stopwords, cfg.top_n, cfg.boost, cfg.hash) == (32, False, "auto", ("上海",), "md5")


def test_serve_options_turn_into_service_settings(tmp_path: Path) -> None:
    ctx = serve_cmd.make_context("serve", ["--state", str(tmp_path), "--max-body", "4096", "--port", "0"])
    options = {spec.dest: ctx.params[spec.dest] for spec in SERVE_FLAGS.values()}
    settings = config_from_options(ServiceSettings, SERVE_FLAGS, options, ServiceSettings())
    assert settings.state == tmp_path and settings.max_body_bytes == 4096 and settings.port == 0
    assert settings.analysis_timeout == ServiceSettings().analysis_timeout


def test_serve_needs_its_state_dir() -> None:
    res = CliRunner().invoke(serve_cmd, [])
    assert res.exit_code == 2 and "--state" in res.output


def test_eval_without_a_subcommand_names_them(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["eval", "--truth", "t.jsonl", "out.jsonl"])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "eval score" in err[0] and "eval sweep" in err[0] and "eval graded" in err[0]


def test_eval_lists_its_subcommands() -> None:
    res = CliRunner().invoke(cli, ["eval", "--help"])
    assert res.exit_code == 0
    assert all(name in res.output for name in ("score", "sweep", "graded"))


def test_eval_score_says_when_the_input_holds_documents(tmp_path: Path) -> None:
    docs, truth = tmp_path / "docs.jsonl", tmp_path / "truth.jsonl"
    docs.write_text('{"id": "a", "text": "x"}\n', encoding="utf-8")
    truth.write_text('{"id": "a", "group": "g"}\n', encoding="utf-8")
    res = CliRunner().invoke(cli, ["eval", "score", "--truth", str(truth), str(docs)])
    assert res.exit_code != 0 and "--documents" in str(res.exception)

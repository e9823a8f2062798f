"""The defaults in code are the ones docs/quality.md chose (neardup.eval.sweep.RECOMMENDED)."""

from __future__ import annotations

from neardup.config import RECOMMENDED_MAX_DISTANCE, SimHashConfig, recommended_simhash
from neardup.dedup import DedupConfig
from neardup.eval.sweep import RECOMMENDED


def test_dedup_defaults_are_the_recommended_setting() -> None:
    cfg = DedupConfig()
    expected = SimHashConfig(
        features=RECOMMENDED["features"], ngram=RECOMMENDED["ngram"], weighting=RECOMMENDED["weighting"]
    )
    assert cfg.method == "simhash"
    assert cfg.simhash == expected == recommended_simhash()
    assert cfg.max_distance == RECOMMENDED["k"] == RECOMMENDED_MAX_DISTANCE
    assert cfg.nshash_n == RECOMMENDED["n"]


def test_cli_defaults_follow_the_library() -> None:
    from neardup.cli.dedup import DEFAULTS, build_config

    assert build_config() == DEFAULTS == DedupConfig()

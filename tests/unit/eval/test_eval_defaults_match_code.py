"""The defaults in code are the ones docs/quality.md chose, and every front end starts from them."""

from __future__ import annotations

from neardup.dedup import DedupConfig
from neardup.match import MatchConfig


def test_dedup_defaults_are_the_calibrated_engine() -> None:
    m = DedupConfig().match
    assert m == MatchConfig()
    # the thresholds bench/calibrate.py chose (docs/quality.md, "How the thresholds were calibrated")
    assert (m.near_similarity, m.near_containment, m.containment_min_similarity) == (0.5, 0.65, 0.25)
    assert (m.agree_containment, m.agree_min, m.partial_containment) == (0.55, 10, 0.3)
    assert m.candidate_distance is None


def test_cli_defaults_follow_the_library() -> None:
    from neardup.cli.dedup import DEFAULTS, build_config

    assert build_config() == DEFAULTS == DedupConfig()


def test_contentseen_starts_from_the_same_engine() -> None:
    from neardup.contentseen import ContentSeen

    assert ContentSeen().match == MatchConfig()

"""The match engine: signatures, candidates, verification with evidence, kinds, clusters.

Every front end composes these stages with one ``MatchConfig``: ``neardup dedup`` (local and on
Spark), ``ContentSeen`` / ``neardup serve`` / Scrapy, ``neardup compare`` and ``neardup eval``.

>>> texts = ["今天北京天气晴朗，适合出门散步，公园里人很多。", "今天北京天气晴朗，适合出门散步，公园里人很多！",
...          "完全不同的另一篇文章，讲的是上海的交通。"]
>>> c = match_texts(texts)
>>> c.rep.tolist(), [KINDS[k] for k in c.kind]
([0, 0, 2], ['unique', 'content', 'unique'])
>>> compare_texts(texts[0], texts[1]).kind
'content'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from neardup.fingerprint._fast import text_list
from neardup.match.candidates import cross_candidates, simhash_pairs
from neardup.match.cluster import Clusters
from neardup.match.config import KEEP_RULES, MatchConfig
from neardup.match.dates import days_of
from neardup.match.engine import EngineState
from neardup.match.pages import Page, page_signatures, read_pages
from neardup.match.signature import Signatures, exact_key, signatures
from neardup.match.verify import KINDS, MERGING, Evidence, evidence

__all__ = [
    "KEEP_RULES",
    "KINDS",
    "MERGING",
    "Clusters",
    "EngineState",
    "Evidence",
    "MatchConfig",
    "Page",
    "Signatures",
    "compare_signatures",
    "compare_texts",
    "cross_candidates",
    "evidence",
    "exact_key",
    "match_signatures",
    "match_texts",
    "page_signatures",
    "read_pages",
    "signatures",
]


def match_signatures(sigs: Signatures, config: MatchConfig | None = None, *, fixed: int = 0) -> Clusters:
    """Candidates, verification and clusters of one batch, in row order; the first ``fixed`` rows
    are representatives already (a corpus's documents)."""
    cfg = config or MatchConfig()
    extra = None
    if cfg.candidate_distance is not None:
        a, b = simhash_pairs(sigs, cfg)
        order = np.lexsort((a, b))
        ptr = np.zeros(len(sigs) + 1, np.int64)
        np.add.at(ptr, b + 1, 1)
        extra = (np.cumsum(ptr), a[order])
    return Clusters.from_run(EngineState(cfg).run(sigs, fixed=fixed, extra=extra))


def _config(config: object) -> MatchConfig:
    if config is None:
        return MatchConfig()
    if not isinstance(config, MatchConfig):
        raise TypeError(f"config must be a MatchConfig or None, got {type(config).__name__}")
    return config


def match_texts(texts: Sequence[str], config: MatchConfig | None = None) -> Clusters:
    """``match_signatures`` of plain texts."""
    cfg = _config(config)
    return match_signatures(signatures(text_list(texts), cfg), cfg)


def compare_texts(
    a: str,
    b: str,
    config: MatchConfig | None = None,
    *,
    html_a: str | bytes | None = None,
    html_b: str | bytes | None = None,
    dates: tuple[Any, Any] | None = None,
) -> Evidence:
    """The verdict the engine gives the pair (b checked after a), with its evidence.

    It runs the engine's pass on the two documents, so it is the decision ``neardup dedup`` and
    ``ContentSeen`` make for them (on their own: a larger collection can also mark some of their
    shared passages as boilerplate). ``dates``: the two records' dates, which the news profile
    compares (``MatchConfig.occasion_days``). The evidence's pairs (``containment``, ``adds``)
    read from the document checked, b, to the one it is checked against, a: ``adds[0]`` is what
    b adds to a, as in a dedup row (``neardup compare --json`` gives them in (A, B) order).
    """
    cfg = _config(config)
    for name, text, html in (("a", a, html_a), ("b", b, html_b)):
        if html is None and not isinstance(text, str):
            raise TypeError(f"{name} must be a str (or pass html_{name}), got {type(text).__name__}")
        if html is not None and not isinstance(html, (str, bytes)):
            raise TypeError(f"html_{name} must be str or bytes, got {type(html).__name__}")
    if dates is not None and not (isinstance(dates, (tuple, list)) and len(dates) == 2):
        raise TypeError(f"dates must be a pair (a's date, b's date) or None, got {dates!r}")
    sigs, _ = page_signatures(
        [(a if html_a is None else None, html_a), (b if html_b is None else None, html_b)], cfg
    )
    if dates is not None:
        sigs.day = days_of(list(dates), 2)
    return compare_signatures(sigs, cfg)


def compare_signatures(sigs: Signatures, config: MatchConfig | None = None) -> Evidence:
    """``compare_texts`` of two documents already signed: the verdict on the second against the first.

    >>> sigs = signatures(["今天北京晴，最高气温二十度。", "今天北京晴，最高气温二十度！"])
    >>> compare_signatures(sigs).kind
    'content'
    """
    cfg = config or MatchConfig()
    c = match_signatures(sigs, cfg)
    if c.partner[1] < 0:
        return evidence(sigs, 1, sigs, 0, cfg)  # unrelated: the evidence, kind "unique"
    return c.evidence(1, sigs, cfg)

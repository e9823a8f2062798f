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

import numpy as np

from neardup.fingerprint.simhash import hamming
from neardup.match.candidates import cross_candidates, simhash_pairs
from neardup.match.cluster import Clusters
from neardup.match.config import KEEP_RULES, MatchConfig
from neardup.match.engine import EngineState
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
    "Signatures",
    "compare_texts",
    "cross_candidates",
    "evidence",
    "exact_key",
    "match_signatures",
    "match_texts",
    "page_signatures",
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


def match_texts(texts: Sequence[str], config: MatchConfig | None = None) -> Clusters:
    """``match_signatures`` of plain texts."""
    return match_signatures(signatures(texts, config), config)


def page_signatures(
    items: Sequence[tuple[str | None, str | bytes | None]], config: MatchConfig | None = None
) -> tuple[Signatures, list[str]]:
    """Signatures of (text, html) items: HTML goes through main-text extraction and gives a layout
    signature and an exact key of its raw bytes. Returns the signatures and the main texts."""
    from neardup.contentseen.extract import decode_html, extract_main_text, layout_signature

    cfg = config or MatchConfig()
    texts: list[str] = []
    raws: list[str | None] = []
    layouts: list[int | None] = []
    for text, html in items:
        page = decode_html(html) if isinstance(html, bytes) else html
        if page is not None and not text:
            texts.append(extract_main_text(page, cfg.extractor))
            layouts.append(layout_signature(page) or None)
        else:
            texts.append(text or "")
            layouts.append((layout_signature(page) or None) if page is not None else None)
        raws.append(page)
    return signatures(texts, cfg, raw=raws, layouts=layouts), texts


def compare_texts(
    a: str,
    b: str,
    config: MatchConfig | None = None,
    *,
    html_a: str | bytes | None = None,
    html_b: str | bytes | None = None,
) -> Evidence:
    """The verdict the engine gives the pair (b checked after a), with its evidence.

    It runs the engine's pass on the two documents, so it is the decision ``neardup dedup`` and
    ``ContentSeen`` make for them (on their own: a larger collection can also mark some of their
    shared passages as boilerplate).
    """
    cfg = config or MatchConfig()
    sigs, _ = page_signatures(
        [(a if html_a is None else None, html_a), (b if html_b is None else None, html_b)], cfg
    )
    c = match_signatures(sigs, cfg)
    if c.partner[1] < 0:
        return evidence(sigs, 1, sigs, 0, cfg)  # unrelated: the evidence, kind "unique"
    return Evidence(
        kind=KINDS[int(c.kind[1])],
        similarity=float(c.similarity[1]),
        containment=(float(c.containment[1, 0]), float(c.containment[1, 1])),
        number_conflicts=int(c.conflicts[1]),
        numbers_aligned=int(c.aligned[1]),
        hamming=int(c.hamming[1]),
        same_layout=None
        if not (sigs.has_layout[0] and sigs.has_layout[1])
        else hamming(int(sigs.layout[0]), int(sigs.layout[1])) <= cfg.layout_distance,
    )

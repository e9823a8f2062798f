"""Hard negatives: real, different articles that look alike. In zh-xwlb the same yearly meeting or
the same templated story in another year or on the next day (same title once digits are removed),
or bodies close by TF-IDF cosine; a pair is kept when its 5-gram Jaccard stays below
``hn_max_overlap``.

>>> norm_title("【快讯】2024年第十届论坛开幕")
'年第届论坛开幕'
"""

from __future__ import annotations

import datetime as _dt
import random
import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from neardup.eval.synth.config import SynthConfig
from neardup.eval.synth.text import grams

__all__ = ["hard_negative_pairs", "look_alike_reason", "norm_title", "pick_hard_negatives"]


def norm_title(title: str) -> str:
    t = re.sub(r"【[^】]*】|\[[^]]*\]", "", title)
    t = re.sub(r"\d+|[一二三四五六七八九十]+(?=[届次年月日])", "", t)
    return re.sub(r"[\W_]+", "", t).lower()


def year_of(rec: Mapping[str, Any], date_field: str) -> str:
    return str(rec.get(date_field) or "")[:4]


def hard_negative_pairs(
    recs: Sequence[Mapping[str, Any]], cfg: SynthConfig, rng: random.Random
) -> list[tuple[int, int, float]]:
    """Pairs of different articles that look alike, hardest (highest text overlap) first."""
    words = cfg.lang == "en"
    n = 5
    cands: set[tuple[int, int]] = set()
    by_title: dict[str, list[int]] = defaultdict(list)
    for i, r in enumerate(recs):
        t = norm_title(str(r.get(cfg.title_field) or ""))
        if len(t) >= 4:
            by_title[t].append(i)
    for members in by_title.values():
        if len(members) < 2 or len(members) > 400:
            continue
        sample = members if len(members) <= 30 else rng.sample(members, 30)
        for a_pos, a in enumerate(sample):
            for b in sample[a_pos + 1 :]:
                if year_of(recs[a], cfg.date_field) != year_of(recs[b], cfg.date_field) or not year_of(
                    recs[a], cfg.date_field
                ):
                    cands.add((min(a, b), max(a, b)))
    if cfg.profile == "realistic":
        cands |= _adjacent_days(recs, by_title, cfg.date_field)
    cands |= _similar_bodies(recs, rng, words)
    scored: list[tuple[int, int, float]] = []
    gram_sets: dict[int, set[str]] = {}
    for a, b in cands:
        for i in (a, b):
            if i not in gram_sets:
                gram_sets[i] = grams(str(recs[i]["text"]), n, words)
        ga, gb = gram_sets[a], gram_sets[b]
        j = len(ga & gb) / max(1, len(ga | gb))
        if j < cfg.hn_max_overlap:
            scored.append((a, b, j))
    scored.sort(key=lambda x: (-x[2], x[0], x[1]))
    return scored


def day_of(rec: Mapping[str, Any], date_field: str) -> _dt.date | None:
    digits = re.sub(r"\D", "", str(rec.get(date_field) or ""))[:8]
    if len(digits) != 8:
        return None
    try:
        return _dt.date(int(digits[:4]), int(digits[4:6]), int(digits[6:8]))
    except ValueError:
        return None


def _adjacent_days(
    recs: Sequence[Mapping[str, Any]], by_title: Mapping[str, list[int]], date_field: str
) -> set[tuple[int, int]]:
    """The same templated story (same title without its numbers) on consecutive days."""
    out: set[tuple[int, int]] = set()
    one = _dt.timedelta(days=1)
    for members in by_title.values():
        by_day: dict[_dt.date, list[int]] = defaultdict(list)
        for i in members:
            day = day_of(recs[i], date_field)
            if day is not None:
                by_day[day].append(i)
        for day, here in by_day.items():
            for a in here:
                for b in by_day.get(day + one, ()):
                    out.add((min(a, b), max(a, b)))
    return out


def _similar_bodies(
    recs: Sequence[Mapping[str, Any]], rng: random.Random, words: bool, limit: int = 3000
) -> set[tuple[int, int]]:
    """Top pairs by bag-of-words (or character bigram) cosine within a sample of the corpus."""
    from scipy import sparse

    idx = list(range(len(recs)))
    if len(idx) > limit:
        idx = sorted(rng.sample(idx, limit))
    rows, cols = [], []
    vocab: dict[str, int] = {}
    for row, i in enumerate(idx):
        text = str(recs[i]["text"])
        toks = (
            set(re.findall(r"[a-z]{4,}", text.lower()))
            if words
            else {text[k : k + 2] for k in range(len(text) - 1)}
        )
        for t in toks:
            rows.append(row)
            cols.append(vocab.setdefault(t, len(vocab)))
    if not rows:
        return set()
    x = sparse.csr_matrix((np.ones(len(rows), dtype=np.float32), (rows, cols)), shape=(len(idx), len(vocab)))
    df = np.asarray((x > 0).sum(axis=0)).ravel()
    x = x.multiply(np.log((1 + len(idx)) / (1 + df))).tocsr()
    norms = np.sqrt(np.asarray(x.multiply(x).sum(axis=1)).ravel()) + 1e-9
    x = sparse.diags(1 / norms) @ x
    out: set[tuple[int, int]] = set()
    for start in range(0, len(idx), 500):
        block = (x[start : start + 500] @ x.T).toarray()
        for r_off in range(block.shape[0]):
            block[r_off, : start + r_off + 1] = 0  # upper triangle only
        rr, cc = np.nonzero(block >= 0.45)
        out |= {(idx[start + a], idx[b]) for a, b in zip(rr.tolist(), cc.tolist(), strict=False)}
    return out


def pick_hard_negatives(
    recs: Sequence[Mapping[str, Any]], eligible: Sequence[int], cfg: SynthConfig, rng: random.Random
) -> list[tuple[int, int, float]]:
    """Up to ``cfg.n_hard_negatives`` disjoint look-alike pairs among ``eligible`` records, hardest
    first: ``(record a, record b, 5-gram Jaccard)``."""
    pairs: list[tuple[int, int, float]] = []
    if not cfg.n_hard_negatives:
        return pairs
    used: set[int] = set()
    for a, b, jab in hard_negative_pairs([recs[i] for i in eligible], cfg, rng):
        if a in used or b in used:
            continue
        used |= {a, b}
        pairs.append((eligible[a], eligible[b], jab))
        if len(pairs) >= cfg.n_hard_negatives:
            break
    return pairs


def look_alike_reason(a: Mapping[str, Any], b: Mapping[str, Any], cfg: SynthConfig) -> str:
    """Why two articles look alike: their template (same title bar the numbers), or their text."""
    ta, tb = (norm_title(str(r.get(cfg.title_field) or "")) for r in (a, b))
    if ta != tb or len(ta) < 4:
        return "similar_text"
    da, db = day_of(a, cfg.date_field), day_of(b, cfg.date_field)
    if da is not None and db is not None and abs((da - db).days) == 1:
        return "adjacent_day"
    if year_of(a, cfg.date_field) != year_of(b, cfg.date_field):
        return "other_year"
    return "same_title"

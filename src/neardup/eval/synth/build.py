"""Write a labelled set: originals, their copies (one kind each) and the hard negatives, in the
order the seed fixes, then shuffled; every document gets a truth row.

>>> recs = [{"id": f"d{i}", "text": "。".join(f"第{i}篇第{j}句" for j in range(40))} for i in range(6)]
>>> docs, truth = synthesize(recs, SynthConfig(n_sources=3, min_chars=50, hard_negatives=0, seed=2))
>>> len(docs) == len(truth) and {t["kind"] for t in truth} >= {"original"}
True
"""

from __future__ import annotations

import random
import re
import zlib
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from neardup.eval.synth.cases import make_cases
from neardup.eval.synth.classic import Editor
from neardup.eval.synth.config import SynthConfig
from neardup.eval.synth.distinct import near_copies
from neardup.eval.synth.negatives import look_alike_reason, pick_hard_negatives
from neardup.eval.synth.realistic import Reposter
from neardup.eval.synth.text import grams, join_paragraphs, ngram_jaccard, paragraphs
from neardup.exceptions import ConfigError

__all__ = ["synthesize"]

COPY_KINDS = ("exact", "reformatted", "near", "partial")


def synthesize(
    records: Iterable[Mapping[str, Any]], config: SynthConfig | None = None
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Make an evaluation set from real articles: ``(docs, truth)``, both lists of dicts, shuffled.

    ``records`` need ``id`` and ``text`` (``title`` and ``date`` are used when present). Exact
    duplicates already in the corpus are dropped first, so the truth is not contradicted by the input.
    """
    cfg = config or SynthConfig()
    rng = random.Random(cfg.seed)
    recs = _distinct(records)
    eligible = [i for i, r in enumerate(recs) if len(str(r["text"])) >= cfg.min_length]
    if cfg.profile == "realistic":  # the corpus's own copies are one article, not two groups
        dup = near_copies([str(recs[i]["text"]) for i in eligible], words=cfg.lang == "en")
        eligible = [i for k, i in enumerate(eligible) if k not in dup]
    if len(eligible) < 2:
        raise ConfigError(
            f"need at least 2 articles of >= {cfg.min_length} characters, got {len(eligible)}: "
            f"lower min_chars"
        )
    hn_pairs = pick_hard_negatives(recs, eligible, cfg, rng)
    in_hn = {i for a, b, _ in hn_pairs for i in (a, b)}
    rest = [i for i in eligible if i not in in_hn]
    rng.shuffle(rest)
    n_plain = max(0, cfg.n_sources - len(in_hn))
    pool = [recs[i] for i in rest[n_plain:]] or [recs[i] for i in rest] or recs  # hosts and added sentences
    out = _SetWriter(recs, cfg, rng, pool)
    for a, b, jab in hn_pairs:
        out.original(a)
        out.copies(a, rng.randint(1, cfg.max_copies))
        out.original(b, "hard_negative", negative_of=str(recs[a]["id"]))
        if cfg.profile == "realistic":
            out.truth[-1] |= {"jaccard5": round(jab, 4), "why": look_alike_reason(recs[a], recs[b], cfg)}
        if rng.random() < 0.5:
            out.copies(b, rng.randint(1, cfg.max_copies))
    for i in rest[:n_plain]:
        out.original(i)
        if rng.random() < cfg.copy_rate:
            out.copies(i, rng.randint(1, cfg.max_copies))
    if cfg.profile == "realistic" and cfg.cases:
        in_set = {str(t["id"]) for t in out.truth} | out.hosts
        for doc, row in make_cases([recs[i] for i in out.sources], pool, in_set, cfg):
            out.docs.append(doc)
            out.truth.append(row)
    order = list(range(len(out.docs)))
    rng.shuffle(order)
    return [out.docs[k] for k in order], [out.truth[k] for k in order]


def _distinct(records: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The records with distinct text (whitespace ignored), sorted by id."""
    seen_text: set[int] = set()
    recs: list[dict[str, Any]] = []
    for r in records:
        key = zlib.crc32(re.sub(r"\s+", "", str(r.get("text") or "")).encode("utf-8"))
        if key in seen_text:
            continue
        seen_text.add(key)
        recs.append(dict(r))
    recs.sort(key=lambda r: str(r["id"]))
    return recs


def _pick_kind(rng: random.Random, weights: Sequence[float]) -> str:
    return rng.choices(COPY_KINDS, weights=weights)[0]


class _SetWriter:
    """The documents and truth rows of a set, in the order they are made."""

    def __init__(
        self, recs: list[dict[str, Any]], cfg: SynthConfig, rng: random.Random, pool: list[dict[str, Any]]
    ) -> None:
        self.recs, self.cfg, self.rng, self.pool = recs, cfg, rng, pool
        self.editor = Editor(cfg.lang, rng, pool, cfg)
        self.reposter = Reposter(cfg.lang, rng, pool, cfg)
        self.docs: list[dict[str, Any]] = []
        self.truth: list[dict[str, Any]] = []
        self.sources: list[int] = []  # the originals (not hard negatives), in the order they came
        self.hosts: set[str] = set()  # the articles partial copies were pasted into

    def original(self, i: int, kind: str = "original", negative_of: str | None = None) -> None:
        r = self.recs[i]
        if kind == "original":
            self.sources.append(i)
        self.docs.append(dict(r))
        t: dict[str, Any] = {"id": str(r["id"]), "group": str(r["id"]), "kind": kind}
        if negative_of is not None:
            t["negative_of"] = negative_of
        self.truth.append(t)

    def copies(self, i: int, n_copies: int) -> None:
        copy = self._repost if self.cfg.profile == "realistic" else self._classic_copy
        for j in range(n_copies):
            copy(self.recs[i], j)

    def _add_copy(
        self, source: Mapping[str, Any], j: int, title: str, text: str, page: str | None, row: dict[str, Any]
    ) -> None:
        """The copy as a document (HTML when it is a page, for main-text extraction to find the
        article) and its truth row."""
        sid = str(source["id"])
        doc: dict[str, Any] = {"id": f"{sid}-r{j + 1}", "title": title}
        if page is not None:
            doc["html"] = page
        else:
            doc["text"] = text
        date = str(source.get(self.cfg.date_field) or "")
        if date:
            doc[self.cfg.date_field] = date
        self.docs.append(doc)
        self.truth.append({"id": doc["id"], "group": sid, "kind": row.pop("kind"), "source": sid, **row})

    def _classic_copy(self, r: Mapping[str, Any], j: int) -> None:
        cfg, rng, editor = self.cfg, self.rng, self.editor
        title = str(r.get(cfg.title_field) or "")
        date = str(r.get(cfg.date_field) or "")
        kind = _pick_kind(rng, cfg.kind_weights)
        edits: list[str] = []
        new_title = editor.title(title)
        if new_title != title:
            edits.append("title")
        paras = paragraphs(str(r["text"]))
        page: str | None = None
        if kind == "exact":
            text = str(r["text"])
        elif kind == "partial":
            host = rng.choice(self.pool)
            text = join_paragraphs(editor.partial(paras, host, edits), cfg.lang)
            new_title = str(host.get(cfg.title_field) or new_title)
        else:
            if kind == "near":
                paras = editor.content(paras, edits)
            paras = editor.reformat(paras, edits)
            paras = editor.dress(paras, new_title, date, edits)
            page = editor.html(paras, new_title, date, edits) if rng.random() < cfg.html_share else None
            text = "" if page else join_paragraphs(paras, cfg.lang)
        self._add_copy(r, j, new_title, text, page, {"kind": kind, "edits": edits})

    def _repost(self, r: Mapping[str, Any], j: int) -> None:
        cfg, rng, rp = self.cfg, self.rng, self.reposter
        title = str(r.get(cfg.title_field) or "")
        source_text = str(r["text"])
        words = cfg.lang == "en"
        kind = _pick_kind(rng, cfg.kind_weights)
        edits: list[str] = []
        new_title = rp.new_title(title, edits)
        paras = paragraphs(source_text)
        page: str | None = None
        extra: dict[str, Any] = {}
        if kind == "exact":
            text = source_text
        elif kind == "partial":
            host = rng.choice(self.pool)
            self.hosts.add(str(host["id"]))
            text = join_paragraphs(rp.embed(paras, host, edits), cfg.lang)
            new_title = str(host.get(cfg.title_field) or new_title)
            src_grams = grams(source_text, 5, words)
            extra["containment5"] = round(len(src_grams & grams(text, 5, words)) / max(1, len(src_grams)), 4)
        else:
            if kind == "near":
                paras = rp.near(paras, title, edits)
            paras, sep = rp.restyle(paras, edits)
            paras = rp.dress_lines(paras, new_title, title, str(r.get(cfg.date_field) or ""), edits)
            text = sep.join(paras)
            if rng.random() < cfg.html_share:
                page = rp.page(paras, new_title, edits)
        jac = round(ngram_jaccard(text, source_text, 5, words=words), 4)
        self._add_copy(r, j, new_title, text, page, {"kind": kind, "edits": edits, "jaccard5": jac, **extra})

"""Judged pairs: real text reuse labelled by reading, the ground truth for the engine's decisions.

Each file under ``tests/data/judged/`` lists pairs of documents of one corpus of ``../shared/data``
by id, with the label a reader gave them (``docs/judged.md`` has the reading rule): ``same`` (one
document: keep one copy, lose nothing), ``related`` (they share text, but each carries content of
its own), ``template`` (the same template told of another subject), ``different`` (only boilerplate
in common), ``unsure``. The texts stay in the corpus; the files hold ids and labels only.

>>> rates({"same": [True, True, False], "different": [False]})["same"]
{'pairs': 3, 'merged': 2, 'rate': 0.667}
"""

from __future__ import annotations

import csv
import gzip
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from neardup.match import MERGING, MatchConfig, compare_texts

__all__ = ["LABELS", "JudgedPair", "judge_pairs", "load_judged", "rates", "read_texts"]

LABELS = ("same", "related", "template", "different", "unsure")


@dataclass(frozen=True)
class JudgedPair:
    id_a: str
    id_b: str
    label: str
    fuller: str
    stratum: str
    note: str


def load_judged(path: str | Path) -> list[JudgedPair]:
    """The pairs of one judged file (``#`` lines are its description)."""
    lines = [
        line
        for line in Path(path).read_text(encoding="utf-8").splitlines()
        if line and not line.startswith("#")
    ]
    rows = list(csv.DictReader(lines, delimiter="\t", quoting=csv.QUOTE_NONE))
    out = []
    for r in rows:
        if r["label"] not in LABELS:
            raise ValueError(f"{path}: label must be one of {', '.join(LABELS)}, got {r['label']!r}")
        out.append(
            JudgedPair(r["id_a"], r["id_b"], r["label"], r["fuller"], r["stratum"], r.get("note") or "")
        )
    return out


def read_texts(corpus: str | Path, ids: Iterable[str] | None = None, field: str = "text") -> dict[str, Any]:
    """``id -> text`` of a JSON Lines corpus (gzip or not), only ``ids`` when given; another
    ``field`` (``date``) gives that field's values (None where a record has none)."""
    want = set(ids) if ids is not None else None
    opener = gzip.open if str(corpus).endswith(".gz") else open
    out: dict[str, Any] = {}
    with opener(corpus, "rb") as f:
        for line in f:
            rec = orjson.loads(line)
            key = str(rec["id"])
            if want is None or key in want:
                out[key] = rec.get(field) or ("" if field == "text" else None)
    return out


def judge_pairs(
    pairs: Sequence[JudgedPair],
    texts: Mapping[str, str],
    config: MatchConfig | None = None,
    dates: Mapping[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """The engine's verdict on every pair (the earlier document first, as dedup meets them), with
    the records' ``dates`` when given (as ``neardup dedup`` reads them)."""
    cfg = config or MatchConfig()
    out = []
    for p in pairs:
        when = (dates.get(p.id_a), dates.get(p.id_b)) if dates is not None else None
        ev = compare_texts(texts[p.id_a], texts[p.id_b], cfg, dates=when)
        out.append({"pair": p, "kind": ev.kind, "merged": ev.kind in MERGING, "evidence": ev})
    return out


def rates(merged_by_label: Mapping[str, Sequence[bool]]) -> dict[str, dict[str, Any]]:
    """Per label: pairs, merged, and the share merged (3 decimals)."""
    out = {}
    for label, merged in merged_by_label.items():
        n = len(merged)
        m = int(sum(merged))
        out[label] = {"pairs": n, "merged": m, "rate": round(m / n, 3) if n else 0.0}
    return out

"""decision_rows reads the text evidence a block of rows at a time and DedupResult.rows builds the
evidence without the Evidence dataclass: the rows are what Clusters.evidence(...).to_dict() and
the pair's own text_evidence give, whatever the block size."""

from __future__ import annotations

import random
from typing import Any

import pytest
from dedup_synth import article, near_copy

from neardup.dedup import DedupConfig, dedup_fingerprints, fingerprint_records, local, rethreshold
from neardup.dedup.rethreshold import decision_rows
from neardup.io import Record
from neardup.match.kernels import text_evidence


def _result() -> Any:
    rng = random.Random(9)
    recs = []
    for i in range(30):
        a = article(rng, 10)
        recs.append(Record(id=f"a{i}", text=a))
        for c in range(i % 4):
            text = near_copy(rng, a) if c % 2 else a[: len(a) // 2] + article(rng, 2) + a[len(a) // 2 :]
            recs.append(Record(id=f"a{i}-{c}", text=text))
    recs.append(Record(id="empty", text=""))
    cfg = DedupConfig(workers=1)
    return dedup_fingerprints(fingerprint_records(recs, cfg), cfg)


def _reference(result: Any) -> list[dict[str, Any]]:
    """The rows as the Evidence dataclass and one text_evidence call per pair give them."""
    c, sigs, cfg = result.clusters, result.fps.sigs, result.config
    out = []
    for node, row in enumerate(result.rows()):
        row = dict(row)
        p = int(c.partner[node])
        if p >= 0:
            ev = {"against": row["evidence"]["against"], **c.evidence(node, sigs, cfg).to_dict()}
            if "adds" in ev:
                t = text_evidence(
                    sigs.profile(node), sigs.profile(p), cfg.text_window_cjk, cfg.text_window_latin
                )
                t = [int(x) for x in t]
                ev.update(
                    chars=[t[2], t[3]],
                    quoted=[t[9], t[10]],
                    occasion=t[8] in (1, 2),
                    occasion_replaced=t[8] == 2,
                    reactions=t[8] == 3,
                    leads=[t[11], t[12]],
                    blocks=[t[13], t[14]],
                    pieces=[t[15], t[16]],
                    alike=t[17],
                    substitutions=t[5],
                    substituted=[t[18], t[19]],
                )
            row["evidence"] = ev
        out.append(row)
    return out


@pytest.mark.parametrize("block", [1, 3, 1 << 17])
def test_rows_equal_the_evidence_dataclass_and_each_pair_alone(
    block: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = _result()
    monkeypatch.setattr(rethreshold, "_ROWS_AT_ONCE", block)
    monkeypatch.setattr(local, "_ROW_BLOCK", max(1, block // 2))
    rows = list(decision_rows(result))
    assert sum("chars" in (r.get("evidence") or {}) for r in rows) >= 20
    assert [list(r) for r in rows] == [list(r) for r in _reference(result)]  # same keys, same order
    assert rows == _reference(result)

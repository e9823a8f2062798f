"""The plan's pair verification streams: a task holds ``VERIFY_ROWS`` pairs at a time (with both
documents' columns), whatever its partition holds, and links the same components as one
``link_pairs`` over every pair (no Spark session: the task is fed Arrow batches)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("pyspark")
pa = pytest.importorskip("pyarrow")

from neardup.dedup.config import DedupConfig  # noqa: E402
from neardup.match import components  # noqa: E402
from neardup.match.components import candidate_pairs, link_pairs, union_find  # noqa: E402
from neardup.match.signature import Signatures, signatures  # noqa: E402

NEWS = Path(__file__).resolve().parents[3] / "examples" / "news.jsonl"


@pytest.fixture(scope="module")
def batch() -> tuple[Signatures, Any, np.ndarray, np.ndarray]:
    """Reposts of the example news (near, partial, exact copies) as the executors' signature rows,
    and their candidate sketch pairs."""
    from neardup.dedup.index import profile_array
    from neardup.eval.synth import SynthConfig, synthesize

    originals = [
        json.loads(line)
        for line in NEWS.read_text(encoding="utf-8").splitlines()
        if re.fullmatch(r"(zh|en)-\d+", json.loads(line)["id"])
    ]
    docs: list[dict[str, Any]] = []
    for lang in ("zh", "en"):
        recs = [r for r in originals if r["id"].startswith(lang)]
        docs += synthesize(recs, SynthConfig(lang=lang, n_sources=40, seed=3, min_chars=100, copy_rate=0.9))[
            0
        ]
    sigs = signatures([d.get("text") or "" for d in docs])
    k, m = sigs.sketch.shape[1], sigs.numbers.shape[1]
    rows = pa.table(  # the columns of job.SIGNATURE_SCHEMA the plan joins to a pair
        {
            "exact": pa.array(sigs.exact.view(np.int64)),
            "content": pa.array(sigs.content.view(np.int64)),
            "simhash": pa.array(sigs.simhash.view(np.int64)),
            "layout": pa.array(sigs.layout.view(np.int64)),
            "has_layout": pa.array(sigs.has_layout, pa.bool_()),
            "size": pa.array(sigs.size.astype(np.int32)),
            "tokens": pa.array(sigs.tokens.astype(np.int32)),
            "sketch": pa.FixedSizeListArray.from_arrays(pa.array(sigs.sketch.ravel().view(np.int32)), k),
            "numbers": pa.FixedSizeListArray.from_arrays(pa.array(sigs.numbers.ravel().view(np.int64)), m),
            "profile": profile_array(sigs, pa.int32()),
        }
    )
    _, (sa, sb), _ = candidate_pairs(sigs, DedupConfig().match)
    assert sa.size > 100
    return sigs, rows, sa, sb


def _joined(
    sigs: Signatures, rows: Any, a: np.ndarray, b: np.ndarray, cols: tuple[str, ...], texts: bool
) -> Any:
    """The pairs joined with both sides' columns, as ``_verified_pairs`` hands them to the task."""
    out: dict[str, Any] = {"a": pa.array(a), "b": pa.array(b)}
    for s, idx in (("a", a), ("b", b)):
        side = rows.take(pa.array(idx))
        for c in cols:
            out[f"{s}_{c}"] = side.column(c)
        if texts:
            out[f"{s}_texts"] = pa.array(np.diff(sigs.prof_ptr)[idx] > 0)
    return pa.table(out)


def _run(task: Any, table: Any, size: int) -> tuple[np.ndarray, np.ndarray]:
    outs = list(task(iter(table.to_batches(max_chunksize=size))))
    a = np.concatenate([o.column(0).to_numpy() for o in outs]) if outs else np.empty(0, np.int64)
    b = np.concatenate([o.column(1).to_numpy() for o in outs]) if outs else np.empty(0, np.int64)
    return a, b


@pytest.mark.parametrize("nodes", [1 << 22, 40], ids=["nodes-kept", "nodes-cleared"])
def test_verification_holds_a_bounded_chunk_and_links_the_components_of_one_pass(
    batch: tuple[Signatures, Any, np.ndarray, np.ndarray], monkeypatch: pytest.MonkeyPatch, nodes: int
) -> None:
    from neardup.integrations.spark import plan

    sigs, rows, sa, sb = batch
    cfg = DedupConfig()
    n = len(sigs)
    monkeypatch.setattr(plan, "VERIFY_ROWS", 10)
    monkeypatch.setattr(plan, "VERIFY_NODES", nodes)  # 40: cleared every few chunks
    held: list[int] = []
    real = components.link_pairs

    def spy(s: Signatures, pairs: Any, *args: Any, **kwargs: Any) -> Any:
        held.append(len(pairs[0]))
        return real(s, pairs, *args, **kwargs)

    monkeypatch.setattr(components, "link_pairs", spy)
    # a partition in Spark's order (by the join's key), fed 3 pairs a batch
    order = np.lexsort((sa, sb))
    a, b = sa[order], sb[order]
    ga, gb = _run(plan._verify_task(cfg, full=False), _joined(sigs, rows, a, b, plan.GATE_COLUMNS, True), 3)
    fa, fb = _run(
        plan._verify_task(cfg, full=True),
        _joined(sigs, rows, ga, gb, (*plan.GATE_COLUMNS, "profile"), False),
        3,
    )
    assert held and max(held) < 10 + 3  # never the partition: at most VERIFY_ROWS and one batch
    assert len(held) > sa.size // 13
    monkeypatch.setattr(components, "link_pairs", real)
    want, _ = link_pairs(sigs, (sa, sb), cfg.match)
    assert fa.size < want.size or nodes == 40  # the chunks' union-find still skips linked documents
    np.testing.assert_array_equal(
        union_find(n, fa, fb), union_find(n, sa[want], sb[want])
    )  # the same components as one process verifying every pair

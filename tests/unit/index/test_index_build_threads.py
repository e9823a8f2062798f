"""Big segments build their tables on two threads: the same segment as the one-thread build."""

from __future__ import annotations

import numpy as np
import pytest

from neardup.index import HammingIndex, segments


@pytest.mark.parametrize("design", ["4x16", "16,12,12,12,12"])
def test_threaded_build_gives_the_same_columns_offsets_ids_and_answers(
    design: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = np.random.default_rng(5)
    fps = rng.integers(0, 2**63, size=20_000, dtype=np.int64).view(np.uint64) * np.uint64(2)
    fps[100:200] = fps[:100]  # equal fingerprints keep their input order in table 0
    ids = rng.permutation(20_000).astype(np.int64)
    built = {}
    for name, limit in (("one", 1 << 62), ("two", 1)):
        monkeypatch.setattr(segments, "PARALLEL_BUILD", limit)
        idx = HammingIndex(design=design)
        idx.add_many(ids, fps)
        built[name] = idx
    a, b = built["one"]._segments[0], built["two"]._segments[0]
    assert np.array_equal(a.hi, b.hi) and np.array_equal(a.lo, b.lo)
    assert np.array_equal(a.offsets, b.offsets)
    assert np.array_equal(a.ids, b.ids)
    q = fps[:500] ^ np.uint64(5)
    for x, y in zip(built["one"].query_many(q), built["two"].query_many(q), strict=True):
        assert np.array_equal(x, y)

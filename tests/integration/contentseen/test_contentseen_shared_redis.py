"""Two ContentSeen instances (two services, two crawler hosts) sharing their key maps in a real Redis."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from neardup.contentseen import ContentSeen
from neardup.contentseen.synth import render_page

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "unit" / "contentseen"))
from _cs_articles import HARVEST, RAILWAY, RIVER

pytestmark = pytest.mark.redis


def test_contentseen_shared_redis_keys_catch_other_instances_pages(redis_url: str, tmp_path: Path) -> None:
    store = f"{redis_url}?prefix=cs-test"
    a = ContentSeen(tmp_path / "a", nshash_store=store)
    b = ContentSeen(tmp_path / "b", nshash_store=store)
    va = a.check("https://origin/river", html=render_page(*RIVER, template="portal"))
    assert va.kind == "new"
    vb = b.check("https://mirror/river", html=render_page(*RIVER, template="portal"))
    assert (vb.kind, vb.duplicate_of) == ("exact", va.doc_id)
    vc = b.check("https://blog/river", html=render_page(*RIVER, template="blog"))
    assert (vc.kind, vc.duplicate_of) == ("content", va.doc_id)
    mixed = HARVEST[1][:4] + RIVER[1][:3]
    vd = b.check("https://other/mixed", html=render_page("x", mixed, template="repost"))
    assert (vd.kind, vd.duplicate_of) == ("partial", va.doc_id)
    # document ids come from one counter in Redis: unique across instances
    ve = a.check("https://origin/rail", html=render_page(*RAILWAY, template="portal"))
    ids = [v.doc_id for v in (va, vb, vc, vd, ve)]
    assert len(set(ids)) == 5
    a.close()
    b.close()
    # reopened, each keeps its own journal; the shared keys are still in Redis
    with ContentSeen(tmp_path / "b", nshash_store=store) as again:
        assert len(again) == 3
        v = again.check("https://third/rail", html=render_page(*RAILWAY, template="minimal"), add=False)
        assert (v.kind, v.duplicate_of) == ("content", ve.doc_id)

"""Verdict kinds on constructed page pairs: new, exact, content, near, layout, partial."""

from __future__ import annotations

import dataclasses
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from _cs_articles import HARVEST, RAILWAY, RIVER, page

from neardup.contentseen import ContentSeen, Verdict
from neardup.exceptions import ConfigError, InputError, StoreError
from neardup.fingerprint.simhash import hamming


@pytest.fixture
def cs() -> ContentSeen:
    seen = ContentSeen("memory://")
    assert seen.check("https://origin.example/river", html=page(RIVER)).kind == "new"
    return seen


def test_contentseen_same_page_again_is_exact(cs: ContentSeen) -> None:
    v = cs.check("https://mirror.example/river", html=page(RIVER).replace("><", ">\n  <"))
    assert (v.kind, v.duplicate_of, v.distance) == ("exact", 1, 0)
    assert v.duplicate_url == "https://origin.example/river"
    assert v.is_duplicate and "same page" in v.reasons["why"]


def test_contentseen_same_text_other_template_is_content(cs: ContentSeen) -> None:
    for i, template in enumerate(("blog", "minimal")):
        v = cs.check(f"https://m{i}.example/", html=page(RIVER, template, seed=i + 1))
        assert (v.kind, v.duplicate_of, v.distance) == ("content", 1, 0)
        assert v.reasons["shared_sentences"]
    # the repost site's note (本文转载自网络，如有侵权请联系删除) is a credit line, read past: the same text
    v = cs.check("https://repost.example/", html=page(RIVER, "repost", seed=9))
    assert v.kind in ("content", "near") and v.duplicate_of == 1


def test_contentseen_same_template_other_ads_is_content_not_exact(cs: ContentSeen) -> None:
    v = cs.check("https://origin.example/river?ref=2", html=page(RIVER, seed=99))
    assert v.kind == "content"
    assert v.layout_distance is not None and v.layout_distance <= 3


def test_contentseen_small_edit_is_near(cs: ContentSeen) -> None:
    _title, body = RIVER
    edited = [
        body[0].replace("今年以来，", "今年以来, "),
        *body[1:-1],
        body[-1].replace("专家表示", "专家认为"),
    ]
    v = cs.check("https://repost.example/river", html=page(RIVER, "blog", paras=edited))
    assert v.kind == "near"
    assert v.duplicate_of == 1
    assert "similarity" in v.reasons["why"] and v.reasons["similarity"] >= 0.9
    assert v.reasons["number_conflicts"] == 0
    assert v.reasons["shared_sentences"]


def test_contentseen_shared_sentences_same_template_is_layout(cs: ContentSeen) -> None:
    # half of another article and three of the river article's longest sentences, same site template
    mixed = HARVEST[1][:4] + RIVER[1][:3]
    v = cs.check("https://origin.example/mixed", html=page(("秋粮", mixed), "portal", seed=5))
    assert v.kind == "layout" and not v.is_duplicate
    assert v.duplicate_of == 1 and v.similar_id == 1 and v.reasons["related_to"] == 1
    assert (v.partner, v.partner_url) == (1, "https://origin.example/river")
    assert v.layout_distance is not None and v.layout_distance <= cs.match.layout_distance
    assert len(v.reasons["shared_sentences"]) >= 2
    assert set(v.reasons["shared_sentences"]) <= set(RIVER[1])


def test_contentseen_shared_sentences_other_template_is_partial(cs: ContentSeen) -> None:
    mixed = HARVEST[1][:4] + RIVER[1][:3]
    v = cs.check("https://other.example/mixed", html=page(("秋粮", mixed), "repost", seed=5))
    assert v.kind == "partial" and not v.is_duplicate
    assert v.duplicate_of == 1
    assert v.layout_distance is not None and v.layout_distance > cs.match.layout_distance
    assert "another template" in v.reasons["why"]


def test_contentseen_other_article_is_new(cs: ContentSeen) -> None:
    v = cs.check("https://origin.example/rail", html=page(RAILWAY))
    assert (v.kind, v.duplicate_of, v.doc_id) == ("new", None, 2)
    assert v.reasons == {}


def test_contentseen_duplicate_of_is_first_document_of_group(cs: ContentSeen) -> None:
    _title, body = RIVER
    near = [body[0].replace("今年以来，", "今年以来, "), *body[1:]]
    assert cs.check("https://b.example/", html=page(RIVER, "blog", paras=near)).duplicate_of == 1
    # a copy of the near-duplicate: exact of doc 2, reported as a duplicate of doc 1
    v = cs.check("https://c.example/", html=page(RIVER, "blog", paras=near))
    assert (v.kind, v.duplicate_of) == ("exact", 1)
    group = cs.duplicates(1)
    assert [d["doc_id"] for d in group["duplicates"]] == [2, 3]
    assert cs.duplicates("3")["cluster"] == 1


def test_a_copy_of_a_clusters_second_page_gives_the_url_of_the_page_its_reason_names() -> None:
    # docs/contentseen.md's quick start: a page, its mirror in another template, a copy of the mirror
    pages = [
        ("https://example.com/a", page(RIVER)),
        ("https://mirror.example/b", page(RIVER, "blog")),
        ("https://mirror.example/c", page(RIVER, "blog")),
    ]
    with ContentSeen("memory://") as cs:
        new, mirror, copy = [cs.check(url, html=html) for url, html in pages]
    assert (new.partner, new.partner_url) == (None, None)
    assert (mirror.kind, mirror.partner, mirror.partner_url) == ("content", 1, "https://example.com/a")
    # the copy joins the first page's cluster, but its evidence is about the mirror, the same page
    assert (copy.kind, copy.duplicate_of, copy.duplicate_url) == ("exact", 1, "https://example.com/a")
    assert (copy.partner, copy.partner_url) == (2, "https://mirror.example/b")
    assert copy.reasons["why"] == "the same page (whitespace aside) as document 2"
    assert copy.to_dict()["partner_url"] == "https://mirror.example/b"


def test_contentseen_text_input_without_html(cs: ContentSeen) -> None:
    text = "\n".join(RAILWAY[1])
    assert cs.check("t1", text=text).kind == "new"
    assert cs.check("t2", text=text).kind == "exact"
    assert cs.check("t3", text=text.replace("\n", "\n\n  ")).kind == "exact"  # whitespace aside
    v = cs.check("t3b", text=text.replace("，", ","))  # width variants: the same tokens
    assert (v.kind, v.distance) == ("content", 0)
    v = cs.check("t4", text="\n".join([*RIVER[1][:3], *HARVEST[1][:3]]))
    assert v.kind == "partial"  # no HTML: no template to compare
    assert v.layout_distance is None


def test_contentseen_html_bytes_are_decoded(cs: ContentSeen) -> None:
    assert cs.check("bytes", html=page(RIVER).encode("utf-8")).kind == "exact"
    gbk = (
        page(RAILWAY)
        .replace('<meta charset="utf-8">', '<meta charset="gbk">')
        .encode("gbk", "xmlcharrefreplace")
    )
    assert cs.check("gbk", html=gbk).kind == "new"
    assert cs.check("utf8", html=page(RAILWAY, "blog")).kind == "content"


def test_contentseen_add_false_only_asks(cs: ContentSeen) -> None:
    before = len(cs)
    for _ in range(2):
        v = cs.check("https://x.example/rail", html=page(RAILWAY), add=False)
        assert (v.kind, v.doc_id) == ("new", None)
    assert len(cs) == before
    assert cs.check("https://x.example/river", html=page(RIVER, "blog"), add=False).kind == "content"
    assert len(cs) == before and cs.stats()["checks"] == 4


def test_contentseen_verdict_round_trips_through_dict(cs: ContentSeen) -> None:
    v = cs.check("https://m.example/", html=page(RIVER, "blog"))
    d = v.to_dict()
    assert d["is_duplicate"] is True and d["kind"] == "content"
    assert Verdict.from_dict(d) == v
    assert d == {**dataclasses.asdict(v), "is_duplicate": True}  # every field, nothing else


def test_contentseen_checks_from_threads_get_unique_ids() -> None:
    cs = ContentSeen("memory://")
    articles = [RIVER, HARVEST, RAILWAY]
    results: list[Verdict] = []
    lock = threading.Lock()

    def work(t: int) -> None:
        for i in range(6):
            v = cs.check(f"https://{t}.example/{i}", html=page(articles[i % 3], "portal", seed=t * 10 + i))
            with lock:
                results.append(v)

    with ThreadPoolExecutor(4) as pool:
        list(pool.map(work, range(4)))
    ids = [v.doc_id for v in results]
    assert len(set(ids)) == len(ids) == 24
    assert sum(v.kind == "new" for v in results) == 3


def test_contentseen_rejects_bad_arguments() -> None:
    with pytest.raises(ConfigError, match="max_distance"):
        ContentSeen("memory://", max_distance=16)
    with pytest.raises(ConfigError, match="nshash_n"):
        ContentSeen("memory://", nshash_n=3)
    with pytest.raises(ConfigError, match="extractor"):
        ContentSeen("memory://", extractor="magic")
    with pytest.raises(ConfigError, match="nshash_store"):
        ContentSeen("redis://localhost:6379/0")
    cs = ContentSeen("memory://")
    with pytest.raises(InputError, match="neither"):
        cs.check("u")
    with pytest.raises(InputError, match="url"):
        cs.check(None, text="x")  # type: ignore[arg-type]
    cs.close()
    with pytest.raises(StoreError, match="closed"):
        cs.check("u", text="x")


def test_contentseen_state_dir_restart_gives_same_answers(tmp_path: Path) -> None:
    state = tmp_path / "cs"
    probes = [
        page(RIVER),
        page(RIVER, "blog"),
        page(("秋粮", HARVEST[1][:4] + RIVER[1][:3]), "repost"),
        page(RAILWAY),
        page(HARVEST, "minimal"),
    ]
    with ContentSeen(state) as cs:
        cs.check("a", html=page(RIVER))
        cs.check("b", html=page(HARVEST))
        before = [cs.check("p", html=h, add=False) for h in probes]
    assert (state / "index.hx").exists()
    with ContentSeen(state) as cs:
        assert len(cs) == 2
        assert cs.stats()["indexed"] == 2  # the engine rebuilt from the journal, each page once
        after = [cs.check("p", html=h, add=False) for h in probes]
        assert cs.check("c", html=page(RAILWAY)).doc_id == 3  # ids continue
    assert [(v.kind, v.duplicate_of, v.distance) for v in after] == [
        (v.kind, v.duplicate_of, v.distance) for v in before
    ]
    assert [v.kind for v in after] == ["exact", "content", "partial", "new", "content"]


def test_contentseen_acknowledged_pages_survive_without_close(tmp_path: Path) -> None:
    state = tmp_path / "cs"
    cs = ContentSeen(state)
    assert cs.check("a", html=page(RIVER)).kind == "new"
    assert cs.check("b", html=page(HARVEST)).kind == "new"
    # the process "dies": no flush, no close; only the journal is left
    cs._closed = True
    assert cs._state.dir is not None
    cs._state.dir.close()  # releases the journal and the lock, flushes nothing
    with (state / "docs.wal").open("ab") as fh:
        fh.write(b'{"i": 3, "u": "torn')  # a write that never completed
    with ContentSeen(state) as again:
        assert len(again) == 2
        assert again.check("c", html=page(HARVEST, "blog"), add=False).kind == "content"
        assert again.check("d", html=page(RAILWAY)).doc_id == 3
    with ContentSeen(state) as third:
        assert len(third) == 3


def test_contentseen_state_refuses_other_settings_and_second_opener(tmp_path: Path) -> None:
    state = tmp_path / "cs"
    cs = ContentSeen(state)
    with pytest.raises(StoreError, match="another process"):
        ContentSeen(state)
    cs.close()
    with pytest.raises(ConfigError, match="extractor"):
        ContentSeen(state, extractor="trafilatura")


def test_contentseen_layout_signature_separates_templates() -> None:
    from neardup.contentseen.extract import layout_signature

    sig = {
        t: [layout_signature(page(a, t, seed=i)) for i, a in enumerate((RIVER, HARVEST, RAILWAY))]
        for t in ("portal", "blog", "repost", "minimal")
    }
    for t, sigs in sig.items():
        assert max(hamming(sigs[0], s) for s in sigs) <= 3, t
        for u, others in sig.items():
            if u != t:
                assert hamming(sigs[0], others[0]) > 10, (t, u)


def test_contentseen_page_without_main_text_is_only_compared_exactly() -> None:
    cs = ContentSeen("memory://")
    empty_a = page(("图片", []), "portal", seed=1)
    empty_b = page(("视频", []), "blog", seed=2)
    assert cs.check("a", html=empty_a).kind == "new"
    assert cs.check("a2", html=empty_a).kind == "exact"
    assert cs.check("b", html=empty_b).kind == "new"  # no text: never content/near/partial
    assert cs.stats()["kinds"] == {"new": 2, "exact": 1}

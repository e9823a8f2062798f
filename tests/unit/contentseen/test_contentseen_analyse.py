"""analyse + check_analysed (the split the service runs across processes) give check's verdicts."""

from __future__ import annotations

import pickle
import subprocess
import sys
from functools import partial
from pathlib import Path

import pytest
from _cs_articles import HARVEST, RAILWAY, RELATED, RIVER, page

from neardup.contentseen import ContentSeen, PageAnalysis
from neardup.exceptions import ConfigError, InputError
from neardup.match import MatchConfig

_page = partial(page, related=RELATED[:4])  # a template with four related links


def _stream() -> list[dict[str, object]]:
    """Pages that between them give every kind of verdict."""
    _t, body = RIVER
    near = [body[0].replace("稳步提升", "持续提升", 1), *body[1:]]
    mixed = [*RIVER[1][:3], *HARVEST[1][3:]]
    return [
        {"url": "https://o.example/river", "html": _page(RIVER)},
        {"url": "https://m.example/river", "html": _page(RIVER).replace("><", ">\n<")},  # exact
        {"url": "https://b.example/river", "html": _page(RIVER, "blog", seed=1)},  # content
        {"url": "https://n.example/river", "html": _page(RIVER, "blog", paras=near)},  # near
        {"url": "https://o.example/harvest", "html": _page(HARVEST)},
        {"url": "https://o.example/mixed", "html": _page(("秋粮", mixed), "portal", seed=5)},  # layout
        {"url": "https://r.example/mixed", "html": _page(("秋粮", mixed), "repost", seed=5)},  # content
        {
            "url": "https://r.example/rail-harvest",
            "html": _page(("铁路", [*RAILWAY[1][:3], *HARVEST[1][:2]]), "repost"),
        },
        {"url": "https://o.example/rail", "html": _page(RAILWAY)},
        {"url": "https://t.example/rail", "text": "\n".join(RAILWAY[1])},  # text only
        {"url": "https://x.example/ask", "html": _page(RAILWAY, "minimal"), "add": False},
    ]


def test_analysed_checks_give_the_same_verdicts_as_check() -> None:
    direct, split, worker = (
        ContentSeen(),
        ContentSeen(),
        ContentSeen(None, **ContentSeen().analyser_settings()),
    )
    kinds = []
    for req in _stream():
        add = bool(req.get("add", True))
        html, text = req.get("html"), req.get("text")
        a = direct.check(str(req["url"]), html=html, text=text, add=add)  # type: ignore[arg-type]
        # the analysis crosses a process boundary in the service: pickle it like a pool would
        analysis = pickle.loads(pickle.dumps(worker.analyse(html=html, text=text)))  # type: ignore[arg-type]
        b = split.check_analysed(str(req["url"]), analysis, add=add)
        assert a == b, req["url"]
        kinds.append(a.kind)
    assert set(kinds) == {"new", "exact", "content", "near", "layout", "partial"}


def test_analysis_of_other_settings_is_refused() -> None:
    fives = ContentSeen()
    fours = ContentSeen(match=MatchConfig(shingle=4))
    with pytest.raises(ConfigError, match="other signature settings"):
        fives.check_analysed("https://a.example/", fours.analyse(html=_page(RIVER)))
    with pytest.raises(InputError, match="PageAnalysis"):
        fives.check_analysed("https://a.example/", PageAnalysis(raw=1))
    with pytest.raises(InputError, match="html or its text"):
        fives.analyse()


def test_check_analysed_leaves_the_callers_analysis_alone() -> None:
    cs = ContentSeen()
    cs.check("https://o.example/", html=_page(RIVER))
    analysis = cs.analyse(html=_page(RAILWAY))
    before = pickle.dumps(analysis)
    cs.check_analysed("https://a.example/", analysis)
    assert cs.check_analysed("https://b.example/", analysis).kind == "exact"
    assert pickle.dumps(analysis) == before


def test_unsynced_adds_are_durable_after_sync(tmp_path: Path) -> None:
    # a process adds three pages with sync=False, syncs, and dies without closing anything
    script = f"""
import os, sys
sys.path.insert(0, {str(Path(__file__).parent)!r})
from test_contentseen_analyse import RIVER, HARVEST, RAILWAY, _page
from neardup.contentseen import ContentSeen
cs = ContentSeen({str(tmp_path / "cs")!r})
for i, art in enumerate((RIVER, HARVEST, RAILWAY)):
    assert cs.check_analysed(f"https://o.example/{{i}}", cs.analyse(html=_page(art)), sync=False).kind == "new"
cs.sync()
os._exit(0)
"""
    subprocess.run([sys.executable, "-c", script], check=True, timeout=120)
    with ContentSeen(tmp_path / "cs") as again:
        assert len(again) == 3
        assert again.check("https://m.example/", html=_page(HARVEST, "blog"), add=False).duplicate_of == 2


def test_empty_html_probes_the_exact_key_it_records() -> None:
    from neardup.match import Signatures

    text = "".join(RIVER[1])
    cs = ContentSeen("memory://")
    for html in ("", b""):
        a = cs.analyse(html=html, text=text)
        assert a.raw == int(Signatures.from_row_bytes(a.sig, cs.match).exact[0])
    cs.check("https://a.example/1", html="", text=text)
    assert cs.check("https://b.example/1", html="", text=text).kind == "exact"
    cs.close()

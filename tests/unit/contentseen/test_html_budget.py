"""The HTML budget is counted by the parsers, so no way of writing a page escapes it, and a page
over it is refused before the costly step (each hostile form below took seconds to minutes)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from neardup.contentseen.budget import HtmlBudget, budget_scope, check_html, parse_html
from neardup.contentseen.extract import extract_main_text
from neardup.exceptions import ConfigError, InputError

pytest.importorskip("resiliparse")
pytest.importorskip("lxml")

ARTICLE = "长江是中华民族的母亲河，也是中华民族发展的重要支撑。今天发布的规划说明了治理的重点。" * 3
HOSTILE = {
    # a separate depth scanner took these for flat pages; HTML parsers nest them
    "self-closed divs": "<html><body>" + "<div/>" * 150_000 + ARTICLE + "</body></html>",
    "self-closed divs within the element count": "<html><body>" + "<div/>" * 90_000 + ARTICLE,
    "a leading empty comment": "<!-->" + "<div>" * 40_000 + ARTICLE + "</div>" * 40_000,
    "stray end tags": "<html><body>" + "<div></xq>" * 40_000 + ARTICLE + "</body></html>",
    # lexbor checks each attribute against the element's others: minutes to parse
    "100,000 attributes": "<div " + " ".join(f"a{i}=x" for i in range(100_000)) + ">" + ARTICLE + "</div>",
    "attributes after deep nesting": "<div>" * 200 + "<p " + " ".join(f"b{i}" for i in range(5000)) + ">",
    "attributes behind quotes holding brackets": '<!-- <p x="--> <div '
    + " ".join(f'a{i}="<>"' for i in range(20_000))
    + ">"
    + ARTICLE,
}


@pytest.mark.parametrize("name", list(HOSTILE))
def test_each_hostile_form_is_refused_by_the_budget(name: str) -> None:
    with pytest.raises(InputError, match="refused"):
        extract_main_text(HOSTILE[name])


def test_the_budget_applies_to_every_extractor() -> None:
    pytest.importorskip("trafilatura")
    with pytest.raises(InputError, match="levels deep"):
        extract_main_text(HOSTILE["a leading empty comment"], "trafilatura")


def test_real_pages_pass_and_limits_are_counted_on_the_tree() -> None:
    page = "<html><body>" + ("<div class='a b' id=x><p>" + ARTICLE + "</p></div>") * 500 + "</body></html>"
    assert "长江" in extract_main_text(page)
    nested = "<html><body>" + "<div>" * 40 + ARTICLE + "</div>" * 40 + "</body></html>"
    check_html(nested, HtmlBudget(max_depth=42))  # html > body > 40 divs
    with pytest.raises(InputError, match="over 41 levels"):
        check_html(nested, HtmlBudget(max_depth=41))
    with pytest.raises(InputError, match="elements"):
        check_html(page, HtmlBudget(max_elements=400))
    with pytest.raises(InputError, match="attributes"):
        check_html("<p a b c d>x</p>", HtmlBudget(max_attributes=3))
    assert parse_html("plain text, no tags").body is not None
    # stray end tags are cheap for lexbor; the tokenizer pass bounds its own stack (libxml2 looks
    # each one up there), so this page costs a second, not minutes, and is read
    strays = "<body>" + "<div>" * 250 + "</xq>" * 300_000 + "<p>" + ARTICLE
    assert "长江" in extract_main_text(strays)
    with budget_scope(HtmlBudget(max_depth=0, max_elements=0, max_attributes=0)):
        assert "长江" in extract_main_text("<!-->" + "<div>" * 600 + "<p>" + ARTICLE)


def test_budget_settings_are_checked() -> None:
    with pytest.raises(ConfigError, match="max_depth"):
        HtmlBudget(max_depth=-1)


def test_dedup_over_a_page_past_the_budget_says_why_in_one_line(tmp_path: Path) -> None:
    from neardup_testing import run_cli

    good = "<html><body><p>" + ARTICLE + "</p></body></html>"
    records = [
        {"id": "a", "html": good},
        {"id": "evil", "html": HOSTILE["100,000 attributes"]},
        {"id": "c", "html": good.replace("。", "！", 1)},
    ]
    (tmp_path / "pages.jsonl").write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    r = run_cli(["dedup", "pages.jsonl", "--workers", "1", "-o", "out.jsonl"], tmp_path, env=env)
    assert r.returncode == 2, r.stderr
    assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "100000 attributes" in r.stderr


def test_a_page_with_lone_surrogates_is_read_with_replacement_characters() -> None:
    """Text decoded with errors="surrogateescape" holds lone surrogates, which the parsers refuse
    to encode: they are read as U+FFFD, as a browser shows bytes it cannot decode."""
    page = "<html><body><p>\udcff 今天天气很好，我们去公园散步，看到了很多花。</p></body></html>"
    assert "今天天气很好" in extract_main_text(page)

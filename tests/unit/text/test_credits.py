"""strip_credits: a site's credit lines around an article are read past, the article is not."""

from __future__ import annotations

import pytest

from neardup.match import MatchConfig, compare_texts
from neardup.text.credits import strip_credits

BODY_ZH = (
    "国务院新闻办公室今天举行发布会，介绍今年一季度国民经济运行情况。国家统计局新闻发言人表示，"
    "一季度国内生产总值同比增长百分之五点三，比上年四季度加快零点一个百分点，经济运行开局良好。\n"
    "从需求看，社会消费品零售总额增长百分之四点七，服务零售额增长较快；固定资产投资增长百分之四点五，"
    "其中制造业投资增长百分之九点九。从供给看，规模以上工业增加值增长百分之六点一。\n"
    "发言人说，下阶段要加大宏观政策实施力度，着力扩大国内需求，推动经济持续回升向好。"
)
BODY_EN = (
    "The Bank of England has held interest rates at 4.75% for the third month running, as policymakers\n"
    "weighed signs of a slowing economy against inflation that remains above its target.\n"
    "The decision by the Monetary Policy Committee was widely expected by economists and markets.\n"
    "The governor said the committee would watch wage growth closely before deciding its next move."
)


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("来源：中国新闻网\n" + BODY_ZH + "\n责任编辑：赵磊\n分享到：微信 微博 QQ空间", BODY_ZH),
        (
            "快讯：一季度经济开局良好｜今日头条\n稿源：央视网\n" + BODY_ZH + "\n编辑：张伟\u3000审核：刘洋",
            BODY_ZH,
        ),
        ("Source: Reuters\n" + BODY_EN + "\n(Reporting by Sam Lee; editing by Alex Brown)", BODY_EN),
        ("Rates held again | News Daily\n" + BODY_EN + "\nComments are closed.", BODY_EN),
        (BODY_ZH, BODY_ZH),
        (BODY_EN, BODY_EN),
        ("", ""),
        ("来源：新华社", "来源：新华社"),  # one line: nothing around an article
    ],
)
def test_credit_lines_around_the_article_are_dropped(text: str, want: str) -> None:
    assert strip_credits(text) == want


def test_the_article_between_its_first_and_last_lines_is_never_touched() -> None:
    middle = "\n".join(
        [
            "第一段。",
            "第二段。",
            "第三段。",
            "来源：这一行在正文中间。",
            "第五段。",
            "第六段。",
            "第七段。",
            "第八段。",
            "第九段。",
        ]
    )
    assert strip_credits(middle) == middle


def test_a_long_line_that_starts_like_a_credit_is_the_articles() -> None:
    text = "Source: " + "a long paragraph of the article itself " * 10 + "\nSecond line."
    assert strip_credits(text) == text


def test_a_repost_with_a_sites_lines_is_a_near_copy_of_its_source() -> None:
    repost = (
        "国务院新闻办公室举行发布会｜今日头条\n本文来源：央视网\n"
        + BODY_ZH
        + "\n责任编辑：陈晨\n扫一扫在手机打开当前页"
    )
    assert compare_texts(BODY_ZH, repost, MatchConfig()).kind in ("content", "near")
    wire = (
        "Source: Reuters\n"
        + BODY_EN
        + "\nReporting by Sam Taylor; editing by Alex Brown\nComments are closed."
    )
    assert compare_texts(BODY_EN, wire, MatchConfig()).kind in ("content", "near")


def test_a_portals_footer_longer_than_the_window_and_reading_links_anywhere_are_dropped() -> None:
    footer = [
        "想了解更多精彩内容，快来关注我们吧！",
        "（此处已添加小程序，请到客户端查看）",
        "本文转载自网络，如有侵权请联系删除。",
        "版权声明：本网站所刊载信息，不代表本站观点。如转载请注明出处。",
        "",
        "打开APP，阅读更多精彩内容",
        "免责声明：本文仅代表作者观点，与本站无关。",
    ]
    paragraphs = BODY_ZH.split("\n")
    page = "\n".join([paragraphs[0], "相关阅读：另一篇文章的标题", *paragraphs[1:], *footer])
    assert strip_credits(page).rstrip("\n") == BODY_ZH  # blank lines between are left
    # a line in the middle that only starts like a credit is the article's
    body = BODY_ZH + "\n来源：这一行在正文中间。\n" + BODY_ZH
    assert strip_credits(body + "\n" + "\n".join(footer)).rstrip("\n") == body
    # so the repost carrying them is the same document
    assert compare_texts(BODY_ZH, page, MatchConfig()).kind in ("content", "near")


def test_a_reading_link_run_on_after_a_paragraph_goes_and_a_quoted_one_stays() -> None:
    paragraphs = BODY_ZH.split("\n")
    flattened = [paragraphs[0] + "相关阅读：另一篇文章的标题", *paragraphs[1:]]
    assert strip_credits("\n".join(flattened)) == BODY_ZH
    assert strip_credits(paragraphs[0] + "【延伸阅读】另一篇文章的标题") == paragraphs[0]
    # inside a sentence, or inside quotation marks, it is the article's words
    for line in (
        "他说相关阅读：材料很多。",
        "他说：“延伸阅读：不是链接”是一句话。",
        "相关阅读：一行就是全文",
    ):
        assert strip_credits(line) == line


def test_prompts_and_reading_links_in_english_go_wherever_they_stand() -> None:
    paragraphs = BODY_EN.split("\n")
    page = "\n".join(
        [
            "Original title: Rates held again",
            paragraphs[0],
            "Related: Pound falls after the decision",
            paragraphs[1] + " Follow us on Twitter and Facebook for the latest updates.",
            "Advertisement",
            paragraphs[2] + " Read more: What the decision means for mortgages",
            "Sign up for our morning newsletter to get the day's top stories.",
            paragraphs[3],
        ]
    )
    assert strip_credits(page) == BODY_EN
    # words that only look like a prompt are the article's
    for line in (
        "Related to this, the governor said the committee was divided.",
        "The related decision to follow us into recession was not taken.",
        'The banner over the stage read "Click here to win" in red letters.',
    ):
        assert strip_credits(BODY_EN + "\n" + line + "\n" + BODY_EN) == BODY_EN + "\n" + line + "\n" + BODY_EN
    assert strip_credits("Click here to subscribe") == "Click here to subscribe"  # one line: the text
    assert (
        strip_credits('He said "we will hold rates." Read more: Rates explained')
        == 'He said "we will hold rates."'
    )
    # so a repost carrying them, with sentences of the original dropped, is its contained copy
    original = (
        BODY_EN + "\nEconomists had expected the decision after last month's figures showed prices rising."
    )
    assert compare_texts(original, page, MatchConfig()).kind in ("near", "contained", "content")


def test_related_news_links_go_anywhere_and_at_the_end() -> None:
    paragraphs = BODY_ZH.split("\n")
    page = "\n".join([paragraphs[0], "相关新闻：另一篇文章的标题", *paragraphs[1:], "相关链接："])
    assert strip_credits(page) == BODY_ZH


def test_a_chinese_prompt_run_on_after_a_paragraph_goes() -> None:
    paragraphs = BODY_ZH.split("\n")
    page = "\n".join(
        [
            paragraphs[0] + "点击关注，获取更多权威资讯。",
            "欢迎下载新闻客户端，第一时间获取最新消息。",
            *paragraphs[1:],
        ]
    )
    assert strip_credits(page) == BODY_ZH


def test_a_replys_attribution_line_goes_only_before_the_lines_it_quotes() -> None:
    head = "In article <C4z.Ftn@watserv1.example.edu>, bryan@example.edu (Bryan S) writes:\n"
    quoted = "> I was thinking about who on each team was the MVP.\n> Anyway...\n"
    assert strip_credits(head + quoted) == quoted
    # an empty reply (its attribution and the quoted message) is the message's copy
    parent = "I was thinking about who on each team was the MVP.\nAnyway...\n"
    assert compare_texts(parent, head + quoted).kind in ("exact", "content")
    # not before lines quoted another way, nor a line that merely says someone writes
    other = head + ": I was thinking about it.\n"
    assert strip_credits(other) == other
    said = "In article <x> he writes: that is wrong.\n> quoted\n"
    assert strip_credits(said) == said

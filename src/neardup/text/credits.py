"""Credit lines a repost's site adds around an article: read past before the text is signed.

A portal that reposts a story puts its own lines around it: where it came from (``来源：新华社``,
``Source: Reuters``), who edited it (``责任编辑：张伟``, ``(Reporting by ...; editing by ...)``), share
and "read more" links, a title line carrying the site's name (``...｜今日头条``). A reader comparing
two copies skips them: they are the site's, not the article's. ``strip_credits`` drops such lines
from the first ``HEAD_LINES`` and the last ``TAIL_LINES`` lines of a text (where sites put them),
so the match engine measures what each copy adds without them; the text in between is never
touched, so a line that merely starts like a credit inside an article stays.

>>> strip_credits("来源：中国新闻网\\n\\n国务院常务会议今天召开。\\n\\n责任编辑：赵磊\\n分享到：微信 微博")
'\\n国务院常务会议今天召开。\\n'
>>> strip_credits("Source: Reuters\\nThe bank held rates.\\n(Reporting by Sam Lee; editing by Alex Brown)")
'The bank held rates.'
>>> strip_credits("No credits here.\\nJust text.")
'No credits here.\\nJust text.'
"""

from __future__ import annotations

import re

__all__ = ["HEAD_LINES", "TAIL_LINES", "strip_credits"]

#: lines at the start and at the end of a text that may be credits
HEAD_LINES = 3
TAIL_LINES = 5
# a credit line is short: a longer line is the article's
_LONGEST = 160
_TITLE_LONGEST = 100

_CREDIT = (
    # Chinese: source, editor, reviewer, author and photo credits, share and read-more links
    r"(?:(?:本文|文章|消息|新闻|稿件|图片|视频|内容)?来源|稿源|(?:责任|值班|实习)?编辑|责编|审核|校对|作者|记者"
    r"|摄影|通讯员|监制|主编|原标题)[ \t]*[:：]"
    r"|[（(][ \t]*(?:责任编辑|编辑|来源)[ \t]*[:：][^）)\n]*[）)][ \t]*$"
    r"|分享到|扫一扫|阅读(?:更多|原文|全文)|点击(?:查看|阅读|进入)|【?(?:延伸阅读|相关阅读|推荐阅读|相关新闻|相关链接)】"
    # English: source and wire credits, comment and advertisement notices, share and follow links
    r"|(?i:(?:source|sources|credit|photo|image|via)[ \t]*:"
    r"|\(?-?[ \t]*(?:additional )?(?:reporting|writing|editing|edited|written|compiled|produced) by\b"
    r"|comments are closed|story continues below|disclaimer[ \t]*:|share this|read more\b|follow us\b"
    r"|copyright\b|all rights reserved|advertisement[ \t]*$|click here\b)"
)
_SPACES = " \t\u3000"
_LINE = re.compile("[" + _SPACES + "]*(?:" + _CREDIT + ")", re.MULTILINE)
# what a credit line starts with (after spaces, lowercased): most lines cost this one test
_PREFIXES = tuple(
    [
        "本文",
        "文章",
        "消息",
        "新闻",
        "稿件",
        "图片",
        "视频",
        "内容",
        "来源",
        "稿源",
        "责任",
        "值班",
        "实习",
        "编辑",
        "责编",
        "审核",
        "校对",
        "作者",
        "记者",
        "摄影",
        "通讯员",
        "监制",
        "主编",
        "原标题",
        "分享到",
        "扫一扫",
        "阅读",
        "点击",
        "【",
        "延伸阅读",
        "相关阅读",
        "推荐阅读",
        "相关新闻",
        "相关链接",
        "（",
        "(",
        "-",
        "source",
        "credit",
        "photo",
        "image",
        "via",
        "reporting",
        "writing",
        "editing",
        "edited",
        "written",
        "compiled",
        "produced",
        "additional",
        "comments",
        "story",
        "disclaimer",
        "share",
        "read",
        "follow",
        "copyright",
        "all",
        "advertisement",
        "click",
    ]
)
# a title line ending in the site's name: "标题｜今日头条", "Title | News Daily", "标题_凤凰网资讯"
_TITLE_SITE = re.compile(r"(?:[｜|]|_| - )[ \t]*[^｜|_\n]{1,16}[ \t\u3000]*$")


def _is_credit(line: str) -> bool:
    return (
        len(line) <= _LONGEST
        and line.lstrip(_SPACES)[:12].lower().startswith(_PREFIXES)
        and _LINE.match(line) is not None
    )


def strip_credits(text: str) -> str:
    """``text`` without the credit lines among its first and last lines (see the module)."""
    last = text.count("\n")  # the index of the last line
    if last == 0:
        return text
    if last < HEAD_LINES + TAIL_LINES:
        lines = text.split("\n")
        candidates = list(enumerate(lines))
    else:  # the first and last lines, found without splitting the whole text
        lines = []
        candidates = []
        at = 0
        for i in range(HEAD_LINES):
            end = text.find("\n", at)
            candidates.append((i, text[at:end]))
            at = end + 1
        end = len(text)
        for i in range(last, last - TAIL_LINES, -1):
            at = text.rfind("\n", 0, end) + 1
            candidates.append((i, text[at:end]))
            end = at - 1
    drop = {i for i, line in candidates if _is_credit(line)}
    # the first line left, when it is a title with the site's name and text follows it
    for i, line in candidates[:HEAD_LINES]:
        if i in drop or not line.strip():
            continue
        if (
            len(line) <= _TITLE_LONGEST
            and i < last
            and ("｜" in line or "|" in line or "_" in line or " - " in line)
            and _TITLE_SITE.search(line)
        ):
            drop.add(i)
        break
    if not drop:
        return text
    lines = lines or text.split("\n")
    kept = [line for i, line in enumerate(lines) if i not in drop]
    return "\n".join(kept)

"""Credit lines a repost's site adds around an article: read past before the text is signed.

A portal that reposts a story puts its own lines around it: where it came from (``来源：新华社``,
``Source: Reuters``), who edited it (``责任编辑：张伟``, ``(Reporting by ...; editing by ...)``), share
and "read more" links, a title line carrying the site's name (``...｜今日头条``). A reader comparing
two copies skips them: they are the site's, not the article's. ``strip_credits`` drops such lines
from the first ``HEAD_LINES`` and the last ``TAIL_LINES`` lines of a text (where sites put them),
so the match engine measures what each copy adds without them; the text in between is never
touched, so a line that merely starts like a credit inside an article stays.

>>> strip_credits("来源：中国新闻网\\n\\n国务院常务会议今天召开。\\n\\n责任编辑：赵磊\\n分享到：微信 微博")
'\\n国务院常务会议今天召开。\\n\\n'
>>> strip_credits("Source: Reuters\\nThe bank held rates.\\n(Reporting by Sam Lee; editing by Alex Brown)")
'The bank held rates.\\n'
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

# Chinese: source, editor, reviewer, author and photo credits, share and read-more links
_ZH_CREDIT = re.compile(
    r"(?:(?:本文|文章|消息|新闻|稿件|图片|视频|内容)?来源|稿源|(?:责任|值班|实习)?编辑|责编|审核|校对|作者|记者"
    r"|摄影|通讯员|监制|主编|原标题)\s*[:：]"
    r"|[（(]\s*(?:责任编辑|编辑|来源)\s*[:：][^）)\n]*[）)]\s*$"
    r"|分享到|扫一扫|阅读(?:更多|原文|全文)|点击(?:查看|阅读|进入)|【?(?:延伸阅读|相关阅读|推荐阅读|相关新闻|相关链接)】"
)
# what a credit line starts with (lowercased), so most lines cost one prefix test
_PREFIXES = (
    *"本文 文章 消息 新闻 稿件 图片 视频 内容 来源 稿源 责任 值班 实习 编辑 责编 审核 校对 作者 记者 摄影 通讯员 监制 主编 原标题".split(),
    *"分享到 扫一扫 阅读 点击 【 延伸阅读 相关阅读 推荐阅读 相关新闻 相关链接 （ (".split(),
    *"source credit photo image via reporting writing editing edited written compiled produced".split(),
    *"additional comments story disclaimer share read follow copyright all advertisement click -".split(),
)
# English: source and wire credits, comment and advertisement notices, share and follow links
_EN_CREDIT = re.compile(
    r"(?:source|sources|credit|photo|image|via)\s*:"
    r"|\(?-?\s*(?:additional )?(?:reporting|writing|editing|edited|written|compiled|produced) by\b"
    r"|comments are closed|story continues below|disclaimer\s*:|share this|read more\b|follow us\b"
    r"|copyright\b|all rights reserved|advertisement\s*$|click here\b",
    re.IGNORECASE,
)
_TEXT = re.compile(r"\S")


def _is_credit(text: str, start: int, end: int) -> bool:
    """``text[start:end]`` (one line) is a credit line."""
    if end - start > _LONGEST:
        return False
    m = _TEXT.search(text, start, end)
    if m is None:
        return False
    at = m.start()
    if not text[at : at + 12].lower().startswith(_PREFIXES):
        return False
    return _ZH_CREDIT.match(text, at, end) is not None or _EN_CREDIT.match(text, at, end) is not None


# a title line ending in the site's name: "标题｜今日头条", "Title | News Daily", "标题_凤凰网资讯"
_TITLE_SITE = re.compile(r"(?:[｜|]|_| - )[ \t]*[^｜|_\n]{1,16}[ \t\u3000]*$")
def strip_credits(text: str) -> str:
    """``text`` without the credit lines among its first and last lines (see the module)."""
    if "\n" not in text:
        return text
    n = len(text)
    drop: list[tuple[int, int]] = []
    title: tuple[int, int] | None = None
    s = 0
    for _ in range(HEAD_LINES):
        e = text.find("\n", s)
        e = n if e < 0 else e
        if _is_credit(text, s, e):
            drop.append((s, e + 1))
        elif title is None and _TEXT.search(text, s, e):
            title = (s, e)
        if e >= n:
            break
        s = e + 1
    head_end = s
    e = n
    for _ in range(TAIL_LINES):
        s = text.rfind("\n", 0, e) + 1
        if s < head_end:
            break
        if _is_credit(text, s, e):
            drop.append((s, e + 1))
        if s == 0:
            break
        e = s - 1
    # the first line left, when it is a title with the site's name and text follows it
    if title is not None:
        s, e = title
        if e - s <= _TITLE_LONGEST and e < n and _TITLE_SITE.search(text, s, e) and _TEXT.search(text, e):
            drop.append((s, e + 1))
    if not drop:
        return text
    out, at = [], 0
    for s, e in sorted(drop):
        out.append(text[at:s])
        at = e
    out.append(text[at:])
    return "".join(out)

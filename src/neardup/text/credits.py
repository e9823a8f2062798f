"""Credit lines a repost's site adds around an article: read past before the text is signed.

A portal that reposts a story puts its own lines around it: where it came from (``来源：新华社``,
``Source: Reuters``), who edited it (``责任编辑：张伟``, ``(Reporting by ...; editing by ...)``), share
and "read more" links, a title line carrying the site's name (``...｜今日头条``). A reader comparing
two copies skips them: they are the site's, not the article's. ``strip_credits`` drops such lines
from the first ``HEAD_LINES`` and the last ``TAIL_LINES`` lines of a text (where sites put them),
and when those are all credits, the credit lines that run on from that end (a portal's footer of
copyright, disclaimer, "open the app" and "follow us" lines), so the match engine measures what
each copy adds without them. In between only reading links and prompts are dropped (相关阅读：
<another article's title>, ``Related: ...``, ``Read more: ...``, an embedded mini-program,
"……点击阅读全文", 点击关注, 欢迎下载, ``Follow us on ...``, ``Sign up for our newsletter``,
``Advertisement``), and such a line run on after a paragraph's last sentence: a line that merely
starts like a credit inside an article stays. A newsgroup reply's attribution line before the
lines it quotes (``In article <id>, who writes:`` then ``> ...``) is the reply's header: it goes
too, so a reply that writes nothing of its own is its message's copy.

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
    r"|分享到|扫一扫|阅读(?:更多|原文|全文)|点击(?:查看|阅读|进入|关注)"
    # portals' notices: copyright and disclaimer lines, "reposted from the web", "open the app"
    # (reading links and prompts are _PROMPT's, below)
    r"|(?:版权|免责)?声明[ \t]*[:：]|本文(?:转载自|来自)|转载自网络|如有侵权|(?i:打开app)"
    # English: source and wire credits, comment and advertisement notices, share and follow links
    r"|(?i:(?:source|sources|credit|photo|image|via|original (?:title|headline))[ \t]*:"
    r"|\(?-?[ \t]*(?:additional )?(?:reporting|writing|editing|edited|written|compiled|produced) by\b"
    r"|comments are closed|story continues below|disclaimer[ \t]*:|share this|read more\b|follow us\b"
    r"|copyright\b|all rights reserved|advertisement[ \t]*$|click here\b)"
)
# what only links another article, or prompts the reader (follow us, sign up, download the app)
# or marks an ad: a site's, wherever it stands (a whole line, or run on after a paragraph's last
# sentence), never an article's own words
_PROMPT = (
    r"(?:【?(?:延伸阅读|相关阅读|推荐阅读|相关新闻|相关链接)(?:】|[ \t]*[:：])|[（(]?此处已?添加小程序"
    r"|[.…]+[ \t]*(?:点击)?阅读全文|点击关注|欢迎下载|想了解更多|快来关注|本文图片来源于网络"
    r"|(?i:(?:related(?: stories| articles| coverage)?|read more|see also|also read|read next)[ \t]*:"
    r"|follow us on\b|sign up (?:for|to) (?:our|the)\b|click here to\b|subscribe to our\b"
    r"|story continues below\b|advertisement[ \t.]*$|this (?:article|story) has been updated\b))"
)
_SPACES = " \t\u3000"
# a credit line: the credits above, or a prompt (at an end, a prompt is a credit too)
_LINE = re.compile("[" + _SPACES + "]*(?:" + _CREDIT + "|" + _PROMPT + ")", re.MULTILINE)
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
        "版权",
        "免责",
        "声明",
        "转载",
        "如有",
        "此处",
        "想了解",
        "快来",
        "打开",
        "欢迎",
        "…",
        ".",
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
        "original",
        "related",
        "see also",
        "also read",
        "sign up",
        "subscribe",
        "this article",
        "this story",
    ]
)
# a title line ending in the site's name: "标题｜今日头条", "Title | News Daily", "标题_凤凰网资讯"
_TITLE_SITE = re.compile(r"(?:[｜|]|_| - )[ \t]*[^｜|_\n]{1,16}[ \t\u3000]*$")


_LINK = re.compile("[" + _SPACES + "]*" + _PROMPT)
# a newsgroup reply's attribution of the lines it quotes next ("In article <id>, who writes:" and
# "> ..."): the reply's header, not what it writes
_ATTRIBUTION = re.compile(
    r"(?i:in (?:article )?<[^>\n]{1,120}>[^\n]{0,160}\b(?:writes|wrote|says)[ \t]*:[ \t]*)\n[ \t]*>"
)
# a prompt run on after a paragraph's last sentence (an extractor that flattens the link into the
# paragraph): the paragraph ends before it
_TAIL_LINK = re.compile(r"(?:(?<=[。！？!?”」.])|(?<=[.!?]\"))[ \t\u3000]*" + _PROMPT + r"[^\n]{0,100}$")
# a text holds a prompt only if it holds one of these, as a prompt is written (one literal
# alternation: one scan of a text, and most texts hold none)
_PROMPT_MARK = re.compile(
    "|".join(
        map(
            re.escape,
            (
                *("阅读", "相关新闻", "相关链接", "小程序", "点击关注", "欢迎下载", "想了解更多", "快来关注"),
                "本文图片",
                *("Related", "RELATED", "Read more", "Read More", "READ MORE", "Read next", "READ NEXT"),
                *("See also", "See Also", "SEE ALSO", "Also read", "Also Read", "ALSO READ"),
                *("Follow us", "Follow Us", "FOLLOW US", "Sign up", "Sign Up", "SIGN UP"),
                *("Click here", "Click Here", "CLICK HERE", "Subscribe to", "Story continues"),
                *("Advertisement", "ADVERTISEMENT", "This article has", "This story has"),
            ),
        )
    )
)


def _is_link(line: str) -> bool:
    return len(line) <= _LONGEST and _LINK.match(line) is not None


def _is_credit(line: str) -> bool:
    return (
        len(line) <= _LONGEST
        and line.lstrip(_SPACES)[:12].lower().startswith(_PREFIXES)
        and _LINE.match(line) is not None
    )


def _block(lines: list[str], order: range, drop: set[int]) -> None:
    """Credit lines running on from one end of the text (blank lines between them included): a
    site's footer of copyright, disclaimer and app lines is longer than the fixed window."""
    for i in order:
        line = lines[i]
        if not line.strip(_SPACES):
            continue
        if not _is_credit(line):
            return
        drop.add(i)


def strip_credits(text: str) -> str:
    """``text`` without the credit lines among its first and last lines (see the module), the
    credit lines running on from either end, and reading links (相关阅读：…) anywhere."""
    last = text.count("\n")  # the index of the last line
    links = _PROMPT_MARK.search(text) is not None
    if last == 0:  # one line is the text: at most a link run on after it goes
        m = _TAIL_LINK.search(text) if links else None
        return text if m is None else text[: m.start()]
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
    if text[:1] in ("I", "i") and _ATTRIBUTION.match(text) is not None:
        drop.add(0)
    head_full = all(i in drop or not line.strip(_SPACES) for i, line in candidates[:HEAD_LINES])
    tail_full = all(i in drop or not line.strip(_SPACES) for i, line in candidates[HEAD_LINES:])
    cut = False
    if (head_full or tail_full) and last >= HEAD_LINES + TAIL_LINES:
        lines = text.split("\n")
        if head_full:
            _block(lines, range(HEAD_LINES, last + 1), drop)
        if tail_full:
            _block(lines, range(last - TAIL_LINES, -1, -1), drop)
    if links:
        lines = lines or text.split("\n")
        drop.update(i for i, line in enumerate(lines) if _is_link(line))
        for i, line in enumerate(lines):
            m = _TAIL_LINK.search(line) if i not in drop and _PROMPT_MARK.search(line) else None
            if m is not None:
                lines[i] = line[: m.start()]
                cut = True
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
    if not drop and not cut:
        return text
    lines = lines or text.split("\n")
    kept = [line for i, line in enumerate(lines) if i not in drop]
    return "\n".join(kept)

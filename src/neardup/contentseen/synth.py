"""Realistic HTML pages around known article text, for tests, benchmarks and load tests.

A page is an article (title + paragraphs) wrapped in one of several site templates with navigation,
sidebars, related links, ads, scripts, comments and footers, so main-text extraction and the layout
signature can be measured against the article text that is known to be the truth. Pages are made at
runtime from the shared corpora; nothing here holds corpus text.

>>> html = render_page("标题", ["第一段。", "第二段。"], template="portal", seed=1)
>>> "第一段" in html and "<nav" in html
True
"""

from __future__ import annotations

import html as _html
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

__all__ = ["ALL_TEMPLATES", "TEMPLATES", "render_page"]

# The templates the extraction tests and benchmarks iterate over; their sets stay as measured.
TEMPLATES: tuple[str, ...] = ("portal", "blog", "repost", "minimal")
# Every template render_page knows: "mobile" is a phone site (app banners, "read more", ICP footer).
ALL_TEMPLATES: tuple[str, ...] = (*TEMPLATES, "mobile")

_NAV_ZH = [
    "首页",
    "新闻",
    "国内",
    "国际",
    "财经",
    "科技",
    "体育",
    "娱乐",
    "汽车",
    "房产",
    "教育",
    "健康",
    "旅游",
    "文化",
    "军事",
    "图片",
    "视频",
    "专题",
    "评论",
    "直播",
]
_NAV_EN = [
    "Home",
    "News",
    "World",
    "Business",
    "Tech",
    "Science",
    "Health",
    "Sport",
    "Culture",
    "Travel",
    "Video",
    "Live",
    "Opinion",
    "Weather",
    "Markets",
]
_FOOT_ZH = ["关于我们", "联系我们", "广告服务", "网站地图", "隐私政策", "版权声明", "招聘信息", "意见反馈"]
_FOOT_EN = [
    "About",
    "Contact",
    "Advertise",
    "Sitemap",
    "Privacy",
    "Terms",
    "Careers",
    "Feedback",
    "Accessibility",
    "Cookies",
]


def _is_zh(text: str) -> bool:
    return sum(1 for ch in text[:200] if "\u4e00" <= ch <= "\u9fff") > 10


def _esc(text: str) -> str:
    return _html.escape(text, quote=True)


def _links(words: Sequence[str], rng: random.Random, prefix: str) -> str:
    return "".join(f'<li><a href="/{prefix}/{rng.randrange(10**6)}.html">{_esc(w)}</a></li>' for w in words)


def _script(rng: random.Random) -> str:
    n = rng.randrange(10**8)
    return (
        "<script>(function(){var t=" + str(n) + ";window.dataLayer=window.dataLayer||[];"
        "function g(){dataLayer.push(arguments);}g('js',new Date());g('config','UA-" + str(n % 99991) + "');"
        "var s=document.createElement('script');s.async=true;s.src='https://ads.example.com/a.js?t='+t;"
        "document.head.appendChild(s);})();</script>"
    )


def _style() -> str:
    rules = "".join(
        f".c{i}{{margin:{i}px;padding:{i % 7}px;font-size:{12 + i % 6}px;color:#{i * 4567 % 0xFFFFFF:06x}}}"
        for i in range(160)
    )
    return f"<style>{rules}</style>"


def render_page(
    title: str,
    paragraphs: Sequence[str],
    *,
    template: str = "portal",
    related: Sequence[str] = (),
    seed: int = 0,
    site: str = "example",
) -> str:
    """Wrap an article in a site template; ``related`` are headlines shown as related links.

    The same ``seed`` and arguments give the same bytes; another seed changes ads, counters and link
    targets but not the template's structure.
    """
    if template not in ALL_TEMPLATES:
        raise ValueError(f"template must be one of {', '.join(ALL_TEMPLATES)}, got {template!r}")
    rng = random.Random(seed)
    zh = _is_zh(title + "".join(paragraphs[:3]))
    nav = _NAV_ZH if zh else _NAV_EN
    t = _esc(title)
    date = f"20{rng.randrange(10, 26)}-{rng.randrange(1, 13):02d}-{rng.randrange(1, 29):02d}"
    views = rng.randrange(100, 100000)
    head = (
        f'<!DOCTYPE html><html lang="{"zh-CN" if zh else "en"}"><head><meta charset="utf-8">'
        f'<meta name="viewport" content="width=device-width, initial-scale=1"><title>{t} - {site}</title>'
        f'<meta name="description" content="{t}">{_style()}{_script(rng)}</head>'
    )
    ad = (
        f'<div class="ad ad-banner" id="ad{rng.randrange(1000)}"><a href="https://ads.example.com/c?{rng.randrange(10**9)}">'
        f'<img src="https://ads.example.com/b/{rng.randrange(10**6)}.jpg" alt="ad"></a></div>'
    )
    foot = _FOOT_ZH if zh else _FOOT_EN
    rel = list(related) or [f"{w} {i}" for i, w in enumerate(nav)]
    body = "".join(f"<p>{_esc(p)}</p>" for p in paragraphs if p.strip())
    share = "分享到：微信 微博 QQ空间" if zh else "Share: Facebook Twitter Email"
    copyright_ = f"© 2014-2026 {site}.com 版权所有" if zh else f"© 2026 {site} Ltd. All rights reserved."
    page = _Page(head, t, body, date, views, site, zh, rng, nav, foot, rel, ad, share, copyright_)
    return _RENDER[template](page)


@dataclass(frozen=True)
class _Page:
    """What every template shows: the head, the article, the date and counters, and the site's parts."""

    head: str
    title: str
    body: str
    date: str
    views: int
    site: str
    zh: bool
    rng: random.Random
    nav: Sequence[str]
    foot: Sequence[str]
    related: list[str]
    ad: str
    share: str
    copyright: str


def _portal(p: _Page) -> str:
    """A news portal: channel navigation, breadcrumb, related links, most-read list, sitemap footer."""
    return (
        f'{p.head}<body><header class="site-header"><div class="logo"><a href="/">{p.site}</a></div>'
        f'<nav class="main-nav"><ul>{_links(p.nav, p.rng, "channel")}</ul></nav></header>{p.ad}'
        f'<div class="container"><div class="breadcrumb"><a href="/">{p.nav[0]}</a> &gt; <a href="/news">{p.nav[1]}</a></div>'
        f'<main class="content"><article class="article"><h1 class="title">{p.title}</h1>'
        f'<div class="meta"><span class="date">{p.date}</span><span class="source">{p.site}</span>'
        f'<span class="views">{p.views}</span></div><div class="article-body">{p.body}</div>'
        f'<div class="share">{p.share}</div></article>'
        f'<section class="related"><h3>{"相关新闻" if p.zh else "Related"}</h3><ul>{_links(p.related[:8], p.rng, "a")}</ul></section>'
        f'</main><aside class="sidebar"><div class="widget hot"><h3>{"热点排行" if p.zh else "Most read"}</h3>'
        f"<ol>{_links(p.related[::-1][:10], p.rng, 'hot')}</ol></div>{p.ad}</aside></div>"
        f'<footer class="site-footer"><div class="sitemap">{"".join(f"<dl><dt>{_esc(w)}</dt>{_links(p.nav[:10], p.rng, w)}</dl>" for w in p.nav[:8])}</div>'
        f"<ul>{_links(p.foot, p.rng, 'about')}</ul><p>{p.copyright}</p></footer>"
        f"{_script(p.rng)}</body></html>"
    )


def _blog(p: _Page) -> str:
    """A blog post: tags, comments, recent posts and categories."""
    tags = " ".join(f'<a class="tag" href="/tag/{i}">{_esc(w)}</a>' for i, w in enumerate(p.nav[3:9]))
    return (
        f'{p.head}<body class="blog"><div id="wrapper"><div id="top-bar">{_links(p.foot[:4], p.rng, "u")}</div>'
        f'<div id="header"><h2 id="blog-title"><a href="/">{p.site} {"的博客" if p.zh else "blog"}</a></h2></div>'
        f'<div id="main"><div id="post" class="post"><h2 class="post-title">{p.title}</h2>'
        f'<div class="post-info">{"发表于" if p.zh else "Posted"} {p.date} | {"阅读" if p.zh else "Read"} {p.views}</div>'
        f'<div class="post-content">{p.body}</div><div class="post-tags">{tags}</div>'
        f'<div id="comments"><h4>{"网友评论" if p.zh else "Comments"} (3)</h4>'
        f'<div class="comment"><span class="user">user{p.rng.randrange(999)}</span><p>{"写得好" if p.zh else "Great post"}</p></div>'
        f'<div class="comment"><span class="user">user{p.rng.randrange(999)}</span><p>{"顶" if p.zh else "+1"}</p></div></div>'
        f'</div><div id="side"><div class="box"><h4>{"最新文章" if p.zh else "Recent posts"}</h4><ul>{_links(p.related[:12], p.rng, "p")}</ul></div>'
        f'<div class="box"><h4>{"分类" if p.zh else "Categories"}</h4><ul>{_links(p.nav[2:12], p.rng, "cat")}</ul></div>{p.ad}</div></div>'
        f'<div id="footer">{p.copyright}</div></div>{_script(p.rng)}</body></html>'
    )


def _repost(p: _Page) -> str:
    """A repost farm: a table of channels, a reposted-from note, lists of other reposts."""
    return (
        f'{p.head}<body><table width="100%" class="top"><tr>{"".join(f"<td><a href=/c{i}>{_esc(w)}</a></td>" for i, w in enumerate(p.nav[:12]))}</tr></table>'
        f'<div class="wrap"><div class="left"><div class="pos">{"当前位置" if p.zh else "You are here"}: {p.site} &gt; {p.nav[1]}</div>'
        f'<div class="newsview"><div class="newstitle">{p.title}</div>'
        f'<div class="newsinfo">{"来源" if p.zh else "Source"}: {"网络转载" if p.zh else "web"} {p.date}</div>'
        f'<div id="newscontent" class="newscontent">{p.body}</div>'
        f'<div class="note">{"本文转载自网络，如有侵权请联系删除。" if p.zh else "Reposted from the web; contact us to remove."}</div>'
        f'</div><div class="pages"><a href="/prev">{"上一篇" if p.zh else "Previous"}</a> <a href="/next">{"下一篇" if p.zh else "Next"}</a></div>'
        f'<div class="morelist"><ul>{_links(p.related[:10], p.rng, "n")}</ul></div></div>'
        f'<div class="right">{p.ad}<div class="rbox"><ul>{_links(p.related[::-1][:8], p.rng, "r")}</ul></div></div></div>'
        f'<div class="bottom">{" | ".join(p.foot)}<br>{p.copyright}</div>{_script(p.rng)}</body></html>'
    )


def _mobile(p: _Page) -> str:
    """A phone site: app banners, 'continue reading', recommendations and an ICP footer."""
    icp = f"<p>京ICP备{p.rng.randrange(10**7, 10**8)}号</p>" if p.zh else ""
    tabs = "".join(f'<a href="/m/{i}">{_esc(w)}</a>' for i, w in enumerate(p.nav[:8]))
    return (
        f'{p.head}<body class="m"><div class="m-top"><a class="logo" href="/">{p.site}</a>'
        f'<a class="open-app" href="/app">{"打开APP" if p.zh else "Open app"}</a></div>'
        f'<div class="m-tabs">{tabs}</div><div class="m-article"><h1>{p.title}</h1>'
        f'<div class="m-info">{p.site} {p.date} {"阅读" if p.zh else "Views"} {p.views}</div>{p.body}'
        f'<div class="m-more">{"展开全文" if p.zh else "Continue reading"}</div></div>'
        f'<div class="m-app">{"打开APP，阅读更多精彩内容" if p.zh else "Get the app for more stories"}</div>'
        f'<div class="m-share">{p.share}</div>'
        f'<div class="m-rec"><h3>{"为你推荐" if p.zh else "Recommended for you"}</h3><ul>{_links(p.related[:10], p.rng, "m")}</ul></div>'
        f'<div class="m-hot"><h3>{"热门新闻" if p.zh else "Trending"}</h3><ol>{_links(p.related[::-1][:6], p.rng, "h")}</ol></div>{p.ad}'
        f'<div class="m-foot"><a href="/?pc=1">{"电脑版" if p.zh else "Desktop site"}</a> | '
        f"{' | '.join(p.foot[:4])}<p>{p.copyright}</p>{icp}</div>{_script(p.rng)}</body></html>"
    )


def _minimal(p: _Page) -> str:
    """A bare article page, like a print view or an AMP page."""
    return (
        f'{p.head}<body><div class="print"><h1>{p.title}</h1><p class="byline">{p.date}</p>{p.body}'
        f'<p class="src"><a href="https://{p.site}.com/">{p.site}.com</a></p></div></body></html>'
    )


_RENDER: dict[str, Callable[[_Page], str]] = {
    "portal": _portal,
    "blog": _blog,
    "repost": _repost,
    "mobile": _mobile,
    "minimal": _minimal,
}

"""The pages a copy is wrapped in: the classic profile's one reposting-site template, and the
realistic profile's portal, mobile, blog and repost-farm sites with their licence and legal lines.

>>> import random
>>> from neardup.eval.synth.classic import Editor
>>> from neardup.eval.synth.config import SynthConfig
>>> page = classic_page(Editor("zh", random.Random(1), [], SynthConfig()), ["正文"], "标题", "")
>>> "<p>正文</p>" in page
True
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from neardup.eval.synth.text import escape
from neardup.eval.synth.vocab import CLASSIC_PAGE, ICP_PROVINCES, SITES_EN, SITES_ZH, TEMPLATE_ODDS

if TYPE_CHECKING:
    from neardup.eval.synth.classic import Editor
    from neardup.eval.synth.realistic import Reposter

__all__ = ["classic_page", "repost_page"]


def classic_page(ed: Editor, paras: list[str], title: str, date: str) -> str:
    """The copy as a page of a reposting site: navigation, header, share buttons, ads, footer."""
    r, w = ed.rng, ed.w
    body = "".join(f"<p>{escape(p)}</p>" for p in paras)
    nav = ("首页", "新闻") if ed.lang == "zh" else ("Home", "News")
    header = "".join(
        f'<div class="meta">{escape(ed.fill(x, title, date))}</div>' for x in r.sample(w["header"], k=2)
    )
    side = "".join(f"<li>{escape(x)}</li>" for x in r.sample(w["ads"], k=2))
    footer = "".join(f"<p>{escape(ed.fill(x, title, date))}</p>" for x in r.sample(w["footer"], k=3))
    return CLASSIC_PAGE.format(
        title=escape(title), home=nav[0], news=nav[1], header=header, body=body, side=side, footer=footer
    )


def repost_page(rp: Reposter, paras: list[str], title: str) -> tuple[str, str]:
    """A page of a portal, mobile site, blog or repost farm and the template's name; the page's
    boilerplate lists other articles' titles, and its foot the site's licence or legal line."""
    from neardup.contentseen.synth import render_page

    r = rp.rng
    template = r.choices([t for t, _ in TEMPLATE_ODDS], weights=[w for _, w in TEMPLATE_ODDS])[0]
    zh = rp.lang == "zh"
    site = r.choice(SITES_ZH if zh else SITES_EN)
    related = rp.other_titles(r.randint(8, 16), title)
    html = render_page(title, paras, template=template, related=related, seed=r.randrange(2**31), site=site)
    if zh and "ICP备" in html:  # the mobile template has its own licence line
        legal = ""
    elif zh:
        legal = _icp_line(r)
    else:
        legal = (
            f'<div class="legal">{site.title()} Media Ltd, registered in England and Wales No. '
            f"{r.randrange(10**6, 10**7)}. Registered office: {r.randint(1, 200)} High Street, London. "
            f"We use cookies to improve your experience. Manage cookie settings.</div>"
        )
    return html.replace("</body>", legal + "</body>", 1), template


def _icp_line(r: random.Random) -> str:
    """The licence numbers a Chinese news site must show at the foot of every page."""
    return (
        f'<div class="icp"><a href="https://beian.miit.gov.cn/">'
        f"{r.choice(ICP_PROVINCES)}ICP备{r.randrange(10**7, 10**8)}号-{r.randint(1, 9)}</a> "
        f"{r.choice(ICP_PROVINCES)}公网安备 {r.randrange(10**13, 10**14)}号 "
        f"违法和不良信息举报电话：010-{r.randrange(10**7, 10**8)} "
        f"互联网新闻信息服务许可证：{r.randrange(10**10, 10**11)}</div>"
    )

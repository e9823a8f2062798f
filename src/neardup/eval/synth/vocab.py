"""The words reposting sites add, per language: title decorations, editor and source lines, site
headers and footers, ads and boilerplate, look-alike characters, datelines and spelling variants.

>>> "央视网" in ZH["sources"] and ZH_LOOKALIKE["在"] == "再"
True
"""

from __future__ import annotations

# what reposting sites add, per language

ZH = {
    "title_prefix": ["【转载】", "【独家】", "重磅！", "最新：", "热点｜", "快讯：", ""],
    "title_suffix": [
        "_新浪新闻",
        " - 网易新闻",
        "_凤凰网资讯",
        "｜今日头条",
        "_腾讯新闻",
        "_搜狐网",
        " - 东方财富网",
    ],
    "editors": ["王晓明", "李静", "张伟", "刘洋", "陈晨", "杨帆", "赵磊", "孙悦"],
    "sources": ["央视网", "新华社", "人民网", "中国新闻网", "光明网", "环球网", "澎湃新闻"],
    "editor_line": ["责任编辑：{e}", "（责任编辑：{e}）", "编辑：{e}　审核：{e2}", "【编辑：{e}】"],
    "source_line": ["来源：{s}", "本文来源：{s}", "原标题：{t}", "文章来源：{s}　{d}", "稿源：{s}"],
    "header": [
        "首页 > 新闻中心 > 国内新闻",
        "当前位置：首页 > 时政 > 正文",
        "网站首页 | 新闻 | 财经 | 体育 | 娱乐",
        "{d} 来源：{s} 阅读量：{n}",
        "字号：大 中 小　打印本页",
    ],
    "footer": [
        "分享到：微信 微博 QQ空间",
        "【打印】【关闭窗口】【返回顶部】",
        "版权声明：本网站所刊载信息，不代表本站观点。如转载请注明出处。",
        "相关新闻：",
        "扫一扫在手机打开当前页",
        "免责声明：本文仅代表作者观点，与本站无关。",
    ],
    "ads": [
        "扫描下方二维码，关注我们的公众号，获取更多精彩资讯。",
        "点击下载新闻客户端，看更多热点新闻。",
        "【广告】限时优惠，立即抢购！",
        "更多精彩内容，请关注官方微博。",
        "推荐阅读：今日热点新闻汇总",
        "长按识别二维码，加入读者交流群。",
    ],
    "more": ["（未完）", "……点击阅读全文", "（全文完）", "阅读更多>>"],
    "lead": "央视网消息（新闻联播）：",
}
EN = {
    "title_prefix": ["BREAKING: ", "UPDATE: ", "Exclusive: ", "Read: ", ""],
    "title_suffix": [" | News Daily", " - World Report", " | The Wire", " :: Headlines", " - Newsroom"],
    "editors": ["John Smith", "Mary Jones", "Alex Brown", "Sam Taylor", "Chris Lee"],
    "sources": ["BBC News", "Reuters", "AP", "News Agency", "Wire Services"],
    "editor_line": ["By {e}", "Edited by {e}", "Reporting by {e}; editing by {e2}", "Written by {e}"],
    "source_line": ["Source: {s}", "Originally published by {s}", "Original title: {t}", "Via {s}, {d}"],
    "header": [
        "Home > News > World",
        "You are here: Home / Business / Article",
        "Menu | News | Sport | Weather",
        "Published {d} | {n} views",
        "Text size: A A A",
    ],
    "footer": [
        "Share this article: Facebook Twitter Email",
        "Print | Close window | Back to top",
        "Copyright notice: all rights reserved. Reproduction without permission is prohibited.",
        "Related stories:",
        "Comments are closed.",
        "Disclaimer: views expressed are the author's own.",
    ],
    "ads": [
        "Advertisement",
        "Subscribe to our newsletter for the latest headlines.",
        "Sponsored: Top deals today",
        "Download our app for breaking news alerts.",
        "Continue reading below",
        "Follow us on social media.",
    ],
    "more": ["(continued)", "... Read the full story", "[...]", "Read more >>"],
    "lead": "",
}
CLASSIC_PAGE = (
    '<!DOCTYPE html><html><head><meta charset="utf-8"><title>{title}</title></head><body>'
    '<div class="nav"><a href="/">{home}</a> | <a href="/news">{news}</a></div>'
    '<div class="main"><article><h1>{title}</h1>{header}<div class="content">{body}</div></article>'
    "<aside><ul>{side}</ul></aside></div>"
    '<div class="footer">{footer}</div></body></html>'
)
# full-width forms to ASCII, as some sites' templates do (。 stays: no site turns it into a full stop)
HALFWIDTH = str.maketrans(
    {"，": ",", "：": ":", "；": ";", "！": "!", "？": "?", "（": "(", "）": ")", "“": '"', "”": '"'}
)
EN_SUBST = {
    "said": "says",
    "the": "a",
    "and": "&",
    "percent": "%",
    "company": "firm",
    "government": "govt",
    "will": "would",
    "also": "as well",
    "people": "persons",
    "year": "yr",
}


# Pairs that retyping, OCR and pinyin input methods confuse; a copy's wrong characters come from
# here first, then from common characters.
ZH_CONFUSABLE: tuple[str, ...] = (
    "己已巳",
    "在再",
    "的得地",
    "做作",
    "即既",
    "帐账",
    "象像",
    "部步",
    "以已",
    "那哪",
    "他她",
    "到倒",
    "座坐",
    "须需",
    "竟竞",
    "辨辩",
    "历厉",
    "记纪",
    "园圆",
    "带戴",
    "副付",
    "侯候",
    "练炼",
    "泄泻",
    "期其",
    "制治",
    "利力",
    "工功",
    "事是",
    "式试",
    "议意",
    "权全",
    "届界",
    "度渡",
    "型形",
    "常长",
    "现显",
    "线限",
    "建健",
    "资姿",
    "势事",
    "进近",
    "做坐",
    "决绝",
    "展战",
    "提题",
    "实时",
    "化话",
)
ZH_LOOKALIKE: dict[str, str] = {}
for _group in ZH_CONFUSABLE:
    for _c in _group:
        ZH_LOOKALIKE[_c] = ZH_LOOKALIKE.get(_c, "") + _group.replace(_c, "")
ZH_COMMON = (
    "的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过子说产种"
    "面而方后多定行学法所民得经十三之进着等部度家电力里如水化高自二理起小物现实加量都两体制机当使点从业本"
)
ZH_LEADS = (
    "新华社北京电 ",
    "人民网北京电 ",
    "中新网电 ",
    "本报讯 ",
    "据央视新闻报道，",
    "",
)
ZH_BOILER = (
    "点击关注，获取更多权威资讯。",
    "本文来自新闻客户端，仅代表作者观点，不代表本平台立场。",
    "（此处已添加小程序，请到客户端查看）",
    "欢迎下载新闻客户端，第一时间获取最新消息。",
    "想了解更多精彩内容，快来关注我们吧！",
    "声明：本文转载自网络，如有侵权请联系删除。",
    "本文图片来源于网络。",
    "推荐阅读：{o}",
    "相关阅读：{o}",
    "【延伸阅读】{o}",
)
EN_BOILER = (
    "Advertisement",
    "Story continues below advertisement.",
    "Sign up for our morning newsletter to get the day's top stories.",
    "Click here to subscribe.",
    "Read more: {o}",
    "Related: {o}",
    "Follow us on Twitter and Facebook for the latest updates.",
    "This article has been updated.",
)
EN_DATELINES = (
    "LONDON (Reuters) - ",
    "LONDON (AP) — ",
    "NEW YORK (Reuters) - ",
    "WASHINGTON (AFP) - ",
    "PARIS (AFP) - ",
    "BRUSSELS (Reuters) - ",
    "London, {d} (PA) - ",
)
EN_CREDITS = (
    "(Reporting by {e}; Editing by {e2})",
    "(Reporting by {e}; additional reporting by {e2}; editing by {e3})",
    "(Writing by {e}; Editing by {e2})",
    "- Additional reporting by {e}",
)
EN_NAMES = (
    "Kate Holton",
    "William James",
    "Paul Sandle",
    "Guy Faulconbridge",
    "Alistair Smout",
    "Estelle Shirbon",
    "Mark Heinrich",
    "Andrew Heavens",
    "Michael Holden",
    "Sarah Young",
)
# British stem, US stem, endings the word may carry: the whole word is matched, so "realism" stays
EN_SPELLING: tuple[tuple[str, str, str], ...] = (
    ("colour", "color", "|s|ed|ful|ing"),
    ("favour", "favor", "|s|ed|ite|ites|able"),
    ("honour", "honor", "|s|ed|ing"),
    ("labour", "labor", "|s|ed|er|ers"),
    ("neighbour", "neighbor", "|s|ing|hood|hoods"),
    ("behaviour", "behavior", "|s|al"),
    ("harbour", "harbor", "|s"),
    ("rumour", "rumor", "|s|ed"),
    ("centre", "center", "|s|d"),
    ("theatre", "theater", "|s"),
    ("metre", "meter", "|s"),
    ("organis", "organiz", "e|es|ed|ing|ation|ations|er|ers"),
    ("realis", "realiz", "e|es|ed|ing|ation"),
    ("recognis", "recogniz", "e|es|ed|ing"),
    ("criticis", "criticiz", "e|es|ed|ing"),
    ("apologis", "apologiz", "e|es|ed|ing"),
    ("privatis", "privatiz", "e|es|ed|ing|ation"),
    ("emphasis", "emphasiz", "e|es|ed|ing"),
    ("minimis", "minimiz", "e|es|ed|ing"),
    ("maximis", "maximiz", "e|es|ed|ing"),
    ("summaris", "summariz", "e|es|ed|ing"),
    ("authoris", "authoriz", "e|es|ed|ing|ation"),
    ("modernis", "moderniz", "e|es|ed|ing|ation"),
    ("analys", "analyz", "e|ed|ing"),
    ("popularis", "populariz", "e|es|ed|ing|ation"),
    ("computeris", "computeriz", "e|es|ed|ing|ation"),
    ("characteris", "characteriz", "e|es|ed|ing|ation"),
    ("prioritis", "prioritiz", "e|es|ed|ing|ation"),
    ("mobilis", "mobiliz", "e|es|ed|ing|ation"),
    ("capitalis", "capitaliz", "e|es|ed|ing|ation"),
    ("globalis", "globaliz", "e|es|ed|ing|ation"),
    ("industrialis", "industrializ", "e|es|ed|ing|ation"),
    ("normalis", "normaliz", "e|es|ed|ing|ation"),
    ("stabilis", "stabiliz", "e|es|ed|ing|ation"),
    ("finalis", "finaliz", "e|es|ed|ing|ation"),
    ("legalis", "legaliz", "e|es|ed|ing|ation"),
    ("subsidis", "subsidiz", "e|es|ed|ing|ation"),
    ("utilis", "utiliz", "e|es|ed|ing|ation"),
    ("symbolis", "symboliz", "e|es|ed|ing|ation"),
    ("specialis", "specializ", "e|es|ed|ing|ation"),
    ("visualis", "visualiz", "e|es|ed|ing|ation"),
    ("hospitalis", "hospitaliz", "e|es|ed|ing|ation"),
    ("centralis", "centraliz", "e|es|ed|ing|ation"),
    ("commercialis", "commercializ", "e|es|ed|ing|ation"),
    ("liberalis", "liberaliz", "e|es|ed|ing|ation"),
    ("standardis", "standardiz", "e|es|ed|ing|ation"),
    ("jeopardis", "jeopardiz", "e|es|ed|ing|ation"),
    ("categoris", "categoriz", "e|es|ed|ing|ation"),
    ("revolutionis", "revolutioniz", "e|es|ed|ing|ation"),
    ("sanitis", "sanitiz", "e|es|ed|ing|ation"),
    ("digitis", "digitiz", "e|es|ed|ing|ation"),
    ("monetis", "monetiz", "e|es|ed|ing|ation"),
    ("nationalis", "nationaliz", "e|es|ed|ing|ation"),
    ("defence", "defense", "|s"),
    ("licence", "license", "|s"),
    ("offence", "offense", "|s"),
    ("programme", "program", "|s"),
    ("travell", "travel", "ed|ing|er|ers"),
    ("cancell", "cancel", "ed|ing"),
    ("catalogue", "catalog", "|s"),
    ("jewellery", "jewelry", ""),
    ("aluminium", "aluminum", ""),
    ("cheque", "check", "|s"),
    ("tyre", "tire", "|s"),
    ("grey", "gray", ""),
    ("whilst", "while", ""),
    ("amongst", "among", ""),
)


FULLWIDTH = str.maketrans({chr(c): chr(c + 0xFEE0) for c in range(0x21, 0x7F)})
SITES_ZH = ("xinwen", "news163", "ifeng", "sohu", "qq", "toutiao", "eastday", "china")
SITES_EN = ("newsdaily", "worldreport", "thewire", "headlines", "dailypost", "metro")
ICP_PROVINCES = "京沪粤浙苏鲁川鄂闽湘"
TEMPLATE_ODDS = (("portal", 3), ("mobile", 3), ("repost", 2), ("blog", 1), ("minimal", 1))

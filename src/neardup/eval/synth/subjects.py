"""The same template with another subject: the entities a story is about (a country, a person, a
province or club, an edition's language, a meeting's number, the year) replaced consistently wherever
they appear, as templated news repeats itself (欢迎智利总统 / 欢迎印度尼西亚总统 on the same day,
主席团第三次会议 / 第四次会议, 2023 / 2024 的走访慰问, 英文版 / 西班牙文版).

>>> import random
>>> t, edits = swap_one("智利总统访华。中国和智利签署协议。", "country", "zh", random.Random(1))
>>> "智利" not in t and t.count(t[:2]) == 2
True
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Callable

__all__ = ["SUBJECT_TYPES", "find_subjects", "swap_one"]


def _words(text: str, sep: str | None = None) -> tuple[str, ...]:
    return tuple(text.split(sep))


ZH_COUNTRIES = _words(
    "智利 印度尼西亚 越南 老挝 柬埔寨 泰国 马来西亚 新加坡 菲律宾 缅甸 文莱 东帝汶 巴基斯坦 孟加拉国 尼泊尔 "
    "斯里兰卡 马尔代夫 哈萨克斯坦 乌兹别克斯坦 吉尔吉斯斯坦 塔吉克斯坦 土库曼斯坦 蒙古国 俄罗斯 白俄罗斯 "
    "塞尔维亚 匈牙利 法国 德国 意大利 西班牙 葡萄牙 希腊 荷兰 比利时 瑞士 奥地利 波兰 捷克 芬兰 瑞典 挪威 丹麦 "
    "爱尔兰 巴西 阿根廷 秘鲁 古巴 墨西哥 委内瑞拉 哥伦比亚 乌拉圭 厄瓜多尔 玻利维亚 尼加拉瓜 洪都拉斯 南非 埃及 "
    "埃塞俄比亚 肯尼亚 尼日利亚 坦桑尼亚 赞比亚 安哥拉 阿尔及利亚 摩洛哥 突尼斯 加纳 塞内加尔 津巴布韦 莫桑比克 "
    "纳米比亚 卢旺达 乌干达 刚果（布） 喀麦隆 加蓬 马达加斯加 沙特阿拉伯 伊朗 伊拉克 叙利亚 土耳其 阿联酋 卡塔尔 "
    "科威特 阿曼 约旦 以色列 巴勒斯坦 阿富汗 新西兰 澳大利亚 斐济 巴布亚新几内亚 所罗门群岛 瓦努阿图 萨摩亚 "
    "汤加 日本 韩国 朝鲜 加拿大 美国 英国 印度 格鲁吉亚 亚美尼亚 阿塞拜疆"
)
ZH_LEADERS = _words(
    "博里奇 佐科 普拉博沃 普京 卢拉 马克龙 朔尔茨 拜登 莫迪 埃尔多安 卢卡申科 托卡耶夫 米尔济约耶夫 拉赫蒙 扎帕罗夫 "
    "武契奇 欧尔班 阿尔巴尼斯 洪森 洪玛奈 通伦 巴育 赛塔 安瓦尔 李显龙 黄循财 马科斯 夏巴兹 哈西娜 拉马福萨 塞西 "
    "阿比 鲁托 蒂努布 哈马德 穆塞韦尼 希奇莱马 姆纳加古瓦 卡加梅 萨尔 洛伦索 费尔南德斯 米莱 博卢阿尔特 迪亚斯-卡内尔 "
    "马杜罗 佩特罗 奥尔特加 卡斯特罗 布克莱 阿莱 萨勒 苏尔 萨达尔 哈姆达 图斯克 杜达 菲佐 梅洛尼 桑切斯 科斯塔 "
    "米佐塔基斯 范明政 苏林 德拉吉 约翰逊 苏纳克 特鲁多 岸田文雄 尹锡悦 莱希 阿巴斯 贾巴尔"
)
ZH_PROVINCES = _words(
    "北京 天津 上海 重庆 河北 山西 辽宁 吉林 黑龙江 江苏 浙江 安徽 福建 江西 山东 河南 湖北 湖南 广东 海南 四川 "
    "贵州 云南 陕西 甘肃 青海 内蒙古 广西 西藏 宁夏 新疆"
)
# short forms in 中泰关系, 泰方 (ones that also start other words are left out: 中新网, 中老年, 南方, 土方)
ZH_SHORT = {
    "泰国": "泰", "越南": "越", "柬埔寨": "柬", "菲律宾": "菲", "缅甸": "缅", "俄罗斯": "俄", "德国": "德",
    "意大利": "意", "日本": "日", "韩国": "韩", "朝鲜": "朝", "美国": "美", "英国": "英", "印度尼西亚": "印尼",
    "智利": "智", "秘鲁": "秘", "墨西哥": "墨", "哈萨克斯坦": "哈", "塞尔维亚": "塞", "匈牙利": "匈",
    "澳大利亚": "澳", "蒙古国": "蒙", "希腊": "希", "巴基斯坦": "巴", "巴西": "巴", "法国": "法", "印度": "印",
    "埃及": "埃", "伊朗": "伊", "马来西亚": "马",
}  # fmt: skip
_NO_FANG = {"法"}  # 办法方面
ZH_EDITIONS = _words("英文 法文 俄文 西班牙文 阿拉伯文 德文 日文 葡萄牙文 韩文 意大利文")
ZH_SURNAMES = "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾田董袁潘蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦方白邹孟熊秦邱江尹薛段雷侯龙史陶黎贺顾毛郝龚邵万钱严武戴孔汤"
ZH_GIVEN = "建国伟明华军平志强文杰海涛洪斌俊峰东亮宏林春晓红丽静玉兰英云芳娟敏霞光荣永庆学忠德"
ZH_ROLES = (
    "书记|副书记|省长|副省长|市长|副市长|主任|副主任|部长|副部长|局长|厅长|主席|副主席|董事长|总经理|"
    "院长|校长|县长|区长|委员|党组书记|秘书长|司令员|政委"
)
ZH_NUMS = "一二三四五六七八九十"

EN_COUNTRIES = _words(
    "France|Germany|Italy|Spain|Portugal|Greece|Netherlands|Belgium|Switzerland|Austria|Poland|Sweden|"
    "Norway|Denmark|Finland|Ireland|Northern Ireland|Scotland|Wales|England|Russia|Ukraine|Turkey|Israel|"
    "Iran|Iraq|Syria|Egypt|Nigeria|Kenya|South Africa|Zimbabwe|Ghana|Morocco|India|Pakistan|China|Japan|"
    "South Korea|North Korea|Australia|New Zealand|Canada|Mexico|Brazil|Argentina|Chile|Peru|Colombia|"
    "Venezuela|Cuba|Indonesia|Thailand|Vietnam|Malaysia|Singapore|Philippines|Romania|Hungary|Serbia|"
    "Croatia|Uruguay|Fiji|Samoa|Tonga",
    "|",
)
EN_CLUBS = _words(
    "Arsenal|Chelsea|Liverpool|Everton|Tottenham|Newcastle|Aston Villa|Fulham|Southampton|Portsmouth|"
    "Middlesbrough|Bolton|Blackburn|Charlton|Birmingham|Manchester United|Manchester City|West Brom|"
    "Crystal Palace|Norwich|Leeds|Celtic|Rangers|Leicester|Wasps|Saracens|Bath|Gloucester|Sale",
    "|",
)
EN_FIRST = _words(
    "Tony|Gordon|Michael|John|David|Charles|Peter|Robin|Jack|Alan|Paul|Mark|Andrew|James|William|Robert|"
    "Richard|Thomas|George|Steven|Kevin|Chris|Martin|Simon|Ian|Tim|Patricia|Margaret|Tessa|Ruth|Clare|"
    "Hilary|Alistair|Oliver|Liam|Jose|Arsene|Roger|Andy|Tiger|Serena|Venus|Kelly|Paula|Jonny|Brian|"
    "Steve|Bill|George|Vladimir|Jacques|Gerhard|Silvio|Kofi|Ariel|Mahmoud|Condoleezza|Colin|Donald",
    "|",
)
EN_SURNAMES = _words(
    "Blair|Brown|Howard|Kennedy|Straw|Prescott|Blunkett|Clarke|Cook|Hain|Milburn|Reid|Hoon|Darling|"
    "Hewitt|Jowell|Letwin|Davis|Fox|Ancram|Morgan|Mourinho|Wenger|Ferguson|Benitez|Federer|Roddick|Henman|"
    "Murray|Woods|Williams|Holmes|Radcliffe|Wilkinson|Robinson|Gates|Jobs|Putin|Chirac|Schroeder|"
    "Berlusconi|Annan|Sharon|Abbas|Rice|Powell|Rumsfeld|Cheney|Kerry|Edwards|Evans|Taylor|Walker|Wright",
    "|",
)

SUBJECT_TYPES = ("country", "person", "place", "edition", "ordinal", "year")


def _first_common(found: list[str], rng: random.Random) -> str:
    counts = Counter(found)
    top = max(counts.values())
    return rng.choice(sorted(k for k, v in counts.items() if v == top))


def _other(choices: list[str] | tuple[str, ...], text: str, rng: random.Random) -> str | None:
    free = [c for c in choices if c not in text]
    return rng.choice(free) if free else None


def _replace(text: str, mapping: dict[str, str], words: bool = False) -> str:
    if not mapping:
        return text
    alts = "|".join(re.escape(k) for k in sorted(mapping, key=len, reverse=True))
    pattern = re.compile(rf"\b(?:{alts})\b" if words else alts)
    return pattern.sub(lambda m: mapping[m.group(0)], text)


def _alts(words: list[str] | tuple[str, ...]) -> str:
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


_ZH_COUNTRY_RE = re.compile(_alts(ZH_COUNTRIES))
_ZH_LEADER_RE = re.compile(_alts(ZH_LEADERS))
# a province as the story's subject (广东省, 新疆自治区, 上海代表团); Beijing is where most stories happen
_ZH_PROVINCE_RE = re.compile(
    rf"({_alts([p for p in ZH_PROVINCES if p != '北京'])})(?=省|自治区|代表团|市委|市政府)"
)
_ZH_OFFICIAL_RE = re.compile(
    rf"(?:{ZH_ROLES})([{ZH_SURNAMES}][\u4e00-\u9fff]{{1,2}}?)(?=严重|在|同|会见|表示|说|指出|主持|出席|等|、|，|。|（|涉嫌|接受|被)"
)
_ZH_EDITION_RE = re.compile(rf"({_alts(ZH_EDITIONS)})版")
_ZH_ORDINAL_RE = re.compile(rf"第(十?[{ZH_NUMS}]|\d+)(?=次|届)")
_ZH_YEAR_RE = re.compile(r"(?<!\d)((?:19|20)\d\d)(?=年)")
_EN_COUNTRY_RE = re.compile(rf"\b({_alts(EN_COUNTRIES)})\b")
_EN_CLUB_RE = re.compile(rf"\b({_alts(EN_CLUBS)})\b")
_EN_PERSON_RE = re.compile(rf"\b(?:{'|'.join(EN_FIRST)}) ([A-Z][a-z]+(?:-[A-Z][a-z]+)?)\b")
_EN_YEAR_RE = re.compile(r"(?<![\d£$€.,])((?:19[5-9]|20[0-2])\d)(?![\d,]|\.\d)")


def _zh_ordinal(s: str) -> int:
    if s.isdigit():
        return int(s)
    if s.startswith("十"):
        return 10 + (ZH_NUMS.index(s[1]) + 1 if len(s) > 1 else 0)
    return ZH_NUMS.index(s) + 1


def _zh_ordinal_str(n: int, digits: bool) -> str:
    if digits:
        return str(n)
    if n <= 10:
        return ZH_NUMS[n - 1]
    return "十" + ZH_NUMS[n - 11]


def find_subjects(text: str, lang: str) -> list[str]:
    """The subject types ``text`` holds (see :data:`SUBJECT_TYPES`)."""
    if lang == "zh":
        tests = {
            "country": _ZH_COUNTRY_RE,
            "person": None,
            "place": _ZH_PROVINCE_RE,
            "edition": _ZH_EDITION_RE,
            "ordinal": _ZH_ORDINAL_RE,
            "year": _ZH_YEAR_RE,
        }
        found = [k for k, rx in tests.items() if rx is not None and rx.search(text)]
        if _ZH_LEADER_RE.search(text) or _ZH_OFFICIAL_RE.search(text):
            found.append("person")
    else:
        tests_en = {"country": _EN_COUNTRY_RE, "place": _EN_CLUB_RE, "year": _EN_YEAR_RE}
        found = [k for k, rx in tests_en.items() if rx.search(text)]
        if _en_people(text):
            found.append("person")
    return [k for k in SUBJECT_TYPES if k in found]


def swap_one(text: str, kind: str, lang: str, rng: random.Random) -> tuple[str, list[str]]:
    """``text`` with one subject of type ``kind`` replaced wherever it appears (title and body are
    one text here: a title line first keeps them consistent); the edits say what became what."""
    fn: Callable[[str, random.Random], tuple[dict[str, str], str]] = (
        _ZH_SWAPS[kind] if lang == "zh" else _EN_SWAPS[kind]
    )
    mapping, label = fn(text, rng)
    if not mapping:
        return text, []
    return _replace(text, mapping, words=lang != "zh"), [f"subject_{kind}:{label}"]


def _zh_country(text: str, rng: random.Random) -> tuple[dict[str, str], str]:
    found = _ZH_COUNTRY_RE.findall(text)
    if not found:
        return {}, ""
    old = _first_common(found, rng)
    a = ZH_SHORT.get(old)
    if a is not None and ("中" + a in text or a + "方" in text):  # its short form too, by one with one
        shorts = [c for c, b in ZH_SHORT.items() if "中" + b not in text and b + "方" not in text]
        new = _other(shorts, text, rng)
        if new is None:
            return {}, ""
        b = ZH_SHORT[new]
        mapping = {old: new, "中" + a: "中" + b}
        if a not in _NO_FANG and b not in _NO_FANG:
            mapping[a + "方"] = b + "方"
        return mapping, f"{old}->{new}"
    new = _other(ZH_COUNTRIES, text, rng)
    return ({old: new}, f"{old}->{new}") if new else ({}, "")


def _zh_person(text: str, rng: random.Random) -> tuple[dict[str, str], str]:
    leaders = _ZH_LEADER_RE.findall(text)
    if leaders:
        old = _first_common(leaders, rng)
        new = _other(ZH_LEADERS, text, rng)
        return ({old: new}, f"{old}->{new}") if new else ({}, "")
    officials = _ZH_OFFICIAL_RE.findall(text)
    if not officials:
        return {}, ""
    old = _first_common(officials, rng)
    for _ in range(20):
        new = rng.choice(ZH_SURNAMES) + "".join(rng.sample(ZH_GIVEN, len(old) - 1))
        if new not in text:
            return {old: new}, f"{old}->{new}"
    return {}, ""


def _zh_place(text: str, rng: random.Random) -> tuple[dict[str, str], str]:
    found = _ZH_PROVINCE_RE.findall(text)
    if not found:
        return {}, ""
    old = _first_common(found, rng)
    new = _other(ZH_PROVINCES, text, rng)
    return ({old: new}, f"{old}->{new}") if new else ({}, "")


def _zh_edition(text: str, rng: random.Random) -> tuple[dict[str, str], str]:
    found = _ZH_EDITION_RE.findall(text)
    if not found:
        return {}, ""
    old = _first_common(found, rng)
    new = _other(ZH_EDITIONS, text, rng)
    return ({old + "版": new + "版"}, f"{old}->{new}") if new else ({}, "")


def _zh_ordinal_swap(text: str, rng: random.Random) -> tuple[dict[str, str], str]:
    found = sorted({m.group(0) for m in _ZH_ORDINAL_RE.finditer(text)})
    if not found:
        return {}, ""
    values = [_zh_ordinal(s[1:]) for s in found]
    step = 1 if min(values) == 1 or rng.random() < 0.7 else -1
    mapping: dict[str, str] = {}
    for s, v in zip(found, values, strict=True):
        n = v + step
        if not 1 <= n <= 20:
            return {}, ""
        mapping[s] = "第" + _zh_ordinal_str(n, s[1:].isdigit())
    return _ordinal_map_in_context(text, mapping), f"{step:+d}"


def _ordinal_map_in_context(text: str, mapping: dict[str, str]) -> dict[str, str]:
    # 第三 is replaced only before 次/届 (第三季度 stays): the keys carry the counter word
    out: dict[str, str] = {}
    for old, new in mapping.items():
        for unit in ("次", "届"):
            if old + unit in text:
                out[old + unit] = new + unit
    return out


def _years(rx: re.Pattern[str], text: str, rng: random.Random, suffix: str) -> tuple[dict[str, str], str]:
    found = sorted(set(rx.findall(text)))
    if not found:
        return {}, ""
    delta = rng.choice((-2, -1, 1, 1, 2))
    return {y + suffix: str(int(y) + delta) + suffix for y in found}, f"{delta:+d}"


def _zh_year(text: str, rng: random.Random) -> tuple[dict[str, str], str]:
    return _years(_ZH_YEAR_RE, text, rng, "年")


def _en_pick(
    rx: re.Pattern[str], choices: list[str] | tuple[str, ...]
) -> Callable[[str, random.Random], tuple[dict[str, str], str]]:
    def pick(text: str, rng: random.Random) -> tuple[dict[str, str], str]:
        found = rx.findall(text)
        if not found:
            return {}, ""
        old = _first_common(found, rng)
        new = _other(choices, text, rng)
        return ({old: new}, f"{old}->{new}") if new else ({}, "")

    return pick


_EN_NOT_FIRST = set(
    _words(
        "The A An In On At As But And For If It Its This That These Those He She They We His Her Their Mr Mrs Ms Dr "
        "Sir Lord Prime Minister President Chancellor Secretary Home Foreign Labour Tory Tories Conservative "
        "Liberal Democrats Democrat Republican New North South East West British English Scottish Welsh Irish "
        "European American Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March "
        "April May June July August September October November December BBC Radio News Premiership League "
        "Cup World Champions Grand Open Test Six Nations Royal National General Trade Representative "
        "Office Party Commission Union Council Court Bank Group Committee Association Department Ministry "
        "Agency Government Parliament Police Service Company Club Team Board Society Institute Square"
    )
)


_SAYS = "said|says|told|added|insisted|admitted|argued|believes|claimed|warned|explained|wrote"


def _en_people(text: str) -> list[str]:
    """Full names: a known first name and a surname, or two capitalised words whose second is a
    person's elsewhere (Marcel Desailly ... Desailly said, Mr Desailly)."""
    out = [m.group(0) for m in _EN_PERSON_RE.finditer(text)]
    for m in re.finditer(r"\b([A-Z][a-z]+) ([A-Z][a-z]{2,})\b", text):
        first, last = m.groups()
        if first in _EN_NOT_FIRST or last in _EN_NOT_FIRST or first in EN_COUNTRIES:
            continue
        if re.search(rf"\b(?:Mr|Mrs|Ms|Miss|Dr|Sir) {last}\b|\b{last},? (?:{_SAYS})\b", text):
            out.append(m.group(0))
    return out


def _en_person(text: str, rng: random.Random) -> tuple[dict[str, str], str]:
    found = _en_people(text)
    if not found:
        return {}, ""
    old = _first_common(found, rng)
    first, last = old.split(" ", 1)
    for _ in range(20):
        nf, nl = rng.choice(EN_FIRST), rng.choice(EN_SURNAMES)
        if nl not in text and nf != first:
            # the full name, then every later mention of the surname alone (Mr Blair, Blair said)
            return {old: f"{nf} {nl}", last: nl}, f"{old}->{nf} {nl}"
    return {}, ""


def _en_year(text: str, rng: random.Random) -> tuple[dict[str, str], str]:
    found = sorted(set(_EN_YEAR_RE.findall(text)))
    if not found:
        return {}, ""
    delta = rng.choice((-2, -1, 1, 1, 2))
    return {y: str(int(y) + delta) for y in found}, f"{delta:+d}"


_ZH_SWAPS: dict[str, Callable[[str, random.Random], tuple[dict[str, str], str]]] = {
    "country": _zh_country,
    "person": _zh_person,
    "place": _zh_place,
    "edition": _zh_edition,
    "ordinal": _zh_ordinal_swap,
    "year": _zh_year,
}
_EN_SWAPS: dict[str, Callable[[str, random.Random], tuple[dict[str, str], str]]] = {
    "country": _en_pick(_EN_COUNTRY_RE, EN_COUNTRIES),
    "person": _en_person,
    "place": _en_pick(_EN_CLUB_RE, EN_CLUBS),
    "year": _en_year,
}

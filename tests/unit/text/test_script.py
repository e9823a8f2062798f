"""Traditional script as OpenCC writes it: characters chosen inside phrases, and Taiwan phrasing."""

from __future__ import annotations

import random

import pytest

from neardup.match import compare_texts
from neardup.text.normalize import _fp_c, _Phrases, regional_phrases, t2s_map

# written for this test, converted with OpenCC 1.1 (s2t; s2twp)
SOURCE = (
    "市政府今天发布消息，了解到社区网络改造项目已经完成。项目负责人介绍，社区居民可以通过网络查询信息，"
    "也可以在社区服务中心了解项目进展。对于居民提出的问题，项目组将在三天内答复，并发布最新信息。"
    "下一步，社区将继续优化网络服务，让居民及时了解相关消息。"
)
S2T = (
    "市政府今天發佈消息，瞭解到社區網絡改造項目已經完成。項目負責人介紹，社區居民可以通過網絡查詢信息，"
    "也可以在社區服務中心瞭解項目進展。對於居民提出的問題，項目組將在三天內答覆，併發布最新信息。"
    "下一步，社區將繼續優化網絡服務，讓居民及時瞭解相關消息。"
)
S2TWP = (
    "市政府今天釋出訊息，瞭解到社群網路改造專案已經完成。專案負責人介紹，社群居民可以透過網路查詢資訊，"
    "也可以在社群服務中心瞭解專案進展。對於居民提出的問題，專案組將在三天內答覆，併發布最新資訊。"
    "下一步，社群將繼續最佳化網路服務，讓居民及時瞭解相關訊息。"
)

# written for this test, converted with opencc-python-reimplemented 0.1.7 (s2twp): words mainland
# texts also write stand for others (支援 for 支持, 資料 for 数据, 執行 for 运行, 裝置 for 设备)
DEVICE = (
    "公司今天发布声明，表示新一代智能终端已经开始运行。该设备支持高清视频通话，可以通过云端存储数据。"
    "公司负责人说，团队将继续支持用户反馈，并在下个月公布更多数据。业内人士认为，智能设备市场仍在增长，"
    "视频和数据服务是竞争重点。"
)
DEVICE_S2TWP = (
    "公司今天釋出宣告，表示新一代智慧終端已經開始執行。該裝置支援高畫質視訊通話，可以透過雲端儲存資料。"
    "公司負責人說，團隊將繼續支援使用者反饋，並在下個月公佈更多資料。業內人士認為，智慧裝置市場仍在增長，"
    "影片和資料服務是競爭重點。"
)


def test_characters_written_only_inside_phrases_fold_and_the_table_folds_once() -> None:
    t2s = t2s_map()
    assert "".join(t2s.get(c, c) for c in "瞭解答覆傢俱") == "了解答复家具"
    assert all(t2s.get(v, v) == v for v in t2s.values())  # folding twice changes nothing


def test_taiwan_phrases_are_read_back_only_in_traditional_texts() -> None:
    assert regional_phrases("臺灣網路資訊釋出") == "台湾网络信息发布"
    # a mainland text writing a Taiwan word, or a name in a traditional character, stays as it is
    assert regional_phrases("网路资讯平台上线") == "网路资讯平台上线"
    assert regional_phrases("退伍老兵王於昌，於昌说资讯很多") == "退伍老兵王於昌，於昌说资讯很多"
    assert regional_phrases("Plain ASCII text") == "Plain ASCII text"


def test_a_repost_converted_by_opencc_is_its_sources_copy() -> None:
    assert compare_texts(SOURCE, S2T).kind == "content"
    assert compare_texts(SOURCE, S2TWP).kind in ("content", "near")


def test_a_repost_in_another_house_style_writes_us_for_u_s() -> None:
    from neardup.text.normalize import abbreviations

    text = (
        "The US and the UK agreed on Monday to extend the trade talks, officials in Washington said. "
        "US negotiators will return to London next week, and the UK side expects a first draft of the "
        "agreement before the summer; the US Congress must approve any deal."
    )
    dotted = text.replace("US", "U.S.").replace("UK", "U.K.")
    assert abbreviations(dotted) == text
    assert compare_texts(text, dotted).kind == "content"


def test_phrases_both_scripts_write_are_read_as_one_in_every_chinese_text() -> None:
    """支援 and 支持, 資料 and 数据 are read as one wherever they stand, so a repost in Taiwan phrasing
    is its source's copy while a mainland text that writes 支援 itself still reads as its own copies."""
    assert regional_phrases("透過資料庫支援高階智慧執行") == regional_phrases("通过数据库支持高端智能运行")
    assert regional_phrases("医疗队支援武汉") == regional_phrases("医疗队支持武汉")
    # a name holding a phrase is read whole: 哈萨克斯坦 is not 哈萨克 + 斯坦
    assert regional_phrases("哈萨克斯坦总统") == regional_phrases("哈薩克總統，")[:-1]
    assert compare_texts(DEVICE, DEVICE_S2TWP).kind in ("content", "near")


def _phrase_texts(rng: random.Random, keys: list[str]) -> list[str]:
    filler = "的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过子说产种面而方后多定行学法所民得经十三之进着等部度家电力里如水化高自二理起小物现实加量都两体制机当使点从业本去把性好应开它合还因由其些然前外天政四日那社义事平形相全表间样与关各重新线内数正心反你明看原又么利比或但质气第向道命此变条只没结解问意建月公无系军很情者最立代想已通并提直题党程展五果料象员革位入常文总次品式活设及管特件长求老头基资边流路级少图山统接知较将组见计别她手角期根论运农指几九区强放决西被干做必战先回则任取据处理府研质信族题议"
    out = []
    for _ in range(200):
        parts = [
            rng.choice(keys) if rng.random() < 0.3 else rng.choice(filler)
            for _ in range(rng.randrange(0, 40))
        ]
        if rng.random() < 0.2:
            parts.insert(rng.randrange(len(parts) + 1), rng.choice(["😀", "é", "\U00020000"]))
        out.append("".join(parts))
    return out


@pytest.mark.skipif(_fp_c is None, reason="built without a C compiler")
def test_the_phrase_reader_in_c_reads_as_the_regular_expression() -> None:
    rng = random.Random(5)
    table = {
        "数据": "资料",
        "数据库": "资料库",
        "支援": "支持",
        "哈萨克": "哈萨克斯坦",
        "哈萨克斯坦": "哈萨克斯坦",
        "透过": "通过",
    }
    reader = _Phrases(table)
    keys = [*table, "数", "据", "哈萨", "斯坦", "支"]
    for text in [*_phrase_texts(rng, keys), "", "a", "数", "数据", "plain ascii", "数据数据库哈萨克斯坦"]:
        expected = reader.pattern.sub(lambda w: table[w.group()], text)
        assert _fp_c.phrases(text, reader.firsts, reader.pairs, table) == expected, text
    with pytest.raises(ValueError, match="8192 bytes"):
        _fp_c.phrases("数据", b"", reader.pairs, table)
    with pytest.raises(TypeError):  # a value that is not a str is refused, not written
        _fp_c.phrases("数据", reader.firsts, reader.pairs, {"数据": 1})
    with pytest.raises(ValueError, match="2 to 255"):
        _Phrases({"数": "资"})

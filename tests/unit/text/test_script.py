"""Traditional script as OpenCC writes it: characters chosen inside phrases, and Taiwan phrasing."""

from __future__ import annotations

from neardup.match import compare_texts
from neardup.text.normalize import regional_phrases, t2s_map

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

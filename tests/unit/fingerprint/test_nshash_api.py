"""NSHash as the seed uses it, plus what the seed lacks: persistent counters, merging, settings checks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from neardup.exceptions import ConfigError, InputError
from neardup.fingerprint.nshash import NSHash
from neardup.stores import open_store

ARTICLE = (
    "央视网消息（新闻联播）：今年以来，各地区各部门认真贯彻落实党中央决策部署，经济运行总体平稳。\n"
    "国家统计局今天发布数据显示，前三季度国内生产总值同比增长百分之五点二，增速在主要经济体中保持领先。"
    "分产业看，第一产业增加值同比增长百分之四，第二产业增加值增长百分之四点四，第三产业增加值增长百分之六。"
    "消费对经济增长的贡献率达到百分之八十三点二，继续发挥经济增长第一拉动力的作用。\n"
    "专家表示，随着一系列稳增长政策落地见效，经济回升向好的态势将进一步巩固，全年目标任务有望顺利完成。"
    "记者：张三。编辑：李四。"
)
OTHER = (
    "长江是中华民族的母亲河，也是中华民族发展的重要支撑，十年来沿江省市把修复长江生态环境摆在压倒性位置。"
    "长江经济带生态环境保护发生了转折性变化，经济社会发展取得了历史性成就，人民群众的获得感不断增强。"
)


def test_seed_api_memory_store_saves_under_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    nsh = NSHash(name="test", hashfunc="farmhash", hashdb="memory")
    similar_id = nsh.get_similar(ARTICLE)
    assert similar_id == 1
    nsh.close()
    assert (tmp_path / "test.hashdb.snap").exists()
    with NSHash(name="test", hashfunc="farmhash", hashdb="memory") as again:
        assert again.get_similar(OTHER) == 2  # the counter survived: no collision with 1
        assert again.get_similar(ARTICLE) == 1


def test_seed_api_leveldb_directory_is_name_dot_hashdb(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with NSHash(name="news", hashdb="leveldb") as nsh:
        assert nsh.get_similar_many([ARTICLE, OTHER, ARTICLE]) == [1, 2, 1]
    assert (tmp_path / "news.hashdb").is_dir()
    with NSHash(name="news", hashdb="leveldb") as nsh:
        assert nsh.get_similar(OTHER) == 2


@pytest.mark.parametrize(
    "edit",
    [
        lambda t: "【独家】" + t,  # a new title line
        lambda t: t.replace("记者：张三。编辑：李四。", "责任编辑：王五。"),  # editor changed
        lambda t: t.replace("百分之五点二", "5.2%"),  # a few characters edited
        lambda t: t.replace("国家统计局今天", "国家统计局日前").replace("专家表示", "有专家认为"),
        lambda t: t.replace("\n", "\n\n  "),  # re-wrapped, re-indented
    ],
)
def test_reposts_get_the_original_id(edit: object) -> None:
    with NSHash(hashdb="memory://") as nsh:
        original = nsh.get_similar(ARTICLE)
        assert nsh.get_similar(OTHER) != original
        assert nsh.get_similar(edit(ARTICLE)) == original  # type: ignore[operator]


def test_n1_is_the_longest_sentence_only() -> None:
    with NSHash(hashdb="memory://", n=1) as nsh:
        a = nsh.get_similar(ARTICLE)
        assert len(nsh.get_nshash(ARTICLE)) == 1
        # editing the longest sentence breaks n=1 ...
        edited = ARTICLE.replace("分产业看", "从产业来看")
        assert nsh.get_similar(edited) != a
    with NSHash(hashdb="memory://", n=5) as nsh5:
        a = nsh5.get_similar(ARTICLE)
        assert nsh5.get_similar(edited) == a  # ... n=5 still finds it


def test_a_document_bridging_two_groups_merges_them() -> None:
    s1 = "第一篇文章里有一句非常长的话，它的长度足够超过三十个字符的最低要求。"
    s2 = "第二篇文章里的另一句话同样非常长，长度也足够超过三十个字符的最低要求。"
    with NSHash(hashdb="memory://") as nsh:
        a, b = nsh.get_similar_many([s1, s2])
        assert (a, b) == (1, 2)
        assert nsh.get_similar(s1 + s2) == 1
        assert nsh.get_similar(s2) == 1  # any member returns the merged id from then on
        assert nsh.resolve([a, b]) == [1, 1]
        stats = nsh.stats()
        assert stats["groups"] == 1 and stats["aliases"] == 1 and stats["n"] == 5


def test_get_similar_many_equals_one_by_one() -> None:
    texts = [ARTICLE, OTHER, "短。", ARTICLE + OTHER, "短。", OTHER]
    with NSHash(hashdb="memory://", batch_size=2) as a, NSHash(hashdb="memory://") as b:
        assert a.get_similar_many(texts) == [b.get_similar(t) for t in texts]


def test_empty_text_raises_and_assigns_nothing() -> None:
    with NSHash(hashdb="memory://") as nsh:
        with pytest.raises(InputError):
            nsh.get_similar_many([ARTICLE, "  "])
        assert nsh.stats()["ids_assigned"] == 0  # the batch failed before touching the store
        assert nsh.get_similar(ARTICLE) == 1


def test_non_utf8_bytes_raise_input_error() -> None:
    with NSHash(hashdb="memory://") as nsh, pytest.raises(InputError, match="UTF-8"):
        nsh.get_similar(b"\xff\xfe bad")


def test_reopening_with_other_settings_is_refused(tmp_path: Path) -> None:
    url = f"file://{tmp_path}/snap"
    with NSHash(hashdb=url, n=5):
        pass
    with pytest.raises(ConfigError, match=r"n=5 \(you asked 3\)"):
        NSHash(hashdb=url, n=3)
    with pytest.raises(ConfigError, match="hashfunc"):
        NSHash(hashdb=url, hashfunc="xxh3")
    meta = json.loads(open_store(url).get_meta("nshash") or "{}")
    assert meta["n"] == 5 and meta["hashfunc"] == "md5"


def test_an_open_store_is_shared_and_left_open() -> None:
    store = open_store("memory://")
    with NSHash(hashdb=store) as nsh:
        nsh.get_similar(ARTICLE)
    assert store.stats()["ids_assigned"] == 1  # still open


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"hashdb": "mysql"}, "hashdb must be"),
        ({"hashdb": "mysql://x"}, "valid schemes"),
        ({"hashfunc": "sha1"}, "hashfunc"),
        ({"n": 0}, "between 1 and 255"),
        ({"name": ""}, "name"),
        ({"batch_size": 0}, "batch_size"),
    ],
)
def test_bad_arguments_raise_config_error(kwargs: dict[str, object], match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        NSHash(**{"hashdb": "memory://", **kwargs})  # type: ignore[arg-type]


def test_assign_keys_takes_precomputed_hashes() -> None:
    from neardup.fingerprint.nshash import sentence_hashes

    with NSHash(hashdb="memory://") as nsh:
        keys = [sentence_hashes(ARTICLE), sentence_hashes(OTHER)]
        assert nsh.assign_keys(keys) == [1, 2]
        assert nsh.get_similar(ARTICLE) == 1

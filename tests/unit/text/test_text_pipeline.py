from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

from neardup.exceptions import ConfigError, FormatError, InputError
from neardup.text import (
    IDFTable,
    auto_top_n,
    char_shingles,
    fit_idf,
    jieba_idf,
    load_idf,
    normalize,
    quantize,
    shingle_text,
    split_sentences,
    stopwords,
    tokenize_words,
    word_ngrams,
)


@pytest.mark.parametrize("module", ["normalize", "segment", "sentences", "stopwords", "weights", "__init__"])
def test_text_doctests_pass(module: str) -> None:
    name = "neardup.text" if module == "__init__" else f"neardup.text.{module}"
    result = doctest.testmod(importlib.import_module(name))
    assert result.failed == 0


def test_normalize_maps_full_width_to_half_width_and_lowercases() -> None:
    assert normalize("ＡＢＣ１２３，Ｄｅｆ！") == "abc123,def!"


def test_normalize_applies_nfkc_compatibility_forms() -> None:
    assert normalize("ﬁle ① ｶﾀｶﾅ") == "file 1 カタカナ"


def test_normalize_collapses_whitespace_and_ideographic_space() -> None:
    assert normalize("  a\u3000\u3000b\n\n\tc  ") == "a b c"
    assert normalize("a  b\n\n c", keep_newlines=True) == "a b\nc"


def test_normalize_strips_html_only_when_asked() -> None:
    html = "<div><script>var x=1;</script><p>新闻&amp;联播</p><!-- c --></div>"
    assert normalize(html, strip_html=True) == "新闻&联播"
    assert "<p>" in normalize(html)


def test_split_sentences_chinese_and_english() -> None:
    assert split_sentences("今天下雨了。明天呢？") == ["今天下雨了。", "明天呢？"]
    assert split_sentences("Dr. Who came. He left!") == ["Dr. Who came.", "He left!"]


def test_tokenize_words_segments_chinese_like_jieba_and_keeps_english_words() -> None:
    import jieba

    text = "我来到北京清华大学，参加了 Apache Hadoop 会议"
    expected = [t.lower() for t in jieba.lcut(text) if any(c.isalnum() for c in t)]
    assert tokenize_words(text) == expected
    assert tokenize_words(text, engine="jieba") == expected
    assert "hadoop" in tokenize_words(text)


def test_tokenize_words_rejects_unknown_engine() -> None:
    with pytest.raises(ConfigError, match="engine must be one of auto, rjieba, jieba"):
        tokenize_words("x", engine="thulac")


def test_char_shingles_overlapping_is_seed_003_overlapping_tokenizer() -> None:
    # chunk 4, overlap 3 == n=4, step=1 (every window, none dropped at the end)
    assert char_shingles("the cat", 4, 1) == ["the ", "he c", "e ca", " cat"]


def test_char_shingles_fixed_size_keeps_short_last_chunk_like_seed_003() -> None:
    assert char_shingles("abcdefghijk", n=5, step=5) == ["abcde", "fghij", "k"]


def test_char_shingles_short_and_empty_text() -> None:
    assert char_shingles("ab", n=4) == ["ab"]
    assert char_shingles("", n=4) == []


@pytest.mark.parametrize(
    ("n", "step", "message"),
    [
        (0, 1, r"shingle size n must be an integer between 1 and 127, got 0"),
        (128, 1, r"between 1 and 127, got 128"),
        (
            4,
            5,
            r"shingle step must be between 1 \(overlapping windows\) and n=4 \(fixed-size chunks\), got 5",
        ),
        (4, 0, r"got 0"),
    ],
)
def test_char_shingles_argument_errors_say_expected_and_got(n: int, step: int, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        char_shingles("abcdef", n=n, step=step)


def test_shingle_text_keeps_letters_and_digits_only() -> None:
    assert shingle_text("a_b, c-d 新闻。2024") == "abcd新闻2024"


def test_word_ngrams() -> None:
    assert word_ngrams(["a", "b", "c", "d"], 3) == ["a b c", "b c d"]
    assert word_ngrams(["a"], 2) == ["a"]
    assert word_ngrams([], 2) == []
    with pytest.raises(ConfigError, match="word n-gram size"):
        word_ngrams(["a"], 0)


def test_stopwords_shipped_for_both_languages() -> None:
    assert {"的", "了", "我们"} <= stopwords("zh")
    assert {"the", "and", "of"} <= stopwords("en")
    assert stopwords("all") == stopwords("zh") | stopwords("en")
    with pytest.raises(ConfigError):
        stopwords("fr")


def test_jieba_idf_table_is_loaded_from_the_installed_jieba() -> None:
    table = jieba_idf()
    assert len(table) > 100_000
    assert table["亚冠"] > table["中国"]
    assert table["no-such-word-xyz"] == table.default


def test_fit_idf_save_and_load_round_trip(tmp_path: Path) -> None:
    table, n = fit_idf([["新闻", "联播"], ["新闻"], ["天气"]])
    assert n == 3
    assert table["联播"] > table["新闻"]
    path = tmp_path / "idf.txt"
    table.save(path, docs=n)
    loaded = load_idf(path)
    assert loaded["联播"] == pytest.approx(table["联播"], abs=1e-6)
    assert loaded.default == pytest.approx(table.default)


def test_load_idf_errors_name_the_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="IDF table not found"):
        load_idf(tmp_path / "missing.txt")
    bad = tmp_path / "bad.txt"
    bad.write_text("word notanumber\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"bad.txt:1: idf must be a finite number >= 0"):
        load_idf(bad)
    for value in ("nan", "inf", "-5"):  # a weight that breaks every weighted sum
        bad.write_text(f"word {value}\n", encoding="utf-8")
        with pytest.raises(InputError, match=r"idf must be a finite number >= 0"):
            load_idf(bad)
    newer = tmp_path / "newer.txt"
    newer.write_text("# neardup idf v9\nword 1.0\n", encoding="utf-8")
    with pytest.raises(FormatError, match="unknown version"):
        load_idf(newer)


def test_idf_table_default_is_median() -> None:
    assert IDFTable({"a": 1.0, "b": 2.0, "c": 9.0}).default == 2.0


def test_quantize_five_levels_and_auto_top_n() -> None:
    assert quantize([1.0, 2.5, 5.0], levels=5) == [1, 3, 5]
    assert quantize([], levels=5) == []
    assert auto_top_n(0) == 16
    assert auto_top_n(10**9) == 256

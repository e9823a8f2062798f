"""How text becomes nshash keys: the numba scanner must cut exactly as split_sentences does."""

from __future__ import annotations

import hashlib
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup.exceptions import ConfigError, InputError
from neardup.fingerprint._nshash_keys import _Keyer
from neardup.fingerprint.hashing import get_hash64
from neardup.fingerprint.nshash import longest_sentences, sentence_hashes
from neardup.text.sentences import split_sentences

_WS = re.compile(r"[^\S\n]+")


def norm(s: str) -> str:
    """Whitespace runs -> one space; a space survives only between two ASCII characters."""
    out = " ".join(s.split())
    return "".join(
        ch for i, ch in enumerate(out) if ch != " " or (out[i - 1].isascii() and out[i + 1].isascii())
    )


def reference(text: str, n: int, min_chars: int) -> list[str]:
    """The definition, written plainly: split_sentences, normalized, n longest (ties in order)."""
    sents = [norm(s) for s in split_sentences(_WS.sub(" ", text))]
    sents = sorted(sents, key=len, reverse=True)[:n]
    picked = [s for s in sents if len(s) >= min_chars]
    return picked or [norm(text)]


ALPHABET = st.sampled_from(
    [
        *list("中文句子长短新闻报道。！？；!?;…”’」』）)\"'\n \t\u3000\xa0\r.abcXYZ 12"),
        "\ud800",
        "😀",
        "é",
        "\u2028",
    ]
)
TEXTS = st.text(ALPHABET, min_size=1, max_size=80).filter(lambda t: t.strip() != "")


@settings(max_examples=250, deadline=None)
@given(TEXTS, st.integers(1, 6), st.integers(0, 6))
def test_scanner_matches_split_sentences(text: str, n: int, min_chars: int) -> None:
    assert longest_sentences(text, n, min_chars) == reference(text, n, min_chars)


@settings(max_examples=60, deadline=None)
@given(st.lists(TEXTS, min_size=1, max_size=8), st.sampled_from(["md5", "xxh3"]))
def test_batch_keys_equal_per_text_keys(texts: list[str], hashfunc: str) -> None:
    keyer = _Keyer(3, hashfunc, 2)
    batch = keyer.keys_many(texts)
    h = get_hash64(hashfunc)
    for text, keys in zip(texts, batch, strict=True):
        assert keys == [h(s.encode("utf-8", "surrogatepass")) for s in reference(text, 3, 2)]


def test_whitespace_is_normalized_before_hashing() -> None:
    a = "这是一个用于测试空白字符处理的相当长的句子，它必须超过最小长度。"
    b = "这是一个用于测试空白字符  处理的相当长的句子，\t它必须超过最小长度。"
    c = "这是一个用于测试空白字符 处理的相当长的句子，\u3000它必须超过最小长度。"
    assert sentence_hashes(a) == sentence_hashes(b) == sentence_hashes(c)  # spaces in Chinese carry nothing
    assert longest_sentences(b) == [a]
    e1 = "The quick brown fox jumps over the lazy dog again!"
    e2 = "The  quick brown\u3000fox jumps over the lazy dog again!"
    assert longest_sentences(e2) == [e1]
    assert sentence_hashes(e1) == sentence_hashes(e2) != sentence_hashes(e1.replace(" ", ""))


def test_md5_keys_are_the_first_8_bytes_of_md5_of_utf8() -> None:
    s = "央视网消息：这是一个足够长的句子，用来检查哈希值是否与标准库的md5一致。"
    assert sentence_hashes(s) == [int.from_bytes(hashlib.md5(s.encode()).digest()[:8], "big")]


@pytest.mark.parametrize("hashfunc", ["md5", "farmhash", "xxh3", "murmur3"])
def test_every_hash_function_gives_64_bit_ints(hashfunc: str) -> None:
    keys = sentence_hashes(
        "一句足够长的话，用来检查每一种哈希函数都能得到整数。另一句也足够长，内容完全不同于前一句话。",
        hashfunc=hashfunc,
        min_sentence_chars=10,
    )
    assert len(keys) == 2 and all(0 <= k < 2**64 for k in keys)


def test_n_longest_longest_first_ties_in_text_order() -> None:
    text = "甲乙丙丁戊。一二三四。子丑寅卯辰。天地玄黄宇宙。"
    assert longest_sentences(text, n=3, min_sentence_chars=0) == [
        "天地玄黄宇宙。",
        "甲乙丙丁戊。",
        "子丑寅卯辰。",
    ]
    assert longest_sentences(text, n=1, min_sentence_chars=0) == ["天地玄黄宇宙。"]


def test_short_text_falls_back_to_the_whole_text() -> None:
    assert longest_sentences("你好。  谢谢！\n再见 ok  go") == ["你好。谢谢！再见ok go"]
    # two short texts sharing a stock phrase do not collide
    assert sentence_hashes("谢谢。你好。") != sentence_hashes("谢谢。再见。")


def test_english_text_uses_latin_sentence_ends() -> None:
    text = "Mr. Smith went to Washington yesterday afternoon. He paid 3.5 dollars for a very long coffee!"
    assert longest_sentences(text, n=2, min_sentence_chars=10) == [
        "Mr. Smith went to Washington yesterday afternoon.",
        "He paid 3.5 dollars for a very long coffee!",
    ]


@pytest.mark.parametrize("empty", ["", "   ", "\n\t\u3000"])
def test_empty_text_is_an_input_error(empty: str) -> None:
    with pytest.raises(InputError, match="empty"):
        sentence_hashes(empty)


def test_bytes_must_be_utf8() -> None:
    text = "这是一句足够长的中文句子，用来确认字节输入与字符串输入得到相同的哈希值。"
    assert sentence_hashes(text.encode()) == sentence_hashes(text)
    with pytest.raises(InputError, match="not UTF-8"):
        sentence_hashes(text.encode("gbk"))


def test_non_text_is_an_input_error() -> None:
    with pytest.raises(InputError, match="str or UTF-8 bytes"):
        sentence_hashes(123)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"n": 0}, "between 1 and 255"),
        ({"n": 256}, "between 1 and 255"),
        ({"min_sentence_chars": -1}, ">= 0"),
        ({"hashfunc": "sha1"}, "hashfunc must be one of"),
    ],
)
def test_bad_settings_are_config_errors(kwargs: dict[str, object], match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        sentence_hashes("文本。", **kwargs)  # type: ignore[arg-type]


def test_real_corpus_matches_the_reference(data_dir: object) -> None:
    import gzip
    import itertools
    from pathlib import Path

    import orjson

    with gzip.open(Path(str(data_dir)) / "zh-xwlb.jsonl.gz") as fh:
        texts = [orjson.loads(line)["text"] for line in itertools.islice(fh, 0, 20000, 10)]
    got = _Keyer(5, "md5", 30).sentences_many(texts)
    want = [reference(t, 5, 30) for t in texts]
    assert got == want
    h = get_hash64("md5")
    assert _Keyer(5, "md5", 30).keys_many(texts) == [[h(s.encode()) for s in ss] for ss in want]


def test_sentence_hashes_many_equals_one_call_per_text() -> None:
    from neardup.fingerprint.nshash import sentence_hashes_many

    texts = [
        "短。",
        "这是一个足够长的句子，长度超过三十个字符，用来检查批量接口的结果。重复。重复。",
        b"bytes ok.",
    ]
    assert sentence_hashes_many(texts, n=3) == [sentence_hashes(t, n=3) for t in texts]
    assert sentence_hashes_many([]) == []
    with pytest.raises(ConfigError):
        sentence_hashes_many(["x"], n=True)  # type: ignore[arg-type]

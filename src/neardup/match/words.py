"""Chinese words a rewrite swaps without changing what a text reports, as the text evidence reads them.

A substitution between two texts is a template's subject when it names another thing (智利 ->
印度尼西亚, 总统 -> 总理, 金牌 -> 银牌) and a rewrite when it says the same thing in other words (进行 ->
展开, 不断 -> 持续, 表示 -> 称: what rewriting sites, "伪原创", do wherever a word stands). The
evidence (``neardup.match.text``, ``_match_c``) tells them apart with two tables built here from
``data/words_zh.tsv`` (``tools/make_words_zh.py``: jieba's dictionary, its tags):

- ``WORD_KEYS``: the words of one to four characters, each as the hash of its characters' profile
  values (``word_key``), its lowest bit set when a rewrite may swap it (a verb, an adjective, an
  adverb, ...), clear for any other word (a noun, a name, a number), sorted;
- ``ANTONYM_KEYS``: pairs of characters that tell two events apart even inside words a rewrite
  may swap (开幕 and 闭幕, 上涨 and 下跌, 同意 and 反对), as ``lo << 32 | hi`` of their profile
  values, sorted. Written here by hand: no library lists them.

>>> bool(is_rewrite("进行", "展开")), bool(is_rewrite("总统", "总理")), bool(is_rewrite("上涨", "下跌"))
(True, False, False)
"""

from __future__ import annotations

from importlib.resources import files

import numpy as np

__all__ = ["ANTONYM_KEYS", "WORD_KEYS", "cjk_profile", "is_rewrite", "mix64", "word_key"]

_P = 0x9E3779B97F4A7C15
_M64 = (1 << 64) - 1


def mix64(x: int) -> int:
    """splitmix64's finalizer on a Python int, as the signature kernels' ``smix`` computes it (for
    tables of tokens built at import)."""
    x &= _M64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _M64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _M64
    return x ^ (x >> 31)


def cjk_profile(c: str) -> int:
    """A CJK character's profile value without its flags: its token (its code point plus a constant,
    mixed), top 28 bits."""
    return mix64(ord(c) + _P) >> 36


def word_key(word: str) -> int:
    """The hash of a word's characters as the evidence computes it from a profile (lowest bit clear)."""
    h = 1
    for c in word:
        h = (h * _P + cjk_profile(c)) & _M64
    return h & ~1


def _profiles(cps: np.ndarray) -> np.ndarray:
    """``cjk_profile`` of many code points at once (uint64 arithmetic wraps as the kernels' does)."""
    x = cps.astype(np.uint64) + np.uint64(_P)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    out: np.ndarray = (x ^ (x >> np.uint64(31))) >> np.uint64(36)
    return out


def _word_keys() -> np.ndarray:
    text = files("neardup").joinpath("data/words_zh.tsv").read_text(encoding="utf-8")
    rows = [r for r in text.splitlines() if r and r[0] != "#"]
    words = [r[:-2] for r in rows]  # "word\tw" or "word\tn"
    rewrite = np.fromiter((r[-1] == "w" for r in rows), np.bool_, len(rows))
    # the words' code points in a table padded with 0, hashed column by column (``word_key``)
    longest = max(map(len, words))
    padded = "".join(w.ljust(longest, "\0") for w in words).encode("utf-32-le")
    prof = _profiles(np.frombuffer(padded, np.uint32).reshape(len(words), longest))
    lengths = np.fromiter(map(len, words), np.int64, len(words))
    h = np.ones(len(words), np.uint64)
    with np.errstate(over="ignore"):
        for j in range(longest):
            h = np.where(j < lengths, h * np.uint64(_P) + prof[:, j], h)
    return np.unique((h & ~np.uint64(1)) | rewrite.astype(np.uint64))


# each pair: two characters that name opposite things (opening and closing, rising and falling,
# for and against, won and lost, men and women, ...)
_ANTONYMS = (
    "开闭 上下 涨跌 升降 增减 增降 涨降 升跌 涨落 起落 增跌 提降 提减 扩缩 多少 高低 大小 长短 轻重 快慢 "
    "进出 入出 进退 来去 前后 先后 早晚 迟早 首末 始终 胜负 胜败 胜输 赢输 赢负 成败 得失 获失 盈亏 买卖 "
    "收支 正负 加减 生死 存亡 新旧 内外 好坏 优劣 强弱 老少 冷热 同反 赞反 准否 批否 通否 可否 能否 当落 "
    "出缺 已未 是非 有无 真假 男女 东西 南北 左右 宽窄 深浅 远近 利弊 攻守 明暗 聚散 离合 春秋 冬夏 升贬"
)


def _antonym_keys() -> np.ndarray:
    keys = set()
    for pair in _ANTONYMS.split():
        lo, hi = sorted((cjk_profile(pair[0]), cjk_profile(pair[1])))
        keys.add(lo << 32 | hi)
    return np.array(sorted(keys), np.uint64)


WORD_KEYS: np.ndarray = _word_keys()
ANTONYM_KEYS: np.ndarray = _antonym_keys()


def is_rewrite(a: str, b: str) -> bool:
    """True when both are words a rewrite may swap and no pair of their characters names opposites
    (what the evidence asks of a substitution once it has found the words it lies in)."""

    def word(w: str) -> bool:
        i = np.searchsorted(WORD_KEYS, np.uint64(word_key(w) | 1))
        return bool(i < WORD_KEYS.shape[0] and WORD_KEYS[i] == word_key(w) | 1)

    def opposite(x: str, y: str) -> bool:
        lo, hi = sorted((cjk_profile(x), cjk_profile(y)))
        i = np.searchsorted(ANTONYM_KEYS, np.uint64(lo << 32 | hi))
        return bool(i < ANTONYM_KEYS.shape[0] and ANTONYM_KEYS[i] == lo << 32 | hi)

    return word(a) and word(b) and not any(opposite(x, y) for x in a for y in b)

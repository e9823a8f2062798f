"""The numba kernels of ``match.signature``: the fallback when the C extension ``_fp_c`` was not
built (no C compiler at install). Bit for bit what ``_fp_c`` computes (tested on random texts and
the corpora); the algorithm is described in ``match.signature``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit, prange

from neardup.fingerprint._fast_numba import majority_bits
from neardup.match.words import mix64

_P = np.uint64(0x9E3779B97F4A7C15)
_FNV = np.uint64(0x100000001B3)
_FNV0 = np.uint64(0xCBF29CE484222325)


@njit(cache=True, inline="always")
def _mix(x: np.uint64) -> Any:  # pragma: no cover - splitmix64's finalizer
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


@njit(cache=True, inline="always")
def _is_cjk(cp: int) -> bool:  # pragma: no cover
    return (
        (0x4E00 <= cp <= 0x9FFF)
        or (0x3400 <= cp <= 0x4DBF)
        or (0x3040 <= cp <= 0x30FF)
        or (0xAC00 <= cp <= 0xD7A3)
        or (0xF900 <= cp <= 0xFAFF)
        or (0x20000 <= cp <= 0x3134F)
    )


@njit(cache=True, inline="always")
def _is_cjk_numeral(cp: int) -> bool:  # pragma: no cover - 〇一二三四五六七八九十百千万亿两
    return (
        cp == 0x3007
        or cp == 0x4E00
        or cp == 0x4E8C
        or cp == 0x4E09
        or cp == 0x56DB
        or cp == 0x4E94
        or cp == 0x516D
        or cp == 0x4E03
        or cp == 0x516B
        or cp == 0x4E5D
        or cp == 0x5341
        or cp == 0x767E
        or cp == 0x5343
        or cp == 0x4E07
        or cp == 0x4EBF
        or cp == 0x4E24
    )


@njit(cache=True, inline="always")
def _is_occasion_unit(tok: np.uint64) -> bool:  # pragma: no cover - 年 月 日 号 届 次 期 周
    return bool(
        tok == _mix(np.uint64(0x5468) + _P)
        or tok == _mix(np.uint64(0x5E74) + _P)
        or tok == _mix(np.uint64(0x6708) + _P)
        or tok == _mix(np.uint64(0x65E5) + _P)
        or tok == _mix(np.uint64(0x53F7) + _P)
        or tok == _mix(np.uint64(0x5C4A) + _P)
        or tok == _mix(np.uint64(0x6B21) + _P)
        or tok == _mix(np.uint64(0x671F) + _P)
    )


def _word_token(word: str) -> int:
    """A word's token as the kernel hashes it (FNV-1a over its letters, then splitmix64's finalizer)."""
    h = int(_FNV0)
    for c in word.encode("ascii"):
        h = ((h ^ c) * int(_FNV)) & ((1 << 64) - 1)
    return mix64(h)


#: the tokens of the weekdays, then of the months (but "may", a verb as often): a weekday or a month
#: among words names an occasion (``_fp_c.c``'s CALENDAR); a day of the month does not, so a FAQ's
#: new version dated ten days later is still its copy
_CALENDAR = np.array(
    [
        _word_token(w)
        for w in (
            *("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"),
            *("january", "february", "march", "april", "june", "july", "august"),
            *("september", "october", "november", "december"),
        )
    ],
    np.uint64,
)


@njit(cache=True, inline="always")
def _calendar_word(tok: np.uint64) -> bool:  # pragma: no cover
    found = False
    for i in range(_CALENDAR.shape[0]):
        found = found or tok == _CALENDAR[i]
    return found


@njit(cache=True, inline="always")
def _occasion_kind(tok: np.uint64, di: np.uint64) -> Any:  # pragma: no cover
    """An occasion unit's kind: 号 is a day as 日 is, 届 次 期 are ordinals as 第 (``di``) is."""
    if tok == _mix(np.uint64(0x53F7) + _P):
        return _mix(np.uint64(0x65E5) + _P)
    for ordinal in (0x5C4A, 0x6B21, 0x671F):
        if tok == _mix(np.uint64(ordinal) + _P):
            return di
    return tok


#: British and American spellings read as one word: (core, replacement, shortest stem, endings), the
#: rules of ``_fp_c.c``'s SPELL in its order (see there)
SPELLING: tuple[tuple[str, str, int, tuple[str, ...]], ...] = (
    (
        "our",
        "or",
        3,
        (
            "",
            "s",
            "y",
            "ed",
            "ing",
            "ful",
            "ite",
            "ites",
            "able",
            "ably",
            "er",
            "ers",
            "hood",
            "hoods",
            "al",
            "less",
        ),
    ),
    ("is", "iz", 4, ("e", "es", "ed", "ing", "ation", "ations", "er", "ers")),
    ("ys", "yz", 3, ("e", "es", "ed", "ing", "er", "ers")),
    ("tred", "tered", 3, ("",)),
    ("tre", "ter", 3, ("", "s")),
    ("bre", "ber", 3, ("", "s")),
    ("ogue", "og", 3, ("", "s")),
    ("ell", "el", 3, ("ed", "ing", "er", "ers")),
    ("programme", "program", 0, ("", "s")),
    ("jewellery", "jewelry", 0, ("",)),
    ("defence", "defense", 0, ("", "s")),
    ("offence", "offense", 0, ("", "s")),
    ("pretence", "pretense", 0, ("", "s")),
    ("licence", "license", 0, ("", "s")),
)
_WORD_MAX = 32


def _spelling_table() -> tuple[np.ndarray, np.ndarray]:
    """SPELLING as arrays: the characters, and per (rule, ending) in order the offsets and lengths
    of its core, replacement and ending, and its shortest stem."""
    chars: list[int] = []
    rows: list[list[int]] = []

    def put(text: str) -> tuple[int, int]:
        chars.extend(text.encode("ascii"))
        return len(chars) - len(text), len(text)

    for core, repl, stem, ends in SPELLING:
        for end in ends:
            rows.append([*put(core), *put(repl), stem, *put(end)])
    return np.array(chars, np.uint8), np.array(rows, np.int64)


_SPELL_CHARS, _SPELL_ROWS = _spelling_table()


@njit(cache=True, nogil=True)
def _fold_spelling(w: np.ndarray, n: int) -> int:  # pragma: no cover
    """The word ``w[:n]`` rewritten in place by the first rule that applies: its new length, or -1."""
    chars = _SPELL_CHARS
    rows = _SPELL_ROWS
    for r in range(rows.shape[0]):
        co, cl, ro, rl, st, eo, el = rows[r]
        stem = n - cl - el
        if stem < st or stem < 0:
            continue
        ok = True
        for x in range(cl):
            if w[stem + x] != chars[co + x]:
                ok = False
                break
        for x in range(el):
            if not ok:
                break
            if w[stem + cl + x] != chars[eo + x]:
                ok = False
        if not ok:
            continue
        tail = w[stem + cl : stem + cl + el].copy()
        for x in range(rl):
            w[stem + x] = chars[ro + x]
        for x in range(el):
            w[stem + rl + x] = tail[x]
        return int(stem + rl + el)
    return -1


#: the outermost quotation marks' text of at least this many code points is quoted (_quote_marks)
_QUOTE_MARKED = 30
#: straight double quotes mark speech and titles as well: only a passage this long is quoted
_QUOTE_STRAIGHT = 200


@njit(cache=True, inline="always")
def _quote_open(cp: int) -> bool:  # pragma: no cover - “ 「 『
    return cp == 0x201C or cp == 0x300C or cp == 0x300E


@njit(cache=True, inline="always")
def _quote_close(cp: int) -> bool:  # pragma: no cover - ” 」 』
    return cp == 0x201D or cp == 0x300D or cp == 0x300F


@njit(cache=True, nogil=True)
def _quote_line(cps: np.ndarray, i: int, hi: int) -> bool:  # pragma: no cover
    """A line that mail and news readers quote: its first character (after spaces) is ">", "|" or
    "#"; ":" before a space, a tab, ">" or the line's end; or a writer's initials before ">"
    ("MJM>")."""
    c = int(cps[i])
    if c == 62 or c == 124 or c == 35:
        return True
    if c == 58:
        n = int(cps[i + 1]) if i + 1 < hi else 10
        return n == 32 or n == 9 or n == 62 or n == 10 or n == 13
    k = i
    while k < hi and k < i + 5 and 97 <= (int(cps[k]) | 32) <= 122:
        k += 1
    return k > i and k < i + 5 and k < hi and int(cps[k]) == 62


@njit(cache=True, nogil=True)
def _quote_marks(cps: np.ndarray, lo: int, hi: int) -> np.ndarray:  # pragma: no cover
    """Per code point of ``lo:hi`` (plus one): inside the outermost pair of quotation marks (“” 「」
    『』, nested pairs inside) that holds at least ``_QUOTE_MARKED`` code points, or a pair of
    straight double quotes around ``_QUOTE_STRAIGHT`` or more, quoted text as a line quoted with
    ">" is (a commentary quoting a notice). A paragraph that opens with a mark inside an open
    quotation continues it (Chinese and English typesetting open every paragraph of a long
    quotation)."""
    marked = np.zeros(hi - lo + 1, np.bool_)
    depth = 0
    start = 0
    # straight double quotes, outside curly ones, pair up in turn; a paragraph opening with one
    # inside an open quotation continues it (English typesetting), and a quotation left open at a
    # paragraph that does not continue it ends with the paragraph before
    straight = -1
    para_end = -1
    line_start = True
    for i in range(lo, hi):
        cp = int(cps[i])
        space = cp == 10 or cp == 13 or cp == 32 or cp == 9 or cp == 0x3000
        if straight >= 0 and para_end >= 0 and not space:
            if cp != 0x22:
                if para_end - straight - 1 >= _QUOTE_STRAIGHT:
                    marked[straight + 1 - lo : para_end - lo] = True
                straight = -1
            para_end = -1
        if cp == 0x22 and depth == 0:
            if straight < 0:
                straight = i
            elif not line_start:
                if i - straight - 1 >= _QUOTE_STRAIGHT:
                    marked[straight + 1 - lo : i - lo] = True
                straight = -1
        elif cp == 10 and straight >= 0 and para_end < 0:
            para_end = i
        if _quote_open(cp):
            if depth == 0:
                start = i
                depth = 1
            elif not line_start:
                depth += 1
        elif _quote_close(cp) and depth > 0:
            depth -= 1
            if depth == 0 and i - start - 1 >= _QUOTE_MARKED:
                marked[start + 1 - lo : i - lo] = True
        line_start = cp == 10 or (line_start and (cp == 32 or cp == 9 or cp == 0x3000))
    if straight >= 0:
        end = para_end if para_end >= 0 else hi
        if end - straight - 1 >= _QUOTE_STRAIGHT:
            marked[straight + 1 - lo : end - lo] = True
    return marked


@njit(cache=True, nogil=True)
def _one(
    cps: np.ndarray,
    lo: int,
    hi: int,
    table: np.ndarray,
    n: int,
    k: int,
    m: int,
    d: int,
    out: tuple[np.ndarray, ...],
) -> None:  # pragma: no cover
    """Document ``d`` (code points ``lo:hi``) into the ``_outputs`` arrays; its profile goes to the
    profile buffer from ``lo + d`` on (a document has at most one token per code point, plus one)."""
    content, simhash, size, ntok, sketch, nums, prof = out
    base = lo + d
    toks = np.empty(hi - lo + 1, np.uint64)
    cjks = np.zeros(hi - lo + 1, np.bool_)
    numeric = np.zeros(hi - lo + 1, np.int8)  # 1: digits, 2: a Chinese numeral
    quoted = np.zeros(hi - lo + 1, np.bool_)  # on a line quoted with ">", "|" or "#" (mail, forums)
    marked = _quote_marks(cps, lo, hi)  # ... or inside long quotation marks
    # tokens: one per CJK character, one per run of other letters and digits
    nt = 0
    h = _FNV0
    in_run = False
    digits = True
    line_start = True
    in_quote = False
    run_quote = False
    word = np.empty(_WORD_MAX + 8, np.uint8)
    wl = 0
    nd = 0  # digits in the run, and the value of its first four: a year (1900-2099) is an occasion
    yv = 0
    for i in range(lo, hi + 1):
        cp = int(cps[i]) if i < hi else 32
        if cp == 10:
            line_start = True
            in_quote = False
        elif line_start and cp != 32 and cp != 9:
            line_start = False
            in_quote = _quote_line(cps, i, hi)
        if cp < 0x10000:
            cp = int(table[cp])
        cjk = _is_cjk(cp)
        if cp != 0 and not cjk and (cp < 0x10000 or cp > 0x3134F):
            if not in_run:
                h = _FNV0
                in_run = True
                digits = True
                run_quote = in_quote or marked[i - lo]
                wl = 0
                nd = 0
                yv = 0
            h = (h ^ np.uint64(cp)) * _FNV
            if cp < 48 or cp > 57:
                digits = False
            else:
                if nd < 4:
                    yv = yv * 10 + (cp - 48)
                nd += 1
            if wl >= 0:
                if 97 <= cp <= 122 and wl < _WORD_MAX:
                    word[wl] = cp
                    wl += 1
                else:
                    wl = -1
            continue
        if in_run:
            folded = _fold_spelling(word, wl) if wl >= 5 else -1
            if folded >= 0:
                h = _FNV0
                for x in range(folded):
                    h = (h ^ np.uint64(word[x])) * _FNV
            toks[nt] = _mix(h)
            numeric[nt] = (3 if nd == 4 and 1900 <= yv <= 2099 else 1) if digits else 0
            quoted[nt] = run_quote
            nt += 1
            in_run = False
        if cjk:
            toks[nt] = _mix(np.uint64(cp) + _P)
            numeric[nt] = 2 if _is_cjk_numeral(cp) else 0
            cjks[nt] = True
            quoted[nt] = in_quote or marked[i - lo]
            nt += 1
    ntok[d] = nt
    # the text profile: each token's hash (28 bits), whether it is a CJK character (the top bit),
    # whether it is a number that names an occasion (bit 30: a year, a date, an edition or session
    # number: digits before 年 月 日 号 届 次 期 周, or after 第 but for 第一时间 and 第N个), which a template's
    # next story changes, whether it sits on a quoted line (bit 29), and whether it is a number (bit 28)
    for t in range(nt):
        v = np.uint32(toks[t] >> np.uint64(36)) | (np.uint32(0x80000000) if cjks[t] else np.uint32(0))
        if quoted[t]:
            v |= np.uint32(0x20000000)
        if numeric[t] == 1 or numeric[t] == 3:
            v |= np.uint32(0x10000000)
            # an occasion number is hashed with its unit's kind, so the 4 of 4次 is not the 4 of 3月4日: an ordinal (届 次 期, or after 第: 第十四届, 十四届 and a typo's
            # 第十四界 are one number), a year, a month, a day (日 号), a week; 第一时间 ("at once")
            # and 第一个 ("the first one": 第二个百年奋斗目标) name no occasion; a year among words (2004,
            # neither neighbour a CJK character) is a year as 2004年 is
            unit = np.uint64(0)
            di = _mix(np.uint64(0x7B2C) + _P)
            at_once = t + 1 < nt and (
                toks[t + 1] == _mix(np.uint64(0x65F6) + _P) or toks[t + 1] == _mix(np.uint64(0x4E2A) + _P)
            )
            if t + 1 < nt and _is_occasion_unit(toks[t + 1]):
                unit = _occasion_kind(toks[t + 1], di)
            elif t > 0 and toks[t - 1] == di and not at_once:
                unit = di
            elif numeric[t] == 3 and not (t + 1 < nt and cjks[t + 1]) and not (t > 0 and cjks[t - 1]):
                unit = _mix(np.uint64(0x5E74) + _P)
            if unit != 0:
                v = (v & np.uint32(0xB0000000)) | np.uint32(_mix(toks[t] * _P + unit) >> np.uint64(36))
                v |= np.uint32(0x40000000)
        elif not cjks[t] and _calendar_word(toks[t]):
            v |= np.uint32(0x40000000)
        prof[base + t] = v
    if nt == 0:
        return
    c = np.uint64(0)
    for t in range(nt):
        c = c * _P + toks[t]
    content[d] = _mix(c)
    # windows of n tokens (the whole text when shorter)
    last = nt - n if nt >= n else 0
    wins = np.empty(last + 1, np.uint64)
    for s in range(last + 1):
        w = np.uint64(0)
        for t in range(s, min(s + n, nt)):
            w = w * _P + toks[t]
        wins[s] = _mix(w ^ np.uint64(n))
    u = np.unique(wins)
    size[d] = u.shape[0]
    simhash[d] = majority_bits(u, 64) if u.shape[0] else np.uint64(0)
    for j in range(min(k, u.shape[0])):
        sketch[d, j] = np.uint32(u[j] >> np.uint64(32))
    # number facts: a run of digits, or of Chinese numerals, keyed by the tokens around it
    if m > 0:
        nf = 0
        for t in range(nt):
            if numeric[t] != 0 and (t == 0 or numeric[t - 1] != 2 or numeric[t] != 2):
                nf += 2
        if nf:
            facts = np.empty(nf, np.uint64)
            nf = 0
            t = 0
            while t < nt:
                if numeric[t] == 0:
                    t += 1
                    continue
                e = t + 1
                v = toks[t]
                if numeric[t] == 2:
                    while e < nt and numeric[e] == 2:
                        v = v * _P + toks[e]
                        e += 1
                before = toks[t - 1] if t > 0 else np.uint64(1)
                after = toks[e] if e < nt else np.uint64(2)
                after2 = toks[e + 1] if e + 1 < nt else np.uint64(3)
                value = _mix(v) >> np.uint64(32)
                # two contexts: the tokens on both sides, and the two tokens after (a unit and
                # what follows it: "9日下午" and "8日下午" meet there whatever came before)
                key = _mix(before * _P + after) >> np.uint64(32)
                facts[nf] = (key << np.uint64(32)) | value
                key = _mix((after * _P + after2) ^ _P) >> np.uint64(32)
                facts[nf + 1] = (key << np.uint64(32)) | value
                nf += 2
                t = e
            f = np.unique(facts[:nf])
            for j in range(min(m, f.shape[0])):
                nums[d, j] = f[j]


@njit(cache=True, nogil=True)
def _outputs(nd: int, k: int, m: int, ncp: int) -> tuple[np.ndarray, ...]:  # pragma: no cover
    """content, simhash, size, tokens, sketch, numbers, and the profile buffer (``ncp`` code points)."""
    return (
        np.zeros(nd, np.uint64),
        np.zeros(nd, np.uint64),
        np.zeros(nd, np.int32),
        np.zeros(nd, np.int32),
        np.full((nd, k), np.uint32(0xFFFFFFFF), np.uint32),
        np.full((nd, max(m, 1)), np.uint64(0xFFFFFFFFFFFFFFFF), np.uint64),
        np.empty(ncp + nd, np.uint32),
    )


# every core for a batch; one thread for a few documents (waking a thread pool costs milliseconds).
# Two functions, not one factory: numba's cache keys a function by its name and source, so two
# compilations of one function with other flags would share (and overwrite) one cache entry.
@njit(cache=True, nogil=True, parallel=True)
def _signature_kernel(
    cps: np.ndarray, offsets: np.ndarray, table: np.ndarray, n: int, k: int, m: int
) -> tuple[np.ndarray, ...]:  # pragma: no cover
    nd = offsets.shape[0] - 1
    out = _outputs(nd, k, m, cps.shape[0])
    for d in prange(nd):
        _one(cps, offsets[d], offsets[d + 1], table, n, k, m, d, out)
    return out


@njit(cache=True, nogil=True)
def _signature_kernel_serial(
    cps: np.ndarray, offsets: np.ndarray, table: np.ndarray, n: int, k: int, m: int
) -> tuple[np.ndarray, ...]:  # pragma: no cover
    nd = offsets.shape[0] - 1
    out = _outputs(nd, k, m, cps.shape[0])
    for d in range(nd):
        _one(cps, offsets[d], offsets[d + 1], table, n, k, m, d, out)
    return out


@njit(cache=True, nogil=True)
def _compact_profiles(
    prof: np.ndarray, offsets: np.ndarray, ntok: np.ndarray, cap: int
) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover
    """Each document's first ``cap`` profile tokens, packed: (pointers, values)."""
    nd = ntok.shape[0]
    ptr = np.zeros(nd + 1, np.int64)
    for d in range(nd):
        ptr[d + 1] = ptr[d] + min(ntok[d], cap)
    out = np.empty(ptr[nd], np.uint32)
    for d in range(nd):
        base = offsets[d] + d
        out[ptr[d] : ptr[d + 1]] = prof[base : base + ptr[d + 1] - ptr[d]]
    return ptr, out


@njit(cache=True, nogil=True)
def _gather_profiles(
    ptr: np.ndarray, prof: np.ndarray, rows: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover
    out_ptr = np.zeros(rows.shape[0] + 1, np.int64)
    for t in range(rows.shape[0]):
        out_ptr[t + 1] = out_ptr[t] + ptr[rows[t] + 1] - ptr[rows[t]]
    out = np.empty(out_ptr[-1], np.uint32)
    for t in range(rows.shape[0]):
        out[out_ptr[t] : out_ptr[t + 1]] = prof[ptr[rows[t]] : ptr[rows[t] + 1]]
    return out_ptr, out

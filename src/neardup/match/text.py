"""Text evidence for a candidate pair: what each text adds to the other, and how they differ.

Sketches say how much two texts share; a person deciding whether two texts are one document looks
at **what differs**. For a pair the engine reads both texts through their profiles (each token's
hash, in text order: ``Signatures.profile``) and measures:

- **adds**: the text of each side that the other does not cover. A token is covered when one of
  the windows of ``w`` tokens holding it also occurs in the other text (``w`` = 8 for Chinese, 4
  words otherwise: the n-grams a reader's eye matches, and the measure of
  ``../shared/tools/new_material.py``). A typo leaves its neighbours covered, so scattered single
  edits add almost nothing, while a reply's own paragraphs, a commentary's argument or a dropped
  paragraph add all their text. Typos closer together than a window leave a run uncovered on both
  sides: two such facing runs that are one text with single tokens (or pairs) changed, dropped or
  added are aligned (a longest common subsequence), and their tokens in common count as covered.
  Counted in characters: a CJK token is one, another token (a word, a number) counts
  ``LATIN_UNITS``;
- **passage**: the longest run of covered text, the shared passage a "partial" report points to;
- **substitutions**: an uncovered run in one text that sits between the same two shared windows
  as an uncovered run in the other (one span replaced by another, not added or dropped), counted
  when short (a name, a number, a date, an edition's language);
- **occasion**: both texts hold a year, a date or an edition / session number the other never holds
  (digits before 年 月 日 号 届 次 期 周, or after 第): the next year's ceremony, the fourth meeting
  after the third, another day's figures; among words (a text mostly not CJK) a year (2004, 1900 to
  2099), a weekday or a month (not "may") is one too, but names another occasion only when one
  stands in place of the other's (a dateline or a cut end gives one copy years of its own); 2 when one such number also replaces
  the other in place (a short substitution of an occasion number on both sides: 第59次 -> 第61次),
  or when the shorter text tells another phase of a visit than the longer (a marker of its own
  that the longer never holds: 将于 将赴 将出席 将率 in an announcement, 离京 in a departure, 抵达
  in an arrival: a visit announced, then reported), or when figures replace figures in place in
  three places or more, more than the figures both hold (another day's market report); 3 when
  either text, in its own words, is the
  reactions to what the other reports (反响, never in the other);
- **quoted**: shared text that one side sets on quoted lines (``>``, ``|`` or ``#`` first, ``:``
  before a space, or initials before ``>`` as in ``MJM>``: as mail, news and forums quote): a reply
  quoting its parent, not a copy of it;
- **blocks**: the longest uncovered run of each text (its largest block of its own) and the
  number of separate shared runs it holds: a reply, a commentary or a round-up holds the other
  text as one or two quoted blocks beside a block of its own, while an abridged telling of the
  same report shares many short runs scattered through the fuller one;
- **repeated**: terms (a word, or two CJK characters) that one text holds in two or more of its
  uncovered runs and the other never holds, counted on both sides (the smaller count): the same
  template told of another subject replaces the subject wherever it appears (智利 -> 印度尼西亚,
  博里奇 -> 佐科), while a repost's typos, dateline and corrected figure do not repeat;
- **substituted**: the characters of each side's short substitutions. Many of them scattered
  through a text (look-alike or homophone characters, a repost's typos: ``scattered_edits`` or
  more) are edits, not text of its own, so they do not count in what a copy adds;
- **alike substitutions**: the same span replaced by the same other span in two or more places
  (法 -> 俄 in 法文版 and 法文 of an edition notice): the subject of a template, even when the
  new text also names the old subject elsewhere (a list of earlier editions); a function
  character replaced (他 -> 习近平: a pronoun rewritten as the name) is an edit, and so is a verb,
  an adverb or an adjective replaced by another (进行 -> 展开, 不断 -> 持续, 建设 -> 建造: the words
  of ``neardup.match.words`` a rewriting site swaps wherever they stand), unless two of their
  characters name opposites (上涨 -> 下跌); a word so rewritten in two places or more is read as
  shared when terms repeated are counted. A name (two tokens
  or more on each side, or among CJK three in all: 法 -> 检察 in 最高人民法院 -> 最高人民检察院; no
  number: 佐科 -> 博里奇) replaced alike counts ``ALIKE_SUBJECT`` units and half of all substituted
  units at least, however short: a typo or a look-alike changes one character for one, a date
  rewrite holds digits, while the guest of a welcome ceremony is named again and again. Among
  words, a word replaced alike that ends a full name replaced elsewhere (Dieter Kosslick -> Serena
  Cheney, then Kosslick -> Cheney twice) is a name too. A substitution made alike is an edit,
  not a subject, when the text that replaced a form still writes it in the text both share in as
  many places (the -> teh twice in a text of forty "the"; 发展 -> 发辗 in two of four 发展: a
  typist's or an input method's repeated slip), or when it is one character for one in words no
  two of which share a neighbour (国 -> 囯 in 各国 and 国际: a look-alike table's strikes).

>>> from neardup.match.signature import signatures
>>> a = "国家主席习近平在人民大会堂同智利总统博里奇举行会谈。习近平欢迎博里奇来华进行国事访问。习近平指出，中方高度重视发展同智利的关系。"
>>> s = signatures([a, a.replace("智利", "印度尼西亚").replace("博里奇", "佐科"), a.replace("大会堂", "大会唐")])
>>> [int(x) for x in text_evidence(s.profile(0), s.profile(1), 8, 4)[[0, 1, 6]]]  # adds, adds, repeated
[15, 19, 3]
>>> [int(x) for x in text_evidence(s.profile(0), s.profile(2), 8, 4)[[0, 1, 6]]]  # a typo
[1, 1, 0]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from neardup.match._numba_lazy import njit
from neardup.match.words import ANTONYM_KEYS, WORD_KEYS
from neardup.match.words import cjk_profile as _cjk_profile

__all__ = ["EVIDENCE_SIZE", "LATIN_UNITS", "text_evidence"]

#: length of the evidence array ``text_evidence`` returns
EVIDENCE_SIZE = 20
#: the evidence fields a result row keeps beside adds, passage and repeated (``engine``'s text
#: columns 4 on): each text's units, quoted units, occasion, leads, blocks, pieces, alike,
#: substitutions and substituted, what dedup's rows carry (``rethreshold.decision_rows``)
ROW_FIELDS = np.array([2, 3, 9, 10, 8, 11, 12, 13, 14, 15, 16, 17, 5, 18, 19], np.int64)
# substitutions of figures only (numbers on both sides) that name another occasion
_FIGURES_OCCASION = 3


# the single characters of neardup/data/stopwords_zh.txt but the places (上 下 中 里 内 外, as in 中国 and
# 上海): one of them replaced by another character is a typo or a look-alike, not a subject
# (``_match_c.c``'s FUNCTION_CP)
_FUNCTION_CJK = np.array(
    [
        _cjk_profile(c)
        for c in "的了和是在也就都而及与着或我你他她它这那之其此于以为对从被把让向由给将并且又但还更很最太会要应得地吗呢吧啊呀哦嘛么哪谁有无不没各每某等即则乃亦已仍当个位些"
    ],
    np.uint32,
)


@njit(cache=True, inline="always")
def _function_cjk(v: np.uint32) -> bool:  # pragma: no cover
    found = False
    for i in range(_FUNCTION_CJK.shape[0]):
        found = found or (v & np.uint32(0x0FFFFFFF)) == _FUNCTION_CJK[i]
    return found


#: characters a non-CJK token (a word, a number) counts for, in adds and passages
LATIN_UNITS = 5
_CJK = np.uint32(0x80000000)
_OCCASION = np.uint32(0x40000000)
_QUOTED = np.uint32(0x20000000)
_NUMBER = np.uint32(0x10000000)
_HASH = np.uint32(0x0FFFFFFF)
_P = np.uint64(0x9E3779B97F4A7C15)
#: a substitution is short when neither side holds more than this many characters
_SHORT = 16
#: among words, facing runs of at most this many units that each hold a year, a weekday or a month
#: replace one occasion by another (a run of the day's figures with it) when figures are replaced in
#: _OCCASION_FIGURES places or more
_OCCASION_RUN = 80
_OCCASION_FIGURES = 2
#: text replaced alike in two or more places, in units (5 words, 25 CJK characters), that names a
#: template's subject however much else the texts differ by
ALIKE_SUBJECT = 25
#: texts that share more runs than this on both sides differ in as many places: an edited copy (an
#: excerpt in reported speech against the speech), not a template whose subject stands in a few
#: places; terms repeated among so many differences name no subject
SUBJECT_PLACES = 30
#: the longest run of its own (in units) a text fills a template's frame with: two texts that share a
#: frame, fill it with runs no longer and name another occasion are a template, not a shared passage
FRAME_FILL = 100
_SWAP_NAME = np.int64(1) << np.int64(40)
#: one character replaced alike in more places than this is no scattering of look-alikes
_SCATTERED_MAX = 64
_SWAP_TAIL = np.int64(1) << np.int64(41)


@njit(cache=True, nogil=True, inline="always")
def _units(t: np.uint32) -> int:  # pragma: no cover
    return 1 if t & _CJK else LATIN_UNITS


@njit(cache=True, nogil=True)
def _windows(p: np.ndarray, w: int) -> np.ndarray:  # pragma: no cover
    n = p.shape[0] - w + 1
    out = np.empty(max(n, 0), np.uint64)
    for s in range(n):
        h = np.uint64(w)
        for t in range(s, s + w):
            h = h * _P + np.uint64(p[t] & (_HASH | _CJK))
        out[s] = h ^ (h >> np.uint64(29))
    return out


@njit(cache=True, nogil=True)
def _cover(
    wa: np.ndarray, order_b: np.ndarray, wb: np.ndarray, n: int, w: int
) -> np.ndarray:  # pragma: no cover
    """Per token of a: covered by a window also in b (``wb`` sorted through ``order_b``)."""
    cov = np.zeros(n, np.bool_)
    sb = wb[order_b]
    for s in range(wa.shape[0]):
        i = np.searchsorted(sb, wa[s])
        if i < sb.shape[0] and sb[i] == wa[s]:
            cov[s : s + w] = True
    return cov


#: facing runs longer than this (tokens) are not aligned; a gap of an alignment holds at most _GAP
_ALIGN = 64
_GAP = 2


@njit(cache=True, nogil=True)
def _align_run(
    a: np.ndarray,
    t: int,
    e: int,
    cov_a: np.ndarray,
    b: np.ndarray,
    q: int,
    f: int,
    cov_b: np.ndarray,
    tail: bool,
) -> None:  # pragma: no cover
    """Two facing uncovered runs that are one text with single tokens changed, dropped or added
    (typos or look-alike characters too close together for a window to cover the text between
    them): their tokens in common, in order, are covered, so only the changed tokens are left, as
    short substitutions. Every gap of the longest common subsequence holds at most ``_GAP`` tokens
    on each side, and the tokens in common are at least twice those the longer run does not share
    (a sentence reworded, or a name and a date replaced, leave too little in common); as many, in
    the runs that end both texts (``tail``: no window reaches past a text's end, so a word replaced
    in its last few tokens leaves only those few in common: 煤炭板块上涨超过3% -> 下跌超过3%)."""
    la = e - t
    lb = f - q
    if la < 2 or lb < 2 or la > _ALIGN or lb > _ALIGN:
        return
    m = _HASH | _CJK
    L = np.zeros((la + 1, lb + 1), np.int64)
    for i in range(1, la + 1):
        for j in range(1, lb + 1):
            if (a[t + i - 1] & m) == (b[q + j - 1] & m):
                L[i, j] = L[i - 1, j - 1] + 1
            else:
                L[i, j] = max(L[i - 1, j], L[i, j - 1])
    matched = L[la, lb]
    if matched < (1 if tail else 2) * (max(la, lb) - matched):
        return
    for mark in range(2):
        i = la
        j = lb
        ga = 0
        gb = 0
        while i > 0 or j > 0:
            if i > 0 and j > 0 and (a[t + i - 1] & m) == (b[q + j - 1] & m):
                if mark:
                    cov_a[t + i - 1] = True
                    cov_b[q + j - 1] = True
                elif ga > _GAP or gb > _GAP:
                    return
                ga = 0
                gb = 0
                i -= 1
                j -= 1
            elif i > 0 and (j == 0 or L[i - 1, j] >= L[i, j - 1]):
                ga += 1
                i -= 1
            else:
                gb += 1
                j -= 1
        if not mark and (ga > _GAP or gb > _GAP):
            return


@njit(cache=True, nogil=True)
def _next_run(cov: np.ndarray, t: int) -> tuple[int, int]:  # pragma: no cover
    """The first uncovered run from ``t`` on that follows a covered token: (start, end), or
    (n, n) when there is none."""
    n = cov.shape[0]
    while t < n and (cov[t] or not cov[t - 1]):
        t += 1
    e = t
    while e < n and not cov[e]:
        e += 1
    return t, e


@njit(cache=True, nogil=True)
def _after_window(
    wa: np.ndarray, sb: np.ndarray, ob: np.ndarray, cov_b: np.ndarray, t: int, w: int
) -> int:  # pragma: no cover
    """Where b's uncovered run starts right after the shared window that ends before a's token
    ``t`` (at the window's first place in b); -1 when shared text follows the window there, -2
    when b does not hold the window."""
    i = np.searchsorted(sb, wa[t - w])
    if not (i < sb.shape[0] and sb[i] == wa[t - w]):
        return -2
    q = ob[i] + w
    return q if q < cov_b.shape[0] and not cov_b[q] else -1


@njit(cache=True, nogil=True)
def _align_runs(
    a: np.ndarray,
    wa: np.ndarray,
    cov_a: np.ndarray,
    b: np.ndarray,
    sb: np.ndarray,
    ob: np.ndarray,
    cov_b: np.ndarray,
    w: int,
) -> None:  # pragma: no cover
    """``_align_run`` over each uncovered run of a after a shared window, facing an uncovered run of
    b right after the same window (both ending before a shared token, or both at the texts' ends)."""
    na = a.shape[0]
    nb = b.shape[0]
    t, e = _next_run(cov_a, w)
    while t < na:
        q = _after_window(wa, sb, ob, cov_b, t, w)
        if q >= 0:
            f = q
            while f < nb and not cov_b[f]:
                f += 1
            if (e < na) == (f < nb):
                _align_run(a, t, e, cov_a, b, q, f, cov_b, e == na)
        t, e = _next_run(cov_a, e)


#: the profile's values of the two characters of each marker of a phase of a visit (tests pin them
#: to the signature's hash): an announcement's "will" (将于 将在 将赴 将出 将访 将对 将率, as in
#: 将于5月5日至10日对……进行国事访问), a departure (离开 离京), a return (返抵), an arrival (抵达)
_PHASE_FIRST = np.array([*[0x86E102B7] * 7, 0x876CD050, 0x876CD050, 0x84080E4C, 0x82993956], np.uint32)
_PHASE_SECOND = np.array(
    [
        *(0x8E47E152, 0x80BF50F3, 0x8BBC72FD, 0x83FF0177, 0x8EEEF0E1, 0x86ACABC9, 0x8EB23E85),
        *(0x84571C64, 0x86653C5A, 0x82993956, 0x88CBD61E),
    ],
    np.uint32,
)


#: the same for the markers of another genre told of one event: the reactions to it (反响, as in
#: 引发热烈反响). A commentary's label (评论员文章, 快评) is no such marker: a broadcast reads the
#: commentary itself under it
_GENRE_FIRST = np.array([0x84E95A48], np.uint32)
_GENRE_SECOND = np.array([0x8D80933E], np.uint32)


#: and the words of a reaction told in the shorter text's own words, never in the fuller one's: the
#: shorter is the echo of what the fuller reports (鼓舞 in 倍受鼓舞 and 振奋 in the people who read a
#: letter, 界表 in 各界表示 and 业界表示 after an official's statement; not 各界 alone, a stock phrase
#: of 各族各界人士, nor 热议, which a portal's 网友热议 line adds to a repost). The fuller text may hold
#: them itself (a speech's 极大鼓舞): read in the shorter only
_REACTION_FIRST = np.array([0x813940C7, 0x8111E72B, 0x8088A719], np.uint32)
_REACTION_SECOND = np.array([0x8EA854CC, 0x86AFC1E8, 0x871E060A], np.uint32)


#: the tables as one, read in one pass over each text: the phases' bits, the genre's, the reactions'
_MARKER_FIRST = np.concatenate((_PHASE_FIRST, _GENRE_FIRST, _REACTION_FIRST))
_MARKER_SECOND = np.concatenate((_PHASE_SECOND, _GENRE_SECOND, _REACTION_SECOND))
_PHASE_BITS = (1 << _PHASE_FIRST.shape[0]) - 1
_GENRE_BITS = ((1 << (_PHASE_FIRST.shape[0] + _GENRE_FIRST.shape[0])) - 1) & ~_PHASE_BITS
_REACTION_BITS = ((1 << _MARKER_FIRST.shape[0]) - 1) & ~_PHASE_BITS & ~_GENRE_BITS


@njit(cache=True, nogil=True)
def _markers(p: np.ndarray, cov: np.ndarray) -> tuple[int, int]:  # pragma: no cover
    """The markers (pairs of characters of ``_MARKER_FIRST`` and ``_MARKER_SECOND``: 将于, 离京,
    反响, ...) in ``p`` as a bit per marker: among its uncovered tokens, and anywhere."""
    m = _HASH | _CJK
    own = every = 0
    for t in range(p.shape[0] - 1):
        x, y = p[t] & m, p[t + 1] & m
        for i in range(_MARKER_FIRST.shape[0]):
            if x == _MARKER_FIRST[i] and y == _MARKER_SECOND[i]:
                every |= 1 << i
                if not cov[t]:
                    own |= 1 << i
    return own, every


@njit(cache=True, nogil=True)
def _lead(a: np.ndarray, cov_a: np.ndarray) -> int:  # pragma: no cover
    """Units of a before its first shared token: a text of its own before the shared one."""
    n = 0
    for t in range(a.shape[0]):
        if cov_a[t]:
            return n
        n += _units(a[t])
    return n


@njit(cache=True, nogil=True)
def _own_occasion(a: np.ndarray, cov_a: np.ndarray, b: np.ndarray) -> bool:  # pragma: no cover
    """An uncovered occasion number of a (a year, a date, an edition) that b never holds."""
    occ = np.empty(b.shape[0], np.uint32)
    m = 0
    for t in range(b.shape[0]):
        if b[t] & _OCCASION:
            occ[m] = b[t] & _HASH
            m += 1
    for t in range(a.shape[0]):
        if not cov_a[t] and a[t] & _OCCASION:
            v = a[t] & _HASH
            found = False
            for i in range(m):
                if occ[i] == v:
                    found = True
                    break
            if not found:
                return True
    return False


#: the units of a text's lead, where news names its occasion (the day, the session, the meeting)
LEAD_UNITS = 60
# the profile values of 次 届 期 (an ordinal's units), 日 (a day's) and 今 昨 明 (今天 昨天 明天)
_ORDINAL_UNITS = np.array([_cjk_profile(c) | 0x80000000 for c in "次届期"], np.uint32)
_DAY = np.uint32(_cjk_profile("日") | 0x80000000)
_NOW = np.array([_cjk_profile(c) | 0x80000000 for c in "今昨明"], np.uint32)


@njit(cache=True, nogil=True)
def _lead_kind(p: np.ndarray, t: int) -> int:  # pragma: no cover
    """The kind of occasion number ``p[t]`` names in a lead: 1 an ordinal (before 次 届 期: a
    session, a meeting), 2 a day (before 日; 号 also numbers a decree or a line: 第四十六号主席令),
    but not the day after 今天 / 昨天 / 明天 within four tokens (a broadcast's "today (February 5)"
    dates its telling, not the event); 0 another (a year, a month, 第一 in 质量第一)."""
    m = _HASH | _CJK
    nxt = p[t + 1] & m if t + 1 < p.shape[0] else np.uint32(0)
    for i in range(_ORDINAL_UNITS.shape[0]):
        if nxt == _ORDINAL_UNITS[i]:
            return 1
    if nxt != _DAY:
        return 0
    for x in range(t - 1, max(-1, t - 5), -1):
        c = p[x] & m
        for i in range(_NOW.shape[0]):
            if c == _NOW[i]:
                return 0
    return 2


@njit(cache=True, nogil=True)
def _lead_occasions(
    a: np.ndarray, cov_a: np.ndarray, b: np.ndarray, cov_b: np.ndarray
) -> bool:  # pragma: no cover
    """The leads of a and b name two occasions: a's lead (its first ``LEAD_UNITS`` units) holds an
    occasion number of its own (not shared) that b's lead never holds, and b's lead one of the same
    kind that is none of a's own: the 37th chairmen's meeting on the 26th against the committee's
    11th session on the 27th. A wire's dateline against a broadcast that writes no date, or 今天
    for 26日, names one side's only."""
    own_a = np.empty(32, np.uint32)
    kind_a = np.empty(32, np.int64)
    all_b = np.empty(32, np.uint32)
    own_b = np.empty(32, np.uint32)
    kind_b = np.empty(32, np.int64)
    ma = mb = mo = 0
    u = 0
    t = 0
    while t < a.shape[0] and u < LEAD_UNITS and ma < 32:
        u += _units(a[t])
        k = _lead_kind(a, t) if (a[t] & _OCCASION) and not cov_a[t] else 0
        if k:
            kind_a[ma] = k
            own_a[ma] = a[t] & _HASH
            ma += 1
        t += 1
    u = 0
    t = 0
    while t < b.shape[0] and u < LEAD_UNITS and mb < 32:
        u += _units(b[t])
        if b[t] & _OCCASION:
            all_b[mb] = b[t] & _HASH
            mb += 1
            k = 0 if cov_b[t] else _lead_kind(b, t)
            if k:
                kind_b[mo] = k
                own_b[mo] = b[t] & _HASH
                mo += 1
        t += 1
    for i in range(ma):
        held = False
        for j in range(mb):
            held = held or own_a[i] == all_b[j]
        if held:
            continue
        for j in range(mo):
            if kind_b[j] != kind_a[i]:
                continue
            mine = False
            for x in range(ma):
                mine = mine or own_b[j] == own_a[x]
            if not mine:
                return True
    return False


@njit(cache=True, nogil=True, inline="always")
def _swap_hash(a: np.ndarray, t: int, e: int, b: np.ndarray, q: int, f: int) -> Any:  # pragma: no cover
    """A substitution's key: a's tokens [t, e) replaced by b's [q, f)."""
    h = np.uint64(1)
    for x in range(t, e):
        h = h * _P + np.uint64(a[x] & _HASH)
    h = h * _P
    for x in range(q, f):
        h = h * _P + np.uint64(b[x] & _HASH)
    return h


# rewrites beyond this many in one pair are all taken as repeated (a spun text), not compared
_MANY_REWRITES = 64
# the words a substitution may lie in: its spans extended by up to two shared tokens on each side,
# the shortest extension first
_EXTEND = np.array([(0, 0), (1, 0), (0, 1), (1, 1), (2, 0), (0, 2), (2, 1), (1, 2), (2, 2)], np.int64)


@njit(cache=True, nogil=True, inline="always")
def _word_key(p: np.ndarray, s: int, e: int) -> Any:  # pragma: no cover
    h = np.uint64(1)
    for x in range(s, e):
        h = h * _P + np.uint64(p[x] & _HASH)
    return h & ~np.uint64(1)


@njit(cache=True, nogil=True)
def _word_kind(key: Any) -> int:  # pragma: no cover
    """-1: no word of ``WORD_KEYS``; 1: a word a rewrite may swap; 0: another word."""
    i = np.searchsorted(WORD_KEYS, key)
    if i < WORD_KEYS.shape[0] and WORD_KEYS[i] == key:
        return 0
    if i < WORD_KEYS.shape[0] and WORD_KEYS[i] == key | np.uint64(1):
        return 1
    return -1


@njit(cache=True, nogil=True, inline="always")
def _shared_around(
    a: np.ndarray, t: int, e: int, b: np.ndarray, q: int, f: int, left: int, right: int
) -> bool:  # pragma: no cover
    """The ``left`` CJK tokens before a's span [t, e) and the ``right`` after it are b's around [q, f)."""
    if t - left < 0 or q - left < 0 or e + right > a.shape[0] or f + right > b.shape[0]:
        return False
    m = _HASH | _CJK
    same = True
    for j in range(1, left + 1):
        same = same and (a[t - j] & m) == (b[q - j] & m) and (a[t - j] & _CJK) != 0
    for j in range(right):
        same = same and (a[e + j] & m) == (b[f + j] & m) and (a[e + j] & _CJK) != 0
    return same


@njit(cache=True, nogil=True)
def _rewrite(a: np.ndarray, t: int, e: int, b: np.ndarray, q: int, f: int) -> bool:  # pragma: no cover
    """a's CJK span [t, e) replaced by b's [q, f) says the same in other words (进行 -> 展开, 设 -> 造
    in 建设 -> 建造): the shortest words both spans lie in (the spans with the same tokens around
    them) are words a rewrite may swap (``neardup.match.words``), and no two of the spans'
    characters name opposites (开幕 -> 闭幕)."""
    for x in range(t, e):
        if not a[x] & _CJK:
            return False
    for x in range(q, f):
        if not b[x] & _CJK:
            return False
    for k in range(_EXTEND.shape[0]):
        left, right = _EXTEND[k, 0], _EXTEND[k, 1]
        if not _shared_around(a, t, e, b, q, f, left, right):
            continue
        ka = _word_kind(_word_key(a, t - left, e + right))
        kb = _word_kind(_word_key(b, q - left, f + right))
        if ka < 0 or kb < 0:
            continue
        if ka == 0 or kb == 0:
            return False
        for x in range(t, e):
            for y in range(q, f):
                u = np.uint64(a[x] & _HASH)
                v = np.uint64(b[y] & _HASH)
                pair = (min(u, v) << np.uint64(32)) | max(u, v)
                i = np.searchsorted(ANTONYM_KEYS, pair)
                if i < ANTONYM_KEYS.shape[0] and ANTONYM_KEYS[i] == pair:
                    return False
        return True
    return False


@njit(cache=True, nogil=True)
def _form(
    a: np.ndarray, t: int, e: int, b: np.ndarray, q: int, f: int
) -> tuple[int, int]:  # pragma: no cover
    """The form a's span [t, e) is written in, replaced by b's [q, f): the span itself among words,
    and among CJK the shortest word of ``WORD_KEYS`` of two characters or more it lies in with
    the tokens both texts hold around it (展 of 发展); (-1, -1) for none."""
    cjk = True
    for x in range(t, e):
        cjk = cjk and (a[x] & _CJK) != 0
    if not cjk:
        return t, e
    for k in range(_EXTEND.shape[0]):
        left, right = _EXTEND[k, 0], _EXTEND[k, 1]
        if e - t + left + right < 2:
            continue
        if (
            _shared_around(a, t, e, b, q, f, left, right)
            and _word_kind(_word_key(a, t - left, e + right)) >= 0
        ):
            return t - left, e + right
    return -1, -1


@njit(cache=True, nogil=True)
def _count_form(a: np.ndarray, s: int, e: int, b: np.ndarray, cov_b: np.ndarray) -> int:  # pragma: no cover
    """How often b holds a's tokens [s, e) in text both share."""
    m = _HASH | _CJK
    n = e - s
    count = 0
    for y in range(b.shape[0] - n + 1):
        hit = True
        for j in range(n):
            if (b[y + j] & m) != (a[s + j] & m) or not cov_b[y + j]:
                hit = False
                break
        if hit:
            count += 1
    return count


@njit(cache=True, nogil=True)
def _scattered(
    a: np.ndarray, spans: np.ndarray, units: np.ndarray, group: np.ndarray
) -> bool:  # pragma: no cover
    """One character replaced by one in words no two of which share a neighbour: look-alikes or
    homophones scattered through a repost (国 -> 囯 in 各国 and 英国), where a subject stands in
    the same word more than once (中国 -> 俄国 twice beside 中方 -> 俄方)."""
    for i in range(group.shape[0]):
        o = group[i]
        if units[o] & _SWAP_TAIL:
            continue
        for j in range(i + 1, group.shape[0]):
            r = group[j]
            if units[r] & _SWAP_TAIL:
                continue
            if (a[spans[o, 0] - 1] & _HASH) == (a[spans[r, 0] - 1] & _HASH):
                return False
            if (a[spans[o, 1]] & _HASH) == (a[spans[r, 1]] & _HASH):
                return False
    return True


@njit(cache=True, nogil=True)
def _kept(
    a: np.ndarray, cov_a: np.ndarray, b: np.ndarray, cov_b: np.ndarray, span: np.ndarray, places: int
) -> bool:  # pragma: no cover
    """A substitution made alike in ``places`` places is an edit, not a template's subject, when the
    text that replaced a form still writes it, in the text both share, in as many places or more: a
    repeated typo or look-alike (the -> teh, 发展 -> 发辗 in two of a text's ten 发展), where a
    template replaces its subject wherever the two texts agree (智利 -> 印度尼西亚), naming the old
    one at most in text of its own (继英文版之后 beside 英文版 -> 法文版)."""
    t, e, q, f = span[0], span[1], span[2], span[3]
    s, x = _form(a, t, e, b, q, f)
    if s >= 0 and _count_form(a, s, x, b, cov_b) >= places:
        return True
    s, x = _form(b, q, f, a, t, e)
    return s >= 0 and _count_form(b, s, x, a, cov_a) >= places


@njit(cache=True, nogil=True)
def _terms(p: np.ndarray, mask: np.ndarray, want: bool) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover
    """The terms of ``p`` (a word, or two CJK characters in a row) where ``mask`` is ``want``, with
    the run of such tokens each one lies in."""
    n = p.shape[0]
    keys = np.empty(n, np.uint64)
    runs = np.empty(n, np.int64)
    m = 0
    r = 0
    for t in range(n):
        if mask[t] != want:
            if t > 0 and mask[t - 1] == want:
                r += 1
            continue
        if p[t] & _CJK:
            if t + 1 < n and mask[t + 1] == want and p[t + 1] & _CJK:
                keys[m] = np.uint64(p[t] & _HASH) * _P + np.uint64(p[t + 1] & _HASH)
                runs[m] = r
                m += 1
        else:
            keys[m] = np.uint64(p[t] & _HASH)
            runs[m] = r
            m += 1
    return keys[:m], runs[:m]


@njit(cache=True, nogil=True)
def _repeated(a: np.ndarray, cov_a: np.ndarray, b: np.ndarray) -> int:  # pragma: no cover
    """Terms of a that b never holds, found in two or more of a's uncovered runs: a subject the
    other text replaced wherever it appears."""
    keys, runs = _terms(a, cov_a, False)
    if keys.shape[0] < 2:
        return 0
    # the terms in two runs of a or more (a stable sort keeps each term's runs in text order), then
    # those b never holds
    order = np.argsort(keys, kind="mergesort")
    multi = np.empty(keys.shape[0], np.uint64)
    nm = 0
    t = 0
    while t < keys.shape[0]:
        key = keys[order[t]]
        runs_seen = 0
        last = np.int64(-1)
        while t < keys.shape[0] and keys[order[t]] == key:
            r = np.int64(runs[order[t]])
            if r != last:
                runs_seen += 1
                last = r
            t += 1
        if runs_seen >= 2:
            multi[nm] = key
            nm += 1
    if nm == 0:
        return 0
    bkeys = np.sort(_terms(b, np.ones(b.shape[0], np.bool_), True)[0])
    count = 0
    for t in range(nm):
        i = np.searchsorted(bkeys, multi[t])
        if not (i < bkeys.shape[0] and bkeys[i] == multi[t]):
            count += 1
    return count


# a shared run that ends with 同志 (or 同志的遗体) is a person's designation
_TONG_ZHI = np.array([_cjk_profile(c) | 0x80000000 for c in "同志"], np.uint32)
_REMAINS = np.array([_cjk_profile(c) | 0x80000000 for c in "的遗体"], np.uint32)


@njit(cache=True, nogil=True)
def _designation(p: np.ndarray, start: int, t: int) -> bool:  # pragma: no cover
    """The shared run ``p[start..t]`` is a person's designation: it ends with 同志, or with 同志的遗体
    (a leader's titles before the name, "...的卓越领导人，...主席钱正英同志"), which every report of one
    funeral repeats: not a passage of content."""
    m = _HASH | _CJK
    if (
        t - 4 >= start
        and (p[t - 2] & m) == _REMAINS[0]
        and (p[t - 1] & m) == _REMAINS[1]
        and (p[t] & m) == _REMAINS[2]
    ):
        t -= 3
    return t - 1 >= start and (p[t - 1] & m) == _TONG_ZHI[0] and (p[t] & m) == _TONG_ZHI[1]


@njit(cache=True, nogil=True)
def _walk(p: np.ndarray, cov: np.ndarray) -> tuple[int, int, int, int, int]:  # pragma: no cover
    """Units of ``p`` the other text does not cover, its longest shared run (a run that ends with a
    person's designation does not count: ``_designation``), shared units it sets on quoted lines,
    its longest run of its own, and how many shared runs it holds."""
    adds = longest = quoted = block = pieces = 0
    run = own = start = 0
    n = p.shape[0]
    for t in range(n):
        u = _units(p[t])
        if cov[t]:
            if run == 0:
                pieces += 1
                start = t
            run += u
            # a run counts as a whole, where it ends
            if run > longest and (t + 1 == n or not cov[t + 1]) and not _designation(p, start, t):
                longest = run
            own = 0
            if p[t] & _QUOTED:
                quoted += u
        else:
            run = 0
            own += u
            block = max(block, own)
            adds += u
    return adds, longest, quoted, block, pieces


@njit(cache=True, nogil=True)
def _facing_run(
    wa: np.ndarray, sb: np.ndarray, ob: np.ndarray, cov_b: np.ndarray, t: int, e: int, w: int
) -> int:  # pragma: no cover
    """Where b's uncovered run facing a's run ``t:e`` starts, or -1: right after the shared window
    that ends before ``t``, or else (a second change within a window of the first: 中国政府和中国
    -> 俄国政府和俄国) right before the shared window that starts at ``e``."""
    q = _after_window(wa, sb, ob, cov_b, t, w)
    if q != -2:
        return q
    if e >= wa.shape[0]:  # no whole window after the run
        return -1
    i = np.searchsorted(sb, wa[e])
    if not (i < sb.shape[0] and sb[i] == wa[e]) or ob[i] == 0 or cov_b[ob[i] - 1]:
        return -1
    q = ob[i] - 1
    while q > 0 and not cov_b[q - 1]:
        q -= 1
    return q if q > 0 else -1  # a run after shared text, as a's is


@njit(cache=True, nogil=True)
def text_evidence(a: np.ndarray, b: np.ndarray, w_cjk: int, w_latin: int) -> np.ndarray:  # pragma: no cover
    """Evidence of two text profiles: int64[9] = (units a adds, units b adds, units of a, units of
    b, longest shared passage in units, substitutions, repeated substitutions, short
    substitutions of two or more characters on a side, occasion numbers that differ: 1 when both
    texts hold an uncovered year, date or edition number, 2 when one also stands in the other's
    place (or the shorter tells another phase of a visit), 3 when one is the reactions to the
    other, 4 when only the leads name two occasions, shared units that a quotes on quoted
    lines, shared units that b quotes, units of a before its first shared token, units of b
    before its first shared token, longest uncovered run of a, of b, shared runs of a, of b, units of the substitutions made alike in two or more places, both sides, units of a's
    short substitutions, of b's)."""
    out = np.zeros(EVIDENCE_SIZE, np.int64)
    na = a.shape[0]
    nb = b.shape[0]
    for t in range(na):
        out[2] += _units(a[t])
    for t in range(nb):
        out[3] += _units(b[t])
    if na == 0 or nb == 0:
        out[0] = out[13] = out[2]
        out[1] = out[14] = out[3]
        return out
    cjk = 0
    for t in range(na):
        if a[t] & _CJK:
            cjk += 1
    w = w_cjk if 2 * cjk >= na else w_latin
    w = max(1, min(w, na, nb))
    wa = _windows(a, w)
    wb = _windows(b, w)
    # a window the other text holds more than once is read at its first place there (a stable sort)
    oa = np.argsort(wa, kind="mergesort")
    ob = np.argsort(wb, kind="mergesort")
    cov_a = _cover(wa, ob, wb, na, w)
    cov_b = _cover(wb, oa, wa, nb, w)
    sb = wb[ob]
    _align_runs(a, wa, cov_a, b, sb, ob, cov_b, w)
    out[0], out[4], out[9], out[13], out[15] = _walk(a, cov_a)
    out[1], _, out[10], out[14], out[16] = _walk(b, cov_b)
    out[8] = 1 if _own_occasion(a, cov_a, b) and _own_occasion(b, cov_b, a) else 0
    out[11] = _lead(a, cov_a)
    out[12] = _lead(b, cov_b)
    # substitutions: an uncovered run of a right after a shared window, facing an uncovered run of
    # b right after the same window
    swaps = np.empty(na, np.uint64)
    swap_units = np.empty(na, np.int64)
    swap_spans = np.empty((na, 4), np.int64)  # each substitution's a span and b span
    n_swaps = 0
    # the spans of the rewrites (a's start, end, b's start, end)
    rewrites = np.empty((na, 4), np.int64)
    n_rewrites = 0
    figures = 0
    occ_replaced = False
    occ_wide = False
    t = w
    while t < na:
        if cov_a[t] or not cov_a[t - 1]:
            t += 1
            continue
        e = t
        ua = 0
        while e < na and not cov_a[e]:
            ua += _units(a[e])
            e += 1
        if e >= na:
            break
        q = _facing_run(wa, sb, ob, cov_b, t, e, w)
        if q >= 0:
            f = q
            ub = 0
            while f < nb and not cov_b[f]:
                ub += _units(b[f])
                f += 1
            # an occasion replaced in place: among words, in a run of the day's figures too
            # ("at 1200 GMT on Monday" -> "at 1321 GMT on Tuesday")
            short = ua <= _SHORT and ub <= _SHORT
            if f < nb and (short or (2 * cjk < na and ua <= _OCCASION_RUN and ub <= _OCCASION_RUN)):
                occ_a = False
                occ_b = False
                for x in range(t, e):
                    occ_a = occ_a or (a[x] & _OCCASION) != 0
                for x in range(q, f):
                    occ_b = occ_b or (b[x] & _OCCASION) != 0
                if short:
                    occ_replaced = occ_replaced or (occ_a and occ_b)
                else:
                    occ_wide = occ_wide or (occ_a and occ_b)
            if f < nb and short:
                out[5] += 1
                out[18] += ua
                out[19] += ub
                if ua >= 2 and ub >= 2:
                    out[7] += 1
                # a subject (a name, a language), not a figure: a corrected price is an edit
                words = False
                num_a = False
                num_b = False
                for x in range(t, e):
                    words = words or not a[x] & _NUMBER
                    num_a = num_a or (a[x] & _NUMBER) != 0
                for x in range(q, f):
                    words = words or not b[x] & _NUMBER
                    num_b = num_b or (b[x] & _NUMBER) != 0
                numbers = num_a or num_b
                if not words:
                    figures += 1
                # a subject, not an edit: a date written another way (今天 -> 5月6日) holds
                # digits on one side only, and a typo, a look-alike or a rewrite replaces a
                # function character by another or by a name, however often (的 -> 地,
                # 他 -> 习近平; 法 -> 俄 in 法文版 -> 俄文版 is a subject), or a verb, an adverb
                # or an adjective by another (进行 -> 展开, 不断 -> 持续: ``_rewrite``)
                rewritten = _rewrite(a, t, e, b, q, f)
                if rewritten:
                    rewrites[n_rewrites, 0] = t
                    rewrites[n_rewrites, 1] = e
                    rewrites[n_rewrites, 2] = q
                    rewrites[n_rewrites, 3] = f
                    n_rewrites += 1
                typo = rewritten or (
                    (a[t] & _CJK) != 0
                    and (b[q] & _CJK) != 0
                    and ((e - t == 1 and _function_cjk(a[t])) or (f - q == 1 and _function_cjk(b[q])))
                )
                if words and num_a == num_b and not typo:
                    # a name: two tokens or more on each side, or among CJK three in all
                    # (法 -> 检察 in 最高人民法院 -> 最高人民检察院), and no number (佐科 -> 博里奇;
                    # a typo or a look-alike changes one character for one, a date rewrite
                    # holds digits)
                    name = not numbers and (
                        (e - t >= 2 and f - q >= 2)
                        or (e - t + f - q >= 3 and (a[t] & _CJK) != 0 and (b[q] & _CJK) != 0)
                    )
                    swaps[n_swaps] = _swap_hash(a, t, e, b, q, f)
                    swap_units[n_swaps] = ua + ub + (_SWAP_NAME if name else 0)
                    swap_spans[n_swaps, 0] = t
                    swap_spans[n_swaps, 1] = e
                    swap_spans[n_swaps, 2] = q
                    swap_spans[n_swaps, 3] = f
                    n_swaps += 1
                    # a full name among words (Dieter Kosslick -> Serena Cheney): its last words
                    # replaced alike elsewhere (Kosslick -> Cheney) are the same person's name
                    if name and not a[e - 1] & _CJK and not b[f - 1] & _CJK:
                        swaps[n_swaps] = _swap_hash(a, e - 1, e, b, f - 1, f)
                        swap_units[n_swaps] = _SWAP_TAIL
                        n_swaps += 1
        t = e
    # (a wider run counts beside other figures replaced: another day's report, where a FAQ's new
    # version replaces its date line and version number alone)
    if out[8] and (occ_replaced or (occ_wide and figures >= _OCCASION_FIGURES)):
        out[8] = 2
    # among words, a year each text holds alone is a dateline's or a cut end's: another occasion
    # only when one year stands in place of the other's
    if out[8] == 1 and 2 * cjk < na:
        out[8] = 0
    # figures replaced in _FIGURES_OCCASION places or more, and in more places than the figures both
    # texts hold (another day's prices, counts, scores; a corrected figure is one or two, a new
    # version of a long listing keeps most of its figures, and numbers written another way are read
    # as one): another occasion told on one template
    if figures >= _FIGURES_OCCASION and out[8] < 2:
        kept = 0  # figures both texts hold, in a
        for x in range(na):
            if cov_a[x] and a[x] & _NUMBER:
                kept += 1
        if figures >= kept:
            out[8] = 2
    # each text's lead names an occasion of its own, not the other's (4: decides a merge, and a
    # shared passage only when both fill the rest with short runs of their own: a commentary told
    # on another day may still reuse a report's paragraphs)
    if out[8] < 2 and 2 * cjk >= na and _lead_occasions(a, cov_a, b, cov_b):
        out[8] = 4
    # the shorter text tells another phase of a visit than the longer (a marker of its own that
    # the longer never holds: 将于 in the notice against at most 将出席 in the arrival report, 离京
    # in the departure): two occasions of one event
    own_a, every_a = _markers(a, cov_a)
    own_b, every_b = _markers(b, cov_b)
    new_a, new_b = own_a & ~every_b, own_b & ~every_a
    if (new_a if out[2] <= out[3] else new_b) & _PHASE_BITS:
        out[8] = 2
    # either text, in its own words, is the reactions to what the other reports (a genre marker
    # the other never holds), or the shorter tells a reaction in its own words (倍受鼓舞, 澳门各界
    # 表示) that the fuller never holds: two documents of one event
    if (new_a | new_b) & _GENRE_BITS or (new_a if out[2] <= out[3] else new_b) & _REACTION_BITS:
        out[8] = 3
    # a word a rewrite swapped wherever it stands (不断 -> 持续, in two places or more) names no
    # subject: read as shared (past _MANY_REWRITES rewrites, every one is taken as repeated)
    for r in range(n_rewrites):
        alike = n_rewrites > _MANY_REWRITES
        h = _swap_hash(a, rewrites[r, 0], rewrites[r, 1], b, rewrites[r, 2], rewrites[r, 3])
        for o in range(n_rewrites):
            if alike:
                break
            alike = (
                o != r
                and _swap_hash(a, rewrites[o, 0], rewrites[o, 1], b, rewrites[o, 2], rewrites[o, 3]) == h
            )
        if alike:
            cov_a[rewrites[r, 0] : rewrites[r, 1]] = True
            cov_b[rewrites[r, 2] : rewrites[r, 3]] = True
    ra = _repeated(a, cov_a, b)
    out[6] = min(ra, _repeated(b, cov_b, a)) if ra > 0 else 0
    if n_swaps > 1:
        order = np.argsort(swaps[:n_swaps])
        name = False
        x = 0
        while x < n_swaps:
            # one substitution's places (and the full names it ends)
            y = x
            places = 0
            units = 0
            named = False
            first = -1
            single = True
            while y < n_swaps and swaps[order[y]] == swaps[order[x]]:
                u = swap_units[order[y]]
                y += 1
                if u & _SWAP_TAIL:
                    named = True
                    continue
                o = order[y - 1]
                ta, ea, qb, fb = swap_spans[o, 0], swap_spans[o, 1], swap_spans[o, 2], swap_spans[o, 3]
                single = single and ea - ta == 1 and fb - qb == 1 and (a[ta] & b[qb] & _CJK) != 0
                # the first place in text order (the sort of equal keys decides no order)
                if first < 0 or ta < swap_spans[first, 0]:
                    first = o
                places += 1
                units += u & (_SWAP_NAME - 1)
                named = named or (u & _SWAP_NAME) != 0
            scattered = (
                single and places <= _SCATTERED_MAX and _scattered(a, swap_spans, swap_units, order[x:y])
            )
            if places >= 2 and not scattered and not _kept(a, cov_a, b, cov_b, swap_spans[first], places):
                out[17] += units
                name = name or named
            x = y
        # a name replaced alike in two places names the template's subject, however short and
        # whatever else is substituted: it counts as a full name and as most of the substitutions
        if name:
            least = max(ALIKE_SUBJECT, (out[18] + out[19] + 1) // 2)
            if out[17] < least:
                out[17] = least
    return out

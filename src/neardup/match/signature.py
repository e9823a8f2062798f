"""Stage 1, signatures: everything later stages need of a document, computed once, in batch code.

A document's text is normalized (NFKC, width, case, spaces) and cut into tokens: one token per CJK
character (Chinese, Japanese kana, Korean syllables) and one per run of other letters and digits.
Windows of ``shingle`` consecutive tokens are hashed (character 5-grams in Chinese, word 5-grams in
English). From the distinct window hashes a document keeps:

- ``sketch``: the ``sketch_size`` smallest hashes (a bottom-k sketch, Broder 1997 / Cohen & Kaplan
  2007): two sketches estimate the Jaccard similarity and the containment of the two full sets,
  so verification needs no text;
- ``size``: how many distinct windows there are (to turn Jaccard into containment);
- ``simhash``: Charikar's SimHash of the same windows (binary weights), the seeds' fingerprint and
  the Hamming index's key;
- ``numbers``: number facts (a run of digits keyed by the tokens just before and after it, so
  "10月5日" and "10月6日" hold the same key with other values): editions of a templated story
  differ there, reposts do not;
- ``content``: a hash of the whole token sequence (same words, other punctuation, spacing or
  width: the same content), and ``exact``: a hash of the raw bytes.

>>> s = signatures(["长江是中华民族的母亲河，也是中华民族发展的重要支撑。"] * 2)
>>> s.size.tolist(), bool(s.simhash[0] == s.simhash[1]), s.sketch.shape
([19, 19], True, (2, 128))
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from types import ModuleType
from typing import Any

import numpy as np
import numpy.typing as npt
import xxhash
from numba import njit, prange

from neardup.fingerprint._fast import to_codepoints
from neardup.fingerprint._fast_numba import majority_bits
from neardup.match.config import MatchConfig
from neardup.text.normalize import compat_map, numbers_as_digits, t2s_map

__all__ = ["EMPTY32", "EMPTY64", "FIELDS", "Signatures", "exact_key", "signatures"]

_fp_c: ModuleType | None
try:
    from neardup.fingerprint import _fp_c
except ImportError:  # built without a C compiler: the numba kernels below
    _fp_c = None

U64 = npt.NDArray[np.uint64]
U32 = npt.NDArray[np.uint32]
I32 = npt.NDArray[np.int32]

EMPTY32 = np.uint32(0xFFFFFFFF)  # pads a sketch with fewer values than sketch_size
EMPTY64 = np.uint64(0xFFFFFFFFFFFFFFFF)  # pads a number list
_P = np.uint64(0x9E3779B97F4A7C15)
_FNV = np.uint64(0x100000001B3)
_FNV0 = np.uint64(0xCBF29CE484222325)


_BETWEEN_TAGS = re.compile(r">\s+<")


def exact_key(raw: str) -> int:
    """The exact key: xxh3-64 of the page (HTML as fetched and decoded, or the text as given) with
    whitespace runs collapsed and whitespace between tags dropped, so a re-indented copy of the same
    page is still exact.

    >>> exact_key("<p>a  b</p>\\n<p>c</p>") == exact_key(" <p>a b</p><p>c</p>")
    True
    """
    flat = _BETWEEN_TAGS.sub("><", " ".join(raw.split()))
    return int(xxhash.xxh3_64_intdigest(flat.encode("utf-8", "surrogatepass")))


@cache
def fold_table() -> np.ndarray:
    """Per BMP code point, the character it is read as (0: not part of a token).

    A character's NFKC form when that is one character (full-width forms to ASCII), lowercased, read
    in simplified script (OpenCC's character table, ``t2s_map``), and kept only when it is a letter
    or a digit: what the tokenizer sees, so no separate normalization pass is needed.
    """
    table = np.zeros(0x10000, np.uint32)
    cmap = compat_map()
    t2s = t2s_map()
    for cp in range(0x10000):
        if 0xD800 <= cp < 0xE000:
            continue
        c = cmap.get(cp, chr(cp))
        if len(c) != 1:
            continue
        low = c.lower()
        c = low if len(low) == 1 else c
        if c.isalnum():
            table[cp] = ord(t2s.get(c, c))
    return table


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
    # tokens: one per CJK character, one per run of other letters and digits
    nt = 0
    h = _FNV0
    in_run = False
    digits = True
    line_start = True
    in_quote = False
    run_quote = False
    for i in range(lo, hi + 1):
        cp = int(cps[i]) if i < hi else 32
        if cp == 10:
            line_start = True
            in_quote = False
        elif line_start and cp != 32 and cp != 9:
            line_start = False
            in_quote = cp == 62 or cp == 124 or cp == 35
        if cp < 0x10000:
            cp = int(table[cp])
        cjk = _is_cjk(cp)
        if cp != 0 and not cjk and (cp < 0x10000 or cp > 0x3134F):
            if not in_run:
                h = _FNV0
                in_run = True
                digits = True
                run_quote = in_quote
            h = (h ^ np.uint64(cp)) * _FNV
            if cp < 48 or cp > 57:
                digits = False
            continue
        if in_run:
            toks[nt] = _mix(h)
            numeric[nt] = 1 if digits else 0
            quoted[nt] = run_quote
            nt += 1
            in_run = False
        if cjk:
            toks[nt] = _mix(np.uint64(cp) + _P)
            numeric[nt] = 2 if _is_cjk_numeral(cp) else 0
            cjks[nt] = True
            quoted[nt] = in_quote
            nt += 1
    ntok[d] = nt
    # the text profile: each token's hash (28 bits), whether it is a CJK character (the top bit),
    # whether it is a number that names an occasion (bit 30: a year, a date, an edition or session
    # number: digits before 年 月 日 号 届 次 期 周, or after 第), which a template's next story changes,
    # whether it sits on a quoted line (bit 29), and whether it is a number (bit 28)
    for t in range(nt):
        v = np.uint32(toks[t] >> np.uint64(36)) | (np.uint32(0x80000000) if cjks[t] else np.uint32(0))
        if quoted[t]:
            v |= np.uint32(0x20000000)
        if numeric[t] == 1:
            v |= np.uint32(0x10000000)
            # an occasion number is hashed with its unit: the 4 of 4次 is not the 4 of 3月4日
            unit = np.uint64(0)
            if t + 1 < nt and _is_occasion_unit(toks[t + 1]):
                unit = toks[t + 1]
            elif t > 0 and toks[t - 1] == _mix(np.uint64(0x7B2C) + _P):
                unit = toks[t - 1]
            if unit != 0:
                v = (v & np.uint32(0xB0000000)) | np.uint32(_mix(toks[t] * _P + unit) >> np.uint64(36))
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


_PARALLEL_FROM = 256


def _sign_c(
    cps: np.ndarray, offsets: np.ndarray, table: np.ndarray, n: int, k: int, m: int
) -> tuple[np.ndarray, ...]:
    """``_signature_kernel`` in C: the batch split in contiguous parts, one per core from
    ``_PARALLEL_FROM`` documents, each signed by a thread with the GIL released."""
    assert _fp_c is not None
    nd = offsets.shape[0] - 1
    out = (
        np.zeros(nd, np.uint64),
        np.zeros(nd, np.uint64),
        np.zeros(nd, np.int32),
        np.zeros(nd, np.int32),
        np.full((nd, k), EMPTY32, np.uint32),
        np.full((nd, max(m, 1)), EMPTY64, np.uint64),
        np.empty(cps.shape[0] + nd, np.uint32),
    )
    cps = np.ascontiguousarray(cps, np.uint32)
    offsets = np.ascontiguousarray(offsets, np.int64)
    parts = min(_cores(), nd // (_PARALLEL_FROM // 2)) if nd >= _PARALLEL_FROM else 1
    if parts <= 1:
        _fp_c.signature_range(cps, offsets, table, n, k, m, 0, nd, *out)
        return out
    # parts of about equal code points, so each thread has about the same work
    cuts = np.searchsorted(offsets, np.linspace(0, offsets[-1], parts + 1)[1:-1]).tolist()
    bounds = [0, *cuts, nd]
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(parts) as pool:
        jobs = [
            pool.submit(_fp_c.signature_range, cps, offsets, table, n, k, m, lo, hi, *out)
            for lo, hi in zip(bounds[:-1], bounds[1:], strict=True)
            if hi > lo
        ]
        for job in jobs:
            job.result()
    return out


def _cores() -> int:
    import os

    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _compact_profiles_c(
    prof: np.ndarray, offsets: np.ndarray, ntok: np.ndarray, cap: int
) -> tuple[np.ndarray, np.ndarray]:
    """``_compact_profiles`` in C."""
    assert _fp_c is not None
    nd = ntok.shape[0]
    ptr = np.zeros(nd + 1, np.int64)
    np.cumsum(np.minimum(ntok, cap), out=ptr[1:])
    out = np.empty(int(ptr[nd]), np.uint32)
    starts = np.ascontiguousarray(offsets[:nd], np.int64) + np.arange(nd, dtype=np.int64)
    _fp_c.copy_profiles(prof, starts, ptr, out)
    return ptr, out


def _gather(ptr: np.ndarray, prof: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The profiles of documents ``rows``, packed: (pointers, values)."""
    if _fp_c is None:
        return _gather_profiles(ptr, prof, rows)  # type: ignore[no-any-return]
    ptr = np.ascontiguousarray(ptr, np.int64)
    out_ptr = np.zeros(rows.shape[0] + 1, np.int64)
    np.cumsum(ptr[rows + 1] - ptr[rows], out=out_ptr[1:])
    out = np.empty(int(out_ptr[-1]), np.uint32)
    _fp_c.copy_profiles(np.ascontiguousarray(prof, np.uint32), ptr[rows], out_ptr, out)
    return out_ptr, out

#: the per-document arrays of a ``Signatures``, in order
FIELDS = ("exact", "content", "simhash", "size", "tokens", "sketch", "numbers", "layout", "has_layout")


@dataclass
class Signatures:
    """The signatures of a batch of documents, one row per document (struct of arrays).

    Besides the fixed-width columns (``FIELDS``) each document has a **text profile**: its tokens'
    hashes in text order (``profile(i)``; the top bit marks a CJK character), up to
    ``MatchConfig.profile_tokens`` of them. Verification reads the two texts through their profiles
    (``neardup.match.text``); an empty profile (a signature stored without one) falls back to the
    sketch evidence.
    """

    exact: U64
    content: U64
    simhash: U64
    size: I32  # distinct windows
    tokens: I32
    sketch: U32  # (n, sketch_size), ascending, padded with EMPTY32
    numbers: U64  # (n, max_numbers), ascending, padded with EMPTY64
    layout: U64 = field(default_factory=lambda: np.empty(0, np.uint64))  # 0 where no HTML
    has_layout: npt.NDArray[np.bool_] = field(default_factory=lambda: np.empty(0, np.bool_))
    prof_ptr: npt.NDArray[np.int64] = field(default_factory=lambda: np.empty(0, np.int64))  # n + 1
    prof: U32 = field(default_factory=lambda: np.empty(0, np.uint32))

    def __len__(self) -> int:
        return int(self.exact.shape[0])

    def __post_init__(self) -> None:
        n = self.exact.shape[0]
        if self.layout.shape[0] != n:
            self.layout = np.zeros(n, np.uint64)
            self.has_layout = np.zeros(n, np.bool_)
        if self.prof_ptr.shape[0] != n + 1:
            self.prof_ptr = np.zeros(n + 1, np.int64)
            self.prof = np.empty(0, np.uint32)

    def columns(self) -> tuple[Any, ...]:
        """The arrays in ``FIELDS`` order, then the profile pointers and values, as the engine's
        numba kernels take them (one tuple)."""
        return (*(getattr(self, name) for name in FIELDS), self.prof_ptr, self.prof)

    def profile(self, i: int) -> U32:
        """Document ``i``'s text profile (empty when it was stored without one)."""
        return self.prof[self.prof_ptr[i] : self.prof_ptr[i + 1]]

    def take(self, rows: Any) -> Signatures:
        """The signatures of the documents at ``rows`` (an index array or a slice)."""
        idx = np.arange(len(self))[rows]
        ptr, prof = _gather(self.prof_ptr, self.prof, np.ascontiguousarray(idx, np.int64))
        return Signatures(**{name: getattr(self, name)[rows] for name in FIELDS}, prof_ptr=ptr, prof=prof)

    @classmethod
    def concat(cls, parts: Sequence[Signatures], config: MatchConfig | None = None) -> Signatures:
        if not parts:
            return signatures([], config)
        ptrs = [np.zeros(1, np.int64)]
        at = 0
        for p in parts:
            ptrs.append(p.prof_ptr[1:] - p.prof_ptr[0] + at)
            at += int(p.prof_ptr[-1] - p.prof_ptr[0])
        return Signatures(
            **{name: np.concatenate([getattr(p, name) for p in parts]) for name in FIELDS},
            prof_ptr=np.concatenate(ptrs),
            prof=np.concatenate([p.prof[p.prof_ptr[0] : p.prof_ptr[-1]] for p in parts]),
        )

    def row_bytes(self, i: int) -> bytes:
        """Row ``i`` as compact bytes (a journal record's payload): fixed fields, then the valid
        sketch values, number facts and the text profile."""
        sk = self.sketch[i]
        sk = sk[sk != EMPTY32]
        nm = self.numbers[i]
        nm = nm[nm != EMPTY64]
        pr = self.profile(i)
        head = (
            np.array([self.exact[i], self.content[i], self.simhash[i], self.layout[i]], np.uint64).tobytes()
            + np.array(
                [self.size[i], self.tokens[i], int(self.has_layout[i]), sk.size, nm.size, pr.size], np.int32
            ).tobytes()
        )
        return bytes(
            head + sk.astype("<u4").tobytes() + nm.astype("<u8").tobytes() + pr.astype("<u4").tobytes()
        )

    @classmethod
    def from_row_bytes(cls, data: bytes, config: MatchConfig | None = None) -> Signatures:
        """A one-row Signatures from ``row_bytes``; raises ValueError when the bytes do not fit."""
        cfg = config or MatchConfig()
        if len(data) < _ROW_HEAD:
            raise ValueError(f"a signature record holds at least {_ROW_HEAD} bytes, got {len(data)}")
        u = np.frombuffer(data[:32], "<u8")
        size, tokens, has_layout, nk, nm, npr = np.frombuffer(data[32:_ROW_HEAD], "<i4").tolist()
        if (
            not (0 <= nk <= cfg.sketch_size and 0 <= nm <= max(cfg.max_numbers, 1))
            or not 0 <= npr <= cfg.profile_tokens
            or len(data) != _ROW_HEAD + 4 * nk + 8 * nm + 4 * npr
        ):
            raise ValueError("a signature record's lengths do not match its settings")
        sketch = np.full((1, cfg.sketch_size), EMPTY32, np.uint32)
        sketch[0, :nk] = np.frombuffer(data[_ROW_HEAD : _ROW_HEAD + 4 * nk], "<u4")
        numbers = np.full((1, max(cfg.max_numbers, 1)), EMPTY64, np.uint64)
        at = _ROW_HEAD + 4 * nk
        numbers[0, :nm] = np.frombuffer(data[at : at + 8 * nm], "<u8")
        prof = np.frombuffer(data[at + 8 * nm :], "<u4").astype(np.uint32)
        return cls(
            exact=u[0:1].copy(),
            content=u[1:2].copy(),
            simhash=u[2:3].copy(),
            size=np.array([size], np.int32),
            tokens=np.array([tokens], np.int32),
            sketch=sketch,
            numbers=numbers,
            layout=u[3:4].copy(),
            has_layout=np.array([bool(has_layout)]),
            prof_ptr=np.array([0, npr], np.int64),
            prof=prof,
        )

    def nbytes_per_document(self) -> int:
        """Bytes one document's signature takes in memory, the text profile as its average."""
        n = max(len(self), 1)
        profile = 4 * int(self.prof_ptr[-1] - self.prof_ptr[0]) / n if len(self) else 0
        return int(8 * 4 + 4 * 2 + self.sketch.shape[1] * 4 + self.numbers.shape[1] * 8 + 1 + 8 + profile)


_ROW_HEAD = 56


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


def signatures(
    texts: Sequence[str],
    config: MatchConfig | None = None,
    *,
    raw: Sequence[str | None] | None = None,
    layouts: Sequence[int | None] | None = None,
) -> Signatures:
    """Signatures of main texts; ``raw`` (the decoded pages) gives the exact keys, else the texts.

    ``layouts`` are layout signatures of the pages the texts came from (None where there was no page).
    """
    cfg = config or MatchConfig()
    n = len(texts)
    if n == 0:
        z = np.empty(0, np.uint64)
        return Signatures(
            exact=z,
            content=z.copy(),
            simhash=z.copy(),
            size=np.empty(0, np.int32),
            tokens=np.empty(0, np.int32),
            sketch=np.empty((0, cfg.sketch_size), np.uint32),
            numbers=np.empty((0, max(cfg.max_numbers, 1)), np.uint64),
        )
    cps, offsets = to_codepoints([numbers_as_digits(t) for t in texts])
    if _fp_c is not None:
        content, simhash, size, ntok, sketch, nums, prof = _sign_c(
            cps, offsets, fold_table(), cfg.shingle, cfg.sketch_size, cfg.max_numbers
        )
        prof_ptr, prof = _compact_profiles_c(prof, offsets, ntok, cfg.profile_tokens)
    else:
        kernel = _signature_kernel if n >= _PARALLEL_FROM else _signature_kernel_serial
        with np.errstate(over="ignore"):  # hashing wraps around 2**64 on purpose (interpreted runs)
            content, simhash, size, ntok, sketch, nums, prof = kernel(
                cps, offsets, fold_table(), cfg.shingle, cfg.sketch_size, cfg.max_numbers
            )
        prof_ptr, prof = _compact_profiles(prof, offsets, ntok, cfg.profile_tokens)
    src = raw if raw is not None else texts
    exact = np.fromiter(
        (exact_key(r if r is not None else t) for r, t in zip(src, texts, strict=True)), np.uint64, n
    )
    sig = Signatures(
        exact=exact,
        content=content,
        simhash=simhash,
        size=size,
        tokens=ntok,
        sketch=sketch,
        numbers=nums,
        prof_ptr=prof_ptr,
        prof=prof,
    )
    if layouts is not None:
        has = np.fromiter((lay is not None for lay in layouts), np.bool_, n)
        sig.layout = np.fromiter((int(lay or 0) for lay in layouts), np.uint64, n)
        sig.has_layout = has
    return sig

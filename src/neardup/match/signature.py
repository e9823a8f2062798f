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

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from types import ModuleType
from typing import Any

import numpy as np
import numpy.typing as npt
import xxhash

from neardup._memory import release_free_memory
from neardup.fingerprint._fast import to_codepoints
from neardup.match.config import MatchConfig
from neardup.match.dates import NO_DAY
from neardup.text.credits import strip_credits
from neardup.text.normalize import compat_map, house_style, numbers_as_digits, regional_phrases, t2s_map

__all__ = [
    "EMPTY32",
    "EMPTY64",
    "FIELDS",
    "PreparedTexts",
    "Signatures",
    "exact_key",
    "prepare_texts",
    "read_as_signed",
    "signatures",
]

_fp_c: ModuleType | None
try:
    from neardup.fingerprint import _fp_c
except ImportError:  # built without a C compiler: the numba kernels of _signature_numba
    _fp_c = None

U64 = npt.NDArray[np.uint64]
U32 = npt.NDArray[np.uint32]
I32 = npt.NDArray[np.int32]

EMPTY32 = np.uint32(0xFFFFFFFF)  # pads a sketch with fewer values than sketch_size
EMPTY64 = np.uint64(0xFFFFFFFFFFFFFFFF)  # pads a number list


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


_PARALLEL_FROM = 256


def _sign_c(
    cps: np.ndarray,
    offsets: np.ndarray,
    table: np.ndarray,
    n: int,
    k: int,
    m: int,
    threads: int | None = None,
) -> tuple[np.ndarray, ...]:
    """``_signature_kernel`` in C: the batch split in contiguous parts, one per core (at most
    ``threads``) from ``_PARALLEL_FROM`` documents, each signed by a thread with the GIL released."""
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
    cores = _cores() if threads is None else threads
    parts = min(cores, nd // (_PARALLEL_FROM // 2)) if nd >= _PARALLEL_FROM else 1
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
            for lo, hi in itertools.pairwise(bounds)
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
        from neardup.match._signature_numba import _gather_profiles

        return _gather_profiles(ptr, prof, rows)
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
    # the record's date as a day number (``neardup.match.dates``; NO_DAY unknown): not part of the
    # signature, a fact of the record the engine compares (``MatchConfig.occasion_days``)
    day: npt.NDArray[np.int32] = field(default_factory=lambda: np.empty(0, np.int32))

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
        if self.day.shape[0] != n:
            self.day = np.full(n, NO_DAY, np.int32)

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
        return Signatures(
            **{name: getattr(self, name)[rows] for name in FIELDS},
            prof_ptr=ptr,
            prof=prof,
            day=self.day[rows],
        )

    @classmethod
    def concat(
        cls, parts: Sequence[Signatures], config: MatchConfig | None = None, *, consume: bool = False
    ) -> Signatures:
        """The rows of ``parts``, one after another.

        ``consume``: the parts are emptied as they are joined, a column at a time, and the freed
        memory is handed back to the system before the next column is joined, so the join holds
        the result plus one column's parts (not everything twice); the parts are unusable after.

        >>> a, b = signatures(["长江是母亲河"]), signatures(["今天天气很好"])
        >>> s = Signatures.concat([a, b], consume=True)
        >>> len(s), s.profile(1).size, len(a)
        (2, 6, 0)
        """
        if not parts:
            return signatures([], config)
        ptrs = [np.zeros(1, np.int64)]
        at = 0
        for p in parts:
            ptrs.append(p.prof_ptr[1:] - p.prof_ptr[0] + at)
            at += int(p.prof_ptr[-1] - p.prof_ptr[0])
        cols: dict[str, Any] = {"prof_ptr": np.concatenate(ptrs)}
        del ptrs
        # the largest column first: while it is joined, the other columns' parts are all still held
        for name in ("prof", *FIELDS, "day"):
            if name == "prof":
                cols[name] = np.concatenate([p.prof[p.prof_ptr[0] : p.prof_ptr[-1]] for p in parts])
            else:
                cols[name] = np.concatenate([getattr(p, name) for p in parts])
            if consume:
                for p in parts:
                    old = getattr(p, name)
                    setattr(p, name, old[:0].copy())
                    del old
                release_free_memory()
        if consume:
            for p in parts:
                p.prof_ptr = np.zeros(1, np.int64)
        return Signatures(**cols)

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


@dataclass(frozen=True)
class PreparedTexts:
    """Texts read as the signing reads them (``prepare_texts``), to be signed by ``sign``: the
    reading holds the interpreter's lock, the signing does not, so a batch can be signed on other
    cores while the next one is read (``neardup.dedup.fingerprints``)."""

    config: MatchConfig
    codepoints: np.ndarray
    offsets: np.ndarray
    exact: npt.NDArray[np.uint64]
    layouts: tuple[npt.NDArray[np.uint64], npt.NDArray[np.bool_]] | None = None

    def __len__(self) -> int:
        return int(self.exact.shape[0])

    def sign(self, *, threads: int | None = None) -> Signatures:
        """The texts' signatures (the C kernels run with the interpreter's lock released, on up to
        ``threads`` threads: every core by default)."""
        cfg, cps, offsets = self.config, self.codepoints, self.offsets
        if len(self) == 0:
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
        if _fp_c is not None:
            content, simhash, size, ntok, sketch, nums, prof = _sign_c(
                cps, offsets, fold_table(), cfg.shingle, cfg.sketch_size, cfg.max_numbers, threads
            )
            prof_ptr, prof = _compact_profiles_c(prof, offsets, ntok, cfg.profile_tokens)
        else:
            from neardup.match._signature_numba import (
                _compact_profiles,
                _signature_kernel,
                _signature_kernel_serial,
            )

            parallel = len(self) >= _PARALLEL_FROM and threads != 1
            kernel = _signature_kernel if parallel else _signature_kernel_serial
            with np.errstate(over="ignore"):  # hashing wraps around 2**64 on purpose (interpreted runs)
                content, simhash, size, ntok, sketch, nums, prof = kernel(
                    cps, offsets, fold_table(), cfg.shingle, cfg.sketch_size, cfg.max_numbers
                )
            prof_ptr, prof = _compact_profiles(prof, offsets, ntok, cfg.profile_tokens)
        sig = Signatures(
            exact=self.exact,
            content=content,
            simhash=simhash,
            size=size,
            tokens=ntok,
            sketch=sketch,
            numbers=nums,
            prof_ptr=prof_ptr,
            prof=prof,
        )
        if self.layouts is not None:
            sig.layout, sig.has_layout = self.layouts
        return sig


def read_as_signed(text: str) -> str:
    """A main text as the signing reads it: a site's credit lines are the site's, not the
    article's; numbers, dates and times are read one way, Taiwan phrases as the mainland ones they
    stand for, English in one house style (U.S. as US, don't as do not, colour as color).

    >>> read_as_signed("五月六日，全年增长十五万人")
    '5月6日，全年增长150000人'
    """
    return numbers_as_digits(house_style(regional_phrases(strip_credits(text))))


def prepare_texts(
    texts: Sequence[str],
    config: MatchConfig | None = None,
    *,
    raw: Sequence[str | None] | None = None,
    layouts: Sequence[int | None] | None = None,
) -> PreparedTexts:
    """Main texts read as the signing reads them, and their exact keys (``signatures`` without
    the signing: ``prepare_texts(texts).sign() == signatures(texts)``).

    >>> prepare_texts(["今天天气晴朗。"]).sign().tokens.tolist() == signatures(["今天天气晴朗。"]).tokens.tolist()
    True
    """
    cfg = config or MatchConfig()
    n = len(texts)
    cps, offsets = to_codepoints([read_as_signed(t) for t in texts])
    src = raw if raw is not None else texts
    exact = np.fromiter(
        (exact_key(r if r is not None else t) for r, t in zip(src, texts, strict=True)), np.uint64, n
    )
    laid = None
    if layouts is not None:
        laid = (
            np.fromiter((int(lay or 0) for lay in layouts), np.uint64, n),
            np.fromiter((lay is not None for lay in layouts), np.bool_, n),
        )
    return PreparedTexts(cfg, cps, offsets, exact, laid)


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
    return prepare_texts(texts, config, raw=raw, layouts=layouts).sign()

"""The match engine's kernels: compiled C where the extension was built, numba otherwise.

The engine's pass (``neardup.match.engine``: candidates, verification, clusters), the journal
replay's recording, the tables' rehashing and the pair checks of ``compare`` and ``rethreshold``
(``verify_pair``, ``text_evidence``, ``decide_text``) are in the C extension ``_match_c``, compiled by
pip with the machine's C compiler when the package is installed, so a user's first run compiles
nothing and numba is not imported for them. Where the extension could not be built (no C
compiler at install), the numba kernels of ``tables``, ``text``, ``verify``, ``cluster`` and
``engine`` run instead: the same results bit for bit (tests/unit/match/test_match_c_vs_numba.py),
compiled into the kernel cache the first time each is used.

Each function takes the arguments of the numba kernel it stands for, in the same order.

>>> import numpy as np
>>> a = np.array([1, 2, 3, 4, 5], np.uint32) | np.uint32(0x80000000)
>>> [int(x) for x in text_evidence(a, a, 2, 2)[[0, 1, 4]]]  # adds nothing either way, one passage
[0, 0, 5]
>>> BACKEND in ("c", "numba")
True
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

import numpy as np
import numpy.typing as npt

_c: ModuleType | None
try:
    _c = importlib.import_module("neardup.match._match_c")
except ImportError:  # built without a C compiler: the numba kernels run
    _c = None
if _c is not None and hasattr(_c, "set_words"):
    from neardup.match.words import ANTONYM_KEYS, WORD_KEYS

    _c.set_words(WORD_KEYS.tobytes(), ANTONYM_KEYS.tobytes())

__all__ = [
    "BACKEND",
    "apart",
    "decide_text",
    "join",
    "occasions_apart",
    "pair_kinds",
    "record",
    "rehash_keys",
    "rehash_postings",
    "run",
    "run_components",
    "set_threads",
    "sort_u64",
    "text_evidence",
    "text_evidence_rows",
    "threads",
    "value_pairs",
    "verify_pair",
]

#: which kernels run: "c" (the extension) or "numba"
BACKEND = "c" if _c is not None else "numba"

I64 = npt.NDArray[np.int64]
# the dtypes of the signature columns (``Signatures.columns()``) as the C kernels read them
_SIG_DTYPES = (
    np.uint64,
    np.uint64,
    np.uint64,
    np.int32,
    np.int32,
    np.uint32,
    np.uint64,
    np.uint64,
    np.bool_,
    np.int64,
    np.uint32,
)
_EVIDENCE_SIZE = 20


def _nb(name: str) -> Any:
    """The numba module ``neardup.match.<name>`` (imported, hence numba, only when needed)."""
    return importlib.import_module(f"neardup.match.{name}")


def _columns(sig: tuple[Any, ...]) -> tuple[Any, ...]:
    """The signature columns in the dtypes the C kernels take (no copy when they already are)."""
    if not isinstance(sig, tuple) or len(sig) != len(_SIG_DTYPES):
        raise TypeError(f"sig must be a tuple of {len(_SIG_DTYPES)} arrays (Signatures.columns())")
    return tuple(np.ascontiguousarray(a, t) for a, t in zip(sig, _SIG_DTYPES, strict=True))


def run(*args: Any) -> int:
    """``engine._run``: documents j0..j1-1 in order; returns pairs verified."""
    if _c is not None:
        a = list(args)
        a[8], a[9] = _columns(a[8]), np.ascontiguousarray(a[9], np.int32)
        return int(_c.run(*a))
    return int(_nb("engine")._run(*args))


def set_threads(n: int = 0) -> int:
    """Threads of ``run_components``' pass in C: 1, or 2 (a helper thread computes the text evidence
    of a document's candidate pairs alongside; the result is the same either way); 0: 2 where the
    process may use two cores, else 1. Returns the number set (the numba kernels use one thread).

    >>> set_threads(1), set_threads() in (1, 2)
    (1, True)
    """
    if n < 0:
        raise ValueError(f"threads must be >= 0 (0: as many as the cores allow, up to 2), got {n}")
    if n == 0:
        import os

        try:
            n = len(os.sched_getaffinity(0))
        except (AttributeError, OSError):
            n = os.cpu_count() or 1
    n = min(n, 2)
    if _c is not None:
        _c.set_threads(n)
    _THREADS[0] = n
    return n


_THREADS = [1]


def threads() -> int:
    """The threads ``set_threads`` set: the pass's, and the candidate graph's (``components``)."""
    return _THREADS[0]


def run_components(*args: Any) -> int:
    """``engine._run_components``: the pass once per component; returns pairs verified."""
    if _c is not None:
        a = list(args)
        a[7], a[8] = _columns(a[7]), np.ascontiguousarray(a[8], np.int32)
        return int(_c.run_components(*a))
    return int(_nb("engine")._run_components(*args))


def pair_kinds(
    todo: I64, ra: I64, rb: I64, at: I64, sig: tuple[Any, ...], texts: Any, rule: tuple[Any, ...], full: bool
) -> npt.NDArray[np.int8]:
    """``components._kinds_serial``: the kind of each pair ``todo`` of ``(ra, rb)`` from its two
    documents alone (``rule``: ``components.pair_rule``)."""
    if _c is None:
        return np.asarray(_nb("components")._kinds_serial(todo, ra, rb, at, sig, texts, rule, full))
    k, layout_distance, th, max_conflicts, agree_min, pv, pc = rule
    out = np.empty(todo.shape[0], np.int8)
    _c.pair_kinds(
        np.ascontiguousarray(todo, np.int64),
        np.ascontiguousarray(ra, np.int64),
        np.ascontiguousarray(rb, np.int64),
        np.ascontiguousarray(at, np.int64),
        _columns(sig),
        np.ascontiguousarray(texts, np.bool_),
        int(k),
        int(layout_distance),
        np.ascontiguousarray(th, np.float64),
        int(max_conflicts),
        int(agree_min),
        pv,
        pc,
        bool(full),
        out,
    )
    return out


def apart(parent: I64, na: I64, nb: I64, s: int, e: int) -> I64:
    """``components._apart``: the pairs s..e-1 whose nodes the forest ``parent`` does not connect."""
    if _c is None:
        return np.asarray(_nb("components")._apart(parent, na, nb, s, e))
    out = np.empty(max(0, e - s), np.int64)
    return out[: _c.apart(parent, na, nb, s, e, out)]


def join(parent: I64, na: I64, nb: I64, todo: I64, kinds: npt.NDArray[np.int8], linked: Any) -> None:
    """``components._join``: the pairs ``todo`` whose kind is not unique joined and marked linked."""
    if _c is None:
        _nb("components")._join(parent, na, nb, todo, kinds, linked)
        return
    _c.join(parent, na, nb, np.ascontiguousarray(todo, np.int64), kinds, linked)


def record(
    j0: int,
    j1: int,
    rep: I64,
    nxt: I64,
    sig: tuple[Any, ...],
    day: npt.NDArray[np.int32],
    tab: tuple[np.ndarray, ...],
    meta: I64,
    k: int,
    posted: int,
    max_posting: int,
    layout_distance: int,
    th: npt.NDArray[np.float64],
    max_conflicts: int,
    agree_min: int,
) -> None:
    """Rows j0..j1-1 whose representatives ``rep`` already holds: each listed among its cluster's
    members when it verifies against the representative, then left in the tables (``link_member``
    and ``record_document`` in turn). ``day``: the records' day numbers (empty: no dates)."""
    if _c is not None:
        _c.record(
            j0,
            j1,
            rep,
            nxt,
            _columns(sig),
            np.ascontiguousarray(day, np.int32),
            tab,
            meta,
            k,
            posted,
            max_posting,
            layout_distance,
            th,
            max_conflicts,
            agree_min,
        )
        return
    link_member = _nb("cluster").link_member
    record_document = _nb("tables").record_document
    rule = (k, layout_distance, th, max_conflicts, agree_min, max_posting, day)
    for j in range(j0, j1):
        link_member(j, rep, nxt, sig, rule, tab)
        record_document(j, bool(rep[j] != j), sig, tab, posted, max_posting, meta)


def rehash_postings(*args: Any) -> None:
    """``engine._rehash_posting_kernel``: posting table (pv, pc, pf, ph) into a larger one."""
    if _c is not None:
        _c.rehash_postings(*args)
    else:
        _nb("engine")._rehash_posting_kernel(*args)


def rehash_keys(*args: Any) -> None:
    """``engine._rehash_keys_kernel``: key table (keys, rows) into a larger one (k2, r2)."""
    if _c is not None:
        _c.rehash_keys(*args)
    else:
        _nb("engine")._rehash_keys_kernel(*args)


def text_evidence_rows(ptr: Any, prof: Any, a: Any, b: Any, w_cjk: int, w_latin: int) -> I64:
    """The text evidence of the profile pairs ``(a[i], b[i])`` of one batch (profiles
    ``prof[ptr[d]:ptr[d + 1]]``), int64[n, 20]; in C on up to two threads."""
    a = np.ascontiguousarray(a, np.int64)
    b = np.ascontiguousarray(b, np.int64)
    out = np.zeros((a.shape[0], _EVIDENCE_SIZE), np.int64)
    if _c is not None and hasattr(_c, "text_evidence_rows"):
        _c.text_evidence_rows(
            np.ascontiguousarray(ptr, np.int64),
            np.ascontiguousarray(prof, np.uint32),
            a,
            b,
            int(w_cjk),
            int(w_latin),
            out,
            2,
        )
        return out
    for i in range(a.shape[0]):
        x, y = int(a[i]), int(b[i])
        out[i] = text_evidence(prof[ptr[x] : ptr[x + 1]], prof[ptr[y] : ptr[y + 1]], w_cjk, w_latin)
    return out


def text_evidence(a: Any, b: Any, w_cjk: int, w_latin: int) -> I64:
    """``text.text_evidence``: the text evidence of two profiles, int64[20]."""
    if _c is not None:
        out = np.zeros(_EVIDENCE_SIZE, np.int64)
        _c.text_evidence(
            np.ascontiguousarray(a, np.uint32),
            np.ascontiguousarray(b, np.uint32),
            int(w_cjk),
            int(w_latin),
            out,
        )
        return out
    with np.errstate(over="ignore"):  # hash arithmetic wraps around on purpose (interpreted runs)
        return np.asarray(_nb("text").text_evidence(a, b, w_cjk, w_latin))


def decide_text(kd: int, ev: Any, same_layout: bool, th: npt.NDArray[np.float64]) -> int:
    """``verify.decide_text``: the kind of a pair from its text evidence."""
    if _c is not None:
        return int(
            _c.decide_text(
                int(kd),
                np.ascontiguousarray(ev, np.int64),
                bool(same_layout),
                np.ascontiguousarray(th, np.float64),
            )
        )
    return int(_nb("verify").decide_text(kd, ev, same_layout, th))


def occasions_apart(kd: int, day_a: int, day_b: int, th: npt.NDArray[np.float64]) -> int:
    """``verify.occasions_apart``: the kind of a pair once the records' dates are read."""
    if _c is not None:
        return int(_c.occasions_apart(int(kd), int(day_a), int(day_b), np.ascontiguousarray(th, np.float64)))
    return int(_nb("verify").occasions_apart(kd, day_a, day_b, th))


def verify_pair(
    sa: Any,
    na: Any,
    size_a: int,
    pa: Any,
    sb: Any,
    nb: Any,
    size_b: int,
    pb: Any,
    exact_eq: bool,
    content_eq: bool,
    same_layout: bool,
    k: int,
    pv: Any,
    pc: Any,
    max_posting: int,
    th: npt.NDArray[np.float64],
    max_conflicts: int,
    agree_min: int,
) -> tuple[int, float, float, float, int, int, I64]:
    """``verify.verify_pair``: (kind, similarity, containment of a in b, of b in a, number
    conflicts, numbers agreeing, text evidence)."""
    if _c is None:
        with np.errstate(over="ignore"):
            r = _nb("verify").verify_pair(
                sa,
                na,
                size_a,
                pa,
                sb,
                nb,
                size_b,
                pb,
                exact_eq,
                content_eq,
                same_layout,
                k,
                pv,
                pc,
                max_posting,
                th,
                max_conflicts,
                agree_min,
            )
        return int(r[0]), float(r[1]), float(r[2]), float(r[3]), int(r[4]), int(r[5]), np.asarray(r[6])
    ev = np.zeros(_EVIDENCE_SIZE, np.int64)
    u32, u64 = np.uint32, np.uint64
    kd, s, ca, cb, c, a = _c.verify_pair(
        np.ascontiguousarray(sa, u32),
        np.ascontiguousarray(na, u64),
        int(size_a),
        np.ascontiguousarray(pa, u32),
        np.ascontiguousarray(sb, u32),
        np.ascontiguousarray(nb, u64),
        int(size_b),
        np.ascontiguousarray(pb, u32),
        bool(exact_eq),
        bool(content_eq),
        bool(same_layout),
        int(k),
        np.ascontiguousarray(pv, u32),
        np.ascontiguousarray(pc, np.int32),
        int(max_posting),
        np.ascontiguousarray(th, np.float64),
        int(max_conflicts),
        int(agree_min),
        ev,
    )
    return kd, s, ca, cb, c, a, ev


def sort_u64(a: npt.NDArray[np.uint64]) -> None:
    """Sort a uint64 array in place: the C radix sort (several times numpy's sort on the pairs
    and keys the candidate graph sorts), numpy's when the extension is not built.

    >>> a = np.array([3, 1, 2], np.uint64); sort_u64(a); a.tolist()
    [1, 2, 3]
    """
    if _c is not None and a.dtype == np.uint64 and a.flags.c_contiguous and a.flags.writeable:
        _c.sort_u64(a, threads())  # from 2^20 values, split at a sampled median and sorted on two threads
    else:
        a.sort()


def value_pairs(
    values: Any,
    docs: Any,
    posted: Any,
    hot_posting: int,
    link_posters: int,
    span: tuple[int, int] | None = None,
) -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint32]]:
    """``components.value_pairs``: the packed sketch-edge pairs and the hot values of (value,
    document, posted?) rows sorted by value, then document; ``span``: only the pairs whose later
    document is in ``[lo, hi)``."""
    if _c is None:
        out, hot = _nb("components").value_pairs(values, docs, posted, hot_posting, link_posters)
        if span is not None:
            b = out & np.uint64(0xFFFFFFFF)
            out = out[(b >= np.uint64(span[0])) & (b < np.uint64(span[1]))]
        return out, hot
    v = np.ascontiguousarray(values, np.uint32)
    d = np.ascontiguousarray(docs, np.int64)
    p = np.ascontiguousarray(posted, np.bool_)
    lo, hi = span if span is not None else (0, 1 << 62)
    # room for the most pairs the rows can give (each holder in the span with ``link_posters``
    # posters) rather than a counting pass over the rows: pages that are never written are never
    # resident
    holders = d.shape[0] if span is None else int(np.count_nonzero((d >= lo) & (d < hi)))
    out = np.empty(holders * int(link_posters), np.uint64)
    hot = np.empty(v.shape[0], np.uint32)
    k, h = _c.value_pairs(v, d, p, int(hot_posting), int(link_posters), out, hot, lo, hi)
    return out[:k], hot[:h].copy()


def value_keys(sketch: Any, posted: int, reps: Any = None) -> npt.NDArray[np.uint64] | None:
    """``components.value_rows``' unsorted keys ``value << 32 | not posted << 31 | document`` of a
    batch's sketch (a document's first ``posted`` values posted, where ``reps`` when given), in one
    C pass; ``None`` without the C extension."""
    if _c is None:
        return None
    sk = np.ascontiguousarray(sketch, np.uint32)
    rp = None if reps is None else np.ascontiguousarray(reps, np.bool_)
    out = np.empty(_c.value_keys(sk, int(posted), rp, None), np.uint64)  # counted, then written
    _c.value_keys(sk, int(posted), rp, out)
    return out


def value_groups(
    values: Any, docs: Any, posted: Any, hot_posting: int, link_posters: int, n: int
) -> tuple[I64, npt.NDArray[np.uint32], npt.NDArray[np.float64], npt.NDArray[np.uint32]] | None:
    """``components.shared_pairs``' index of rows as ``components.value_rows`` makes them (a value's
    posters first): per document ``d`` (``n`` of them), ``starts[ptr[d]:ptr[d + 1]]`` are the first
    rows of the values it holds that are not hot; ``bound[d]``, the pairs ``range_pairs`` can give it
    (``components.pair_bounds``); and the hot values, ascending. ``None`` without the C extension or
    past 2^32 rows (the pairs are then found by ``value_pairs``' scans)."""
    v = np.ascontiguousarray(values, np.uint32)
    if _c is None or v.shape[0] >= 1 << 32:
        return None
    ptr = np.empty(n + 1, np.int64)
    starts = np.empty(v.shape[0], np.uint32)
    bound = np.empty(n, np.float64)
    hot = np.empty(v.shape[0], np.uint32)
    k, h = _c.value_groups(
        v,
        np.ascontiguousarray(docs, np.int32),
        np.ascontiguousarray(posted, np.bool_),
        int(hot_posting),
        int(link_posters),
        ptr,
        starts,
        bound,
        hot,
    )
    # starts[:k] as it is: the rows past k were never written, so never resident (a copy would hold
    # the index twice at the graph's peak)
    return ptr, starts[:k], bound, hot[:h].copy()


def range_pairs(
    values: Any,
    docs: Any,
    posted: Any,
    index: tuple[Any, ...],
    link_posters: int,
    min_shared: int,
    span: tuple[int, int],
) -> npt.NDArray[np.uint64]:
    """The packed pairs ``value_pairs`` gives over the same rows at least ``min_shared`` times,
    whose later document is in ``span`` (ascending by that document, then the earlier), read from
    ``value_groups``' ``index`` and counted a document at a time: the work follows the range's
    pairs, not every row, and no pair is held before it is counted."""
    assert _c is not None
    ptr, starts, bound = index[0], index[1], index[2]
    lo, hi = span[0], min(span[1], bound.shape[0])
    # a kept pair is min_shared of a document's gathered posters, so the range's bound over
    # min_shared bounds the pairs kept (pages never written are never resident)
    out = np.empty(int(bound[lo:hi].sum()) // max(1, int(min_shared)) + 1 if hi > lo else 0, np.uint64)
    k = _c.range_pairs(
        np.ascontiguousarray(values, np.uint32),
        np.ascontiguousarray(docs, np.int32),
        np.ascontiguousarray(posted, np.bool_),
        ptr,
        starts,
        int(link_posters),
        int(min_shared),
        int(lo),
        int(hi),
        out,
    )
    kept: npt.NDArray[np.uint64] = out[:k].copy()
    return kept


set_threads()  # as many as the cores allow, up to 2

"""The Hamming index's kernels: compiled C where the extension was built, numba otherwise.

Every kernel of the index (build, query, self-join, compressed tables, match ordering, cluster
labels) is in the C extension ``_index_c``, compiled by pip with the machine's C compiler when the
package is installed, so nothing is compiled while a user's program runs: the first query of a
fresh process costs what the kernel does, and numba is not even imported. Where the extension could
not be built (no C compiler at install), the same kernels run in numba (:mod:`._kernels_nb`,
:mod:`.residual`, :mod:`.build`, :mod:`._codec_nb`): the same results (tested against each other
on random inputs), compiled into the kernel cache the first time each is used (tens of seconds in
a fresh install, unless ``neardup warmup`` ran) and loaded from it afterwards.

Every kernel that reports results writes into caller-allocated output arrays (a tuple, its last
argument) and returns how many results it found; when that count exceeds the capacity the caller
grows the arrays and calls again (results are deterministic, so the second call writes the same
results). The order in which a query kernel reports its matches is not part of the contract (the
index sorts them); the set of matches is.

Names this module does not define (``popcount64``, ``permute1``, ``emit``, ...: numba building
blocks other numba kernels inline) are the numba ones, loaded on first use.

>>> import numpy as np
>>> union_find_labels(4, np.array([0, 2]), np.array([1, 3])).tolist()
[0, 0, 2, 2]
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
    _c = importlib.import_module("neardup.index._index_c")
except ImportError:  # built without a C compiler: the numba kernels run
    _c = None

__all__ = [
    "BACKEND",
    "RADIX_BITS",
    "build_tables",
    "decode_all",
    "encode",
    "fix_runs",
    "join_table0",
    "order_matches",
    "permute_sorted",
    "prefix_offsets",
    "query_brute",
    "query_compressed",
    "query_residual",
    "self_join_tables",
    "sorted_with_ids",
    "split_table",
    "star_labels",
    "symbols",
    "union_find_labels",
]

#: which kernels run: "c" (the extension) or "numba"
BACKEND = "c" if _c is not None else "numba"

#: radix bits of the build's first sort pass: 65,536 buckets, a few hundred values each at 10M
RADIX_BITS = 16

I64 = npt.NDArray[np.int64]
U64 = npt.NDArray[np.uint64]


def _nb(name: str) -> Any:
    """The numba module ``neardup.index.<name>`` (imported, hence numba, only when needed)."""
    return importlib.import_module(f"neardup.index.{name}")


def __getattr__(name: str) -> Any:
    # numba building blocks (popcount64, permute1, emit, ...) for other modules' numba kernels
    if name.startswith("__"):
        raise AttributeError(name)
    mod = _nb("_kernels_nb")
    if hasattr(mod, name):
        return getattr(mod, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _i64(a: Any) -> I64:
    return np.ascontiguousarray(a, dtype=np.int64)


# --- kernels.py ------------------------------------------------------------------------------------
def query_brute(qfps: U64, k: int, fps: U64, outs: tuple[I64, I64, I64]) -> int:
    """Compare every query with every fingerprint of a small unsorted buffer."""
    if _c is not None:
        return int(_c.query_brute(qfps, k, fps, outs))
    return int(_nb("_kernels_nb").query_brute(qfps, k, fps, outs))


def prefix_offsets(vals: U64, shift: int, nbuckets: int) -> I64:
    """offsets[b]..offsets[b+1] is the range of sorted ``vals`` whose top bits (``v >> shift``) equal b."""
    if _c is not None:
        out = np.empty(nbuckets + 1, dtype=np.int64)
        _c.prefix_offsets(vals, shift, nbuckets, out)
        return out
    return np.asarray(_nb("_kernels_nb").prefix_offsets(vals, shift, nbuckets))


def self_join_tables(
    k: int,
    tab: U64,
    keybits: I64,
    bits: int,
    pbits: int,
    off: I64,
    perm: tuple[Any, ...],
    blocks: tuple[Any, ...],
    dead: npt.NDArray[np.uint8],
    outs: tuple[I64, I64, I64],
) -> int:
    """Every pair of rows (a < b) of table 0 within distance k, each pair once (full-width tables)."""
    args = (k, tab, keybits, bits, pbits, off, perm, blocks, dead, outs)
    if _c is not None:
        return int(_c.self_join_tables(*args))
    return int(_nb("_kernels_nb").self_join_tables(*args))


def union_find_labels(n: int, a: Any, b: Any) -> I64:
    """Connected components over rows 0..n-1; label = smallest row of the component."""
    if _c is not None:
        out = np.empty(n, dtype=np.int64)
        _c.union_find_labels(n, _i64(a), _i64(b), out)
        return out
    return np.asarray(_nb("_kernels_nb").union_find_labels(n, a, b))


def star_labels(n: int, a: Any, b: Any, order: Any) -> I64:
    """Star clustering over rows 0..n-1 visited in ``order``: label = the row of the centre."""
    if _c is not None:
        out = np.empty(n, dtype=np.int64)
        _c.star_labels(n, _i64(a), _i64(b), _i64(order), out)
        return out
    return np.asarray(_nb("_kernels_nb").star_labels(n, a, b, order))


def fix_runs(f: U64, ids: npt.NDArray[Any], shift: int) -> None:
    """Sort, in place and stably, each run of ``f`` whose values agree above ``shift`` (ids follow)."""
    if _c is not None:
        _c.fix_runs(f, ids, shift)
    else:
        _nb("_kernels_nb").fix_runs(f, ids, shift)


def permute_sorted(fps: U64, perm: tuple[Any, ...], t: int, sbits: int, bits: int, out: U64) -> None:
    """``out``: the fingerprints permuted for table ``t``, sorted."""
    if _c is not None:
        _c.permute_sorted(fps, perm, t, sbits, bits, out)
    else:
        _nb("_kernels_nb").permute_sorted(fps, perm, t, sbits, bits, out)


def sorted_with_ids(
    fps: U64, ids: npt.NDArray[Any], sbits: int, bits: int, out: U64, out_ids: npt.NDArray[Any]
) -> None:
    """``out``: the fingerprints sorted; ``out_ids``: their ids (equal fingerprints keep input order)."""
    if _c is not None:
        _c.sorted_with_ids(fps, ids, sbits, bits, out, out_ids)
    else:
        _nb("_kernels_nb").sorted_with_ids(fps, ids, sbits, bits, out, out_ids)


def order_matches(qa: I64, da: I64, ia: I64, nq: int) -> I64:
    """The order of matches by query, then distance, then id (then position: stable)."""
    if _c is not None:
        out = np.empty(qa.shape[0], dtype=np.int64)
        _c.order_matches(_i64(qa), _i64(da), _i64(ia), nq, out)
        return out
    return np.asarray(_nb("_kernels_nb").order_matches(qa, da, ia, nq))


# --- residual.py -----------------------------------------------------------------------------------
def split_table(
    v: U64, lobits: int, rbits: int, hi_row: npt.NDArray[np.uint32], lo_out: npt.NDArray[Any], off_row: I64
) -> None:
    """Cut sorted values into the directory (bits above ``rbits``), ``hi`` and (if given) ``lo``."""
    if _c is not None:
        _c.split_table(v, lobits, rbits, hi_row, lo_out, off_row)
    else:
        _nb("residual").split_table(v, lobits, rbits, hi_row, lo_out, off_row)


def join_table0(
    hi: npt.NDArray[np.uint32], lo: npt.NDArray[Any], off: npt.NDArray[Any], lobits: int, rbits: int
) -> U64:
    """The full values of table 0 (the sorted fingerprints) from its directory and columns."""
    if _c is not None:
        out = np.empty(hi.shape[1], dtype=np.uint64)
        _c.join_table0(hi, lo, off, lobits, rbits, out)
        return out
    return np.asarray(_nb("residual").join_table0(hi, lo, off, lobits, rbits))


def query_residual(
    qfps: U64,
    k: int,
    tables: tuple[Any, ...],
    keybits: I64,
    geo: tuple[int, int, int],
    known: tuple[Any, ...],
    perm: tuple[Any, ...],
    blocks: tuple[Any, ...],
    dead: npt.NDArray[np.uint8],
    outs: tuple[I64, I64, I64],
) -> int:
    """Every (query, row of table 0, distance) with distance <= k, each pair once, unordered."""
    args = (qfps, k, tables, keybits, geo, known, perm, blocks, dead, outs)
    if _c is not None:
        return int(_c.query_residual(*args))
    return int(_nb("residual").query_residual(*args))


# --- build.py --------------------------------------------------------------------------------------
def build_tables(
    fps: U64,
    ids: npt.NDArray[Any],
    perm: tuple[Any, ...],
    ts: I64,
    geo: tuple[int, int, int],
    hi: npt.NDArray[np.uint32],
    lo: npt.NDArray[Any],
    ids_out: npt.NDArray[Any],
    off: npt.NDArray[Any],
    work: U64,
) -> None:
    """Fill the tables ``ts`` of a segment (see :mod:`neardup.index.build`); releases the GIL."""
    if _c is not None:
        _c.build_tables(fps, ids, perm, ts, geo, hi, lo, ids_out, off, work)
    else:
        _nb("build").build_tables(fps, ids, perm, ts, geo, hi, lo, ids_out, off, work)


# --- codec.py --------------------------------------------------------------------------------------
def symbols(v: U64, B: int, mode: int) -> tuple[I64, int]:
    """Huffman symbol counts (65) of a sorted table cut in blocks of ``B``, and its raw low bits."""
    if _c is not None:
        counts = np.empty(65, dtype=np.int64)
        raw = _c.symbols(v, B, mode, counts)
        return counts, int(raw)
    counts, raw = _nb("_codec_nb")._symbols(v, B, mode)
    return counts, int(raw)


def encode(
    v: U64, B: int, codes: U64, lens: I64, words: U64, base: int, firsts: U64, starts: U64, mode: int
) -> int:
    """Huffman-code sorted ``v`` into ``words`` from bit ``base``; returns the end bit."""
    if _c is not None:
        return int(_c.encode(v, B, codes, lens, words, base, firsts, starts, mode))
    return int(_nb("_codec_nb")._encode(v, B, codes, lens, words, base, firsts, starts, mode))


def decode_all(
    words: U64,
    firsts: U64,
    starts: I64,
    lut: npt.NDArray[np.uint16],
    t: int,
    L: int,
    B: int,
    n: int,
    mode: int,
) -> U64:
    """Every value of compressed table ``t``."""
    if _c is not None:
        out = np.empty(n, dtype=np.uint64)
        _c.decode_all(words, firsts, starts, lut, t, L, B, n, mode, out)
        return out
    return np.asarray(_nb("_codec_nb")._decode_all(words, firsts, starts, lut, t, L, B, n, mode))


def query_compressed(*args: Any) -> int:
    """Every (query, row, distance) within k over compressed tables (arguments as in ``_codec_nb``)."""
    if _c is not None:
        return int(_c.query_compressed(*args))
    return int(_nb("_codec_nb").query_compressed(*args))

"""The match engine's kernels in C (``_match_c.c``); arrays are C-contiguous buffers, outputs writable.

Each takes the arguments of the numba kernel it stands for (``neardup.match.kernels``), in order;
``sig`` is ``Signatures.columns()``, ``tab`` is ``EngineState.tables()``, ``res`` the eight result
arrays (kind, partner, similarity, containment, conflicts, aligned, hamming, text).
"""

from typing import Any

def run(
    j0: int,
    j1: int,
    fixed: int,
    add: bool,
    rep: Any,
    nxt: Any,
    checked: Any,
    sup: Any,
    sig: tuple[Any, ...],
    tab: tuple[Any, ...],
    meta: Any,
    extra_ptr: Any,
    extra: Any,
    k: int,
    posted: int,
    min_shared: int,
    max_posting: int,
    layout_distance: int,
    th: Any,
    max_conflicts: int,
    agree_min: int,
    member_checks: int,
    res: tuple[Any, ...],
) -> int: ...
def set_threads(n: int) -> int: ...
def run_components(
    ptr: Any,
    rows: Any,
    fixed: int,
    rep: Any,
    nxt: Any,
    checked: Any,
    sup: Any,
    sig: tuple[Any, ...],
    extra_ptr: Any,
    extra: Any,
    k: int,
    posted: int,
    min_shared: int,
    max_posting: int,
    layout_distance: int,
    th: Any,
    max_conflicts: int,
    agree_min: int,
    member_checks: int,
    res: tuple[Any, ...],
) -> int: ...
def record(
    j0: int,
    j1: int,
    rep: Any,
    nxt: Any,
    sig: tuple[Any, ...],
    tab: tuple[Any, ...],
    meta: Any,
    k: int,
    posted: int,
    max_posting: int,
    layout_distance: int,
    th: Any,
    max_conflicts: int,
    agree_min: int,
) -> None: ...
def rehash_postings(pv: Any, pc: Any, pf: Any, ph: Any, pv2: Any, pc2: Any, pf2: Any, ph2: Any) -> None: ...
def rehash_keys(keys: Any, rows: Any, k2: Any, r2: Any) -> None: ...
def text_evidence(a: Any, b: Any, w_cjk: int, w_latin: int, out: Any) -> None: ...
def text_evidence_rows(
    ptr: Any, prof: Any, a: Any, b: Any, w_cjk: int, w_latin: int, out: Any, threads: int
) -> None: ...
def decide_text(kd: int, ev: Any, same_layout: bool, th: Any) -> int: ...
def set_words(word_keys: bytes, antonym_keys: bytes) -> None: ...
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
    th: Any,
    max_conflicts: int,
    agree_min: int,
    ev: Any,
) -> tuple[int, float, float, float, int, int]: ...
def sort_u64(a: Any, threads: int = 1) -> None: ...
def value_keys(sketch: Any, posted: int, reps: Any, out: Any | None) -> int: ...
def value_groups(
    values: Any,
    docs: Any,
    posted: Any,
    hot_posting: int,
    link_posters: int,
    ptr: Any,
    starts: Any,
    bound: Any,
    hot: Any,
) -> tuple[int, int]: ...
def range_pairs(
    values: Any,
    docs: Any,
    posted: Any,
    ptr: Any,
    starts: Any,
    link_posters: int,
    min_shared: int,
    lo: int,
    hi: int,
    out: Any,
) -> int: ...

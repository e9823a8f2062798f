"""Fingerprint and signature kernels in C (``_fp_c.c``); arrays are C-contiguous buffers, outputs writable."""

from typing import Any

def normalize(
    cps: Any, offsets: Any, table: Any, mstart: Any, mlen: Any, mflat: Any, out_off: Any, flags: Any
) -> bytearray: ...
def shingle_into(
    cps: Any, offsets: Any, table: Any, n: int, step: int, bits: int, binary: bool, out: Any, ok: Any
) -> None: ...
def accumulate_into(hashes: Any, weights: Any, bits: int, sums: Any) -> None: ...
def sums_to_fp(sums: Any) -> int: ...
def majority_bits(hashes: Any, bits: int = 64) -> int: ...
def batch_fingerprints_into(
    ids: Any, offsets: Any, vh: Any, vw: Any, bits: int, binary: bool, top_n: Any, levels: int, out: Any
) -> None: ...
def signature_range(
    cps: Any,
    offsets: Any,
    table: Any,
    n: int,
    k: int,
    m: int,
    d0: int,
    d1: int,
    content: Any,
    simhash: Any,
    size: Any,
    ntok: Any,
    sketch: Any,
    nums: Any,
    prof: Any,
) -> None: ...
def copy_profiles(src: Any, starts: Any, ptr: Any, out: Any) -> None: ...
def posting_pairs_count(values: Any, posted: Any, max_posting: int) -> int: ...
def posting_pairs_into(values: Any, docs: Any, posted: Any, max_posting: int, out: Any) -> int: ...
def xxh3_small(data: bytes) -> int | None: ...

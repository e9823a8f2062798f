"""MD5 (RFC 1321) in numba, for hashing byte slices inside a kernel without a Python call each.

Only the first 8 bytes of the digest are returned, read big endian: ``get_hash64("md5")``'s value,
so kernels and Python agree on every key (tested against ``hashlib`` on random inputs).

>>> import hashlib, numpy as np
>>> data = np.frombuffer(b"abc", np.uint8)
>>> md5_head(data, 0, 3, np.zeros(128, np.uint8)) == int.from_bytes(hashlib.md5(b"abc").digest()[:8], "big")
True
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numba import njit

__all__ = ["md5_head"]

_MASK = 0xFFFFFFFF
# per-round left rotations and the constants floor(|sin(i + 1)| * 2**32)
_SHIFT = np.array(
    [7, 12, 17, 22] * 4 + [5, 9, 14, 20] * 4 + [4, 11, 16, 23] * 4 + [6, 10, 15, 21] * 4, np.int64
)
_K = np.array([int(abs(math.sin(i + 1)) * 2**32) & _MASK for i in range(64)], np.int64)


@njit(cache=True, nogil=True, inline="always")
def _word(buf: Any, o: int) -> Any:
    return (
        np.int64(buf[o])
        | (np.int64(buf[o + 1]) << 8)
        | (np.int64(buf[o + 2]) << 16)
        | (np.int64(buf[o + 3]) << 24)
    )


@njit(cache=True, nogil=True, inline="always")
def _step(a: int, b: int, f: int, i: int, m: int) -> Any:
    """One round's new ``b`` from the round function's value ``f`` and the message word ``m``."""
    f = (f + a + _K[i] + m) & _MASK
    s = _SHIFT[i]
    return (b + (((f << s) | (f >> (32 - s))) & _MASK)) & _MASK


@njit(cache=True, nogil=True)
def _chunk(buf: Any, o: int, state: Any, m: Any) -> None:
    """Mix the 64-byte block at ``buf[o:]`` into ``state`` (a0, b0, c0, d0); ``m`` is scratch for
    its 16 message words."""
    for g in range(16):
        m[g] = _word(buf, o + 4 * g)
    a, b, c, d = state[0], state[1], state[2], state[3]
    for i in range(16):
        a, b, c, d = d, _step(a, b, (b & c) | (~b & d), i, m[i]), b, c
    for i in range(16, 32):
        a, b, c, d = d, _step(a, b, (d & b) | (~d & c), i, m[(5 * i + 1) & 15]), b, c
    for i in range(32, 48):
        a, b, c, d = d, _step(a, b, b ^ c ^ d, i, m[(3 * i + 5) & 15]), b, c
    for i in range(48, 64):
        a, b, c, d = d, _step(a, b, c ^ (b | (~d & _MASK)), i, m[(7 * i) & 15]), b, c
    state[0] = (state[0] + a) & _MASK
    state[1] = (state[1] + b) & _MASK
    state[2] = (state[2] + c) & _MASK
    state[3] = (state[3] + d) & _MASK


@njit(cache=True, nogil=True, inline="always")
def _bswap32(x: int) -> int:
    return ((x & 0xFF) << 24) | ((x & 0xFF00) << 8) | ((x >> 8) & 0xFF00) | (x >> 24)


@njit(cache=True, nogil=True)
def md5_head(buf: Any, start: int, end: int, tail: Any) -> Any:
    """The first 8 bytes, big endian, of the MD5 of ``buf[start:end]``; ``tail`` is a scratch
    array of at least 128 uint8 for the padded last block(s)."""
    state = np.empty(20, np.int64)  # a0..d0, then the 16 message words of a block
    state[0] = 0x67452301
    state[1] = 0xEFCDAB89
    state[2] = 0x98BADCFE
    state[3] = 0x10325476
    length = end - start
    o = start
    while end - o >= 64:
        _chunk(buf, o, state, state[4:])
        o += 64
    rest = end - o
    for j in range(rest):
        tail[j] = buf[o + j]
    tail[rest] = 0x80
    total = 64 if rest < 56 else 128
    for j in range(rest + 1, total - 8):
        tail[j] = 0
    bits = length * 8
    for j in range(8):
        tail[total - 8 + j] = (bits >> (8 * j)) & 0xFF
    _chunk(tail, 0, state, state[4:])
    if total == 128:
        _chunk(tail, 64, state, state[4:])
    return np.uint64((_bswap32(state[0]) << 32) | _bswap32(state[1]))

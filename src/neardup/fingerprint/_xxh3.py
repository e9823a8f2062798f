"""XXH3-64 (seed 0, default secret) for inputs of 0..240 bytes, in numba.

Gives exactly ``xxhash.xxh3_64_intdigest`` (tested over every length), so the numba shingle path
hashes with the same function as the rest of neardup. Inputs over 240 bytes return ``(0, False)``
and the caller falls back to the xxhash package.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

_SECRET = np.array(
    [
        0xB8, 0xFE, 0x6C, 0x39, 0x23, 0xA4, 0x4B, 0xBE, 0x7C, 0x01, 0x81, 0x2C, 0xF7, 0x21, 0xAD, 0x1C,
        0xDE, 0xD4, 0x6D, 0xE9, 0x83, 0x90, 0x97, 0xDB, 0x72, 0x40, 0xA4, 0xA4, 0xB7, 0xB3, 0x67, 0x1F,
        0xCB, 0x79, 0xE6, 0x4E, 0xCC, 0xC0, 0xE5, 0x78, 0x82, 0x5A, 0xD0, 0x7D, 0xCC, 0xFF, 0x72, 0x21,
        0xB8, 0x08, 0x46, 0x74, 0xF7, 0x43, 0x24, 0x8E, 0xE0, 0x35, 0x90, 0xE6, 0x81, 0x3A, 0x26, 0x4C,
        0x3C, 0x28, 0x52, 0xBB, 0x91, 0xC3, 0x00, 0xCB, 0x88, 0xD0, 0x65, 0x8B, 0x1B, 0x53, 0x2E, 0xA3,
        0x71, 0x64, 0x48, 0x97, 0xA2, 0x0D, 0xF9, 0x4E, 0x38, 0x19, 0xEF, 0x46, 0xA9, 0xDE, 0xAC, 0xD8,
        0xA8, 0xFA, 0x76, 0x3F, 0xE3, 0x9C, 0x34, 0x3F, 0xF9, 0xDC, 0xBB, 0xC7, 0xC7, 0x0B, 0x4F, 0x1D,
        0x8A, 0x51, 0xE0, 0x4B, 0xCD, 0xB4, 0x59, 0x31, 0xC8, 0x9F, 0x7E, 0xC9, 0xD9, 0x78, 0x73, 0x64,
        0xEA, 0xC5, 0xAC, 0x83, 0x34, 0xD3, 0xEB, 0xC3, 0xC5, 0x81, 0xA0, 0xFF, 0xFA, 0x13, 0x63, 0xEB,
        0x17, 0x0D, 0xDD, 0x51, 0xB7, 0xF0, 0xDA, 0x49, 0xD3, 0x16, 0x55, 0x26, 0x29, 0xD4, 0x68, 0x9E,
        0x2B, 0x16, 0xBE, 0x58, 0x7D, 0x47, 0xA1, 0xFC, 0x8F, 0xF8, 0xB8, 0xD1, 0x7A, 0xD0, 0x31, 0xCE,
        0x45, 0xCB, 0x3A, 0x8F, 0x95, 0x16, 0x04, 0x28, 0xAF, 0xD7, 0xFB, 0xCA, 0xBB, 0x4B, 0x40, 0x7E,
    ],
    dtype=np.uint8,
)  # fmt: skip

_P64_1 = np.uint64(0x9E3779B185EBCA87)
_P64_2 = np.uint64(0xC2B2AE3D27D4EB4F)
_P64_3 = np.uint64(0x165667B19E3779F9)
_PMX1 = np.uint64(0x165667919E3779F9)
_PMX2 = np.uint64(0x9FB21C651E98DF25)
_M32 = np.uint64(0xFFFFFFFF)


@njit(cache=True)
def _read(buf: np.ndarray, i: int, width: int) -> Any:  # pragma: no cover
    """The little-endian unsigned integer of ``width`` bytes at ``buf[i:]``."""
    v = np.uint64(0)
    for k in range(width):
        v |= np.uint64(buf[i + k]) << np.uint64(8 * k)
    return v


@njit(cache=True)
def _rotl(x: np.uint64, r: int) -> Any:  # pragma: no cover
    return (x << np.uint64(r)) | (x >> np.uint64(64 - r))


@njit(cache=True)
def _swap64(x: np.uint64) -> Any:  # pragma: no cover
    v = np.uint64(0)
    for k in range(8):
        v = (v << np.uint64(8)) | ((x >> np.uint64(8 * k)) & np.uint64(0xFF))
    return v


@njit(cache=True)
def _mulfold(a: np.uint64, b: np.uint64) -> Any:  # pragma: no cover
    a_lo = a & _M32
    a_hi = a >> np.uint64(32)
    b_lo = b & _M32
    b_hi = b >> np.uint64(32)
    lo_lo = a_lo * b_lo
    hi_lo = a_hi * b_lo
    lo_hi = a_lo * b_hi
    hi_hi = a_hi * b_hi
    cross = (lo_lo >> np.uint64(32)) + (hi_lo & _M32) + lo_hi
    upper = (hi_lo >> np.uint64(32)) + (cross >> np.uint64(32)) + hi_hi
    lower = (cross << np.uint64(32)) | (lo_lo & _M32)
    return lower ^ upper


@njit(cache=True)
def _xxh64_avalanche(h: np.uint64) -> Any:  # pragma: no cover
    h ^= h >> np.uint64(33)
    h *= _P64_2
    h ^= h >> np.uint64(29)
    h *= _P64_3
    h ^= h >> np.uint64(32)
    return h


@njit(cache=True)
def _avalanche(h: np.uint64) -> Any:  # pragma: no cover
    h ^= h >> np.uint64(37)
    h *= _PMX1
    h ^= h >> np.uint64(32)
    return h


@njit(cache=True)
def _mix16(buf: np.ndarray, i: int, s: np.ndarray, j: int) -> Any:  # pragma: no cover
    return _mulfold(_read(buf, i, 8) ^ _read(s, j, 8), _read(buf, i + 8, 8) ^ _read(s, j + 8, 8))


@njit(cache=True)
def xxh3_64(
    buf: np.ndarray, start: int, length: int, s: np.ndarray
) -> tuple[np.uint64, bool]:  # pragma: no cover
    """XXH3-64 of buf[start:start+length] (uint8), secret ``s`` (``_SECRET``); ok False over 240."""
    n = np.uint64(length)
    if length <= 16:
        if length > 8:
            lo = _read(buf, start, 8) ^ (_read(s, 24, 8) ^ _read(s, 32, 8))
            hi = _read(buf, start + length - 8, 8) ^ (_read(s, 40, 8) ^ _read(s, 48, 8))
            acc = n + _swap64(lo) + hi + _mulfold(lo, hi)
            return _avalanche(acc), True
        if length >= 4:
            in1 = _read(buf, start, 4)
            in2 = _read(buf, start + length - 4, 4)
            keyed = (in2 + (in1 << np.uint64(32))) ^ (_read(s, 8, 8) ^ _read(s, 16, 8))
            h = keyed ^ (_rotl(keyed, 49) ^ _rotl(keyed, 24))
            h *= _PMX2
            h ^= (h >> np.uint64(35)) + n
            h *= _PMX2
            h ^= h >> np.uint64(28)
            return h, True
        if length > 0:
            c1 = np.uint64(buf[start])
            c2 = np.uint64(buf[start + (length >> 1)])
            c3 = np.uint64(buf[start + length - 1])
            combined = (c1 << np.uint64(16)) | (c2 << np.uint64(24)) | c3 | (n << np.uint64(8))
            return _xxh64_avalanche(combined ^ (_read(s, 0, 4) ^ _read(s, 4, 4))), True
        return _xxh64_avalanche(_read(s, 56, 8) ^ _read(s, 64, 8)), True
    if length <= 128:
        acc = n * _P64_1
        if length > 32:
            if length > 64:
                if length > 96:
                    acc += _mix16(buf, start + 48, s, 96)
                    acc += _mix16(buf, start + length - 64, s, 112)
                acc += _mix16(buf, start + 32, s, 64)
                acc += _mix16(buf, start + length - 48, s, 80)
            acc += _mix16(buf, start + 16, s, 32)
            acc += _mix16(buf, start + length - 32, s, 48)
        acc += _mix16(buf, start, s, 0)
        acc += _mix16(buf, start + length - 16, s, 16)
        return _avalanche(acc), True
    if length <= 240:
        acc = n * _P64_1
        for i in range(8):
            acc += _mix16(buf, start + 16 * i, s, 16 * i)
        acc = _avalanche(acc)
        for i in range(8, length // 16):
            acc += _mix16(buf, start + 16 * i, s, 16 * (i - 8) + 3)
        acc += _mix16(buf, start + length - 16, s, 119)
        return _avalanche(acc), True
    return np.uint64(0), False


def secret() -> np.ndarray:
    return _SECRET

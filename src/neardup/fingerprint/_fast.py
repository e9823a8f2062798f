"""Batch fast paths: text normalization and character-shingle SimHash in numba.

Both give exactly what the reference path gives (``neardup.text.normalize`` and
``char_shingles(shingle_text(...))`` hashed with xxh3); documents the kernels cannot handle
exactly (non-ASCII letters with case, code points beyond the BMP, text that is not NFKC after the
full-width mapping, windows over 240 UTF-8 bytes) are flagged and done by the reference code.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from functools import cache
from typing import Any

import numpy as np
from numba import njit

from neardup.fingerprint._xxh3 import secret, xxh3_64
from neardup.text.normalize import compat_map, normalize

__all__ = ["normalize_batch", "shingle_fingerprints", "to_codepoints"]

_SPACE, _CASED, _ALNUM, _INERT = 1, 2, 4, 8
_F_NONASCII, _F_LOWER, _F_ASTRAL = 1, 2, 4


def _composing_marks() -> set[int]:
    """Code points that may compose with the character before them (NFKC quick check "Maybe")."""
    out = set(range(0x1161, 0x1176)) | set(range(0x11A8, 0x11C3))  # Hangul vowel and final jamo
    for cp in range(0x20000):
        parts = unicodedata.decomposition(chr(cp)).split()
        if len(parts) == 2 and not parts[0].startswith("<"):
            out.add(int(parts[1], 16))
    return out


@cache
def char_table() -> np.ndarray:
    """Flags of every BMP code point: whitespace, changes when lowercased, letter-or-digit, and
    NFKC-inert (normalized alone, combining class 0, composes with nothing before it: a text of
    such characters is NFKC, so it needs no check)."""
    flags = np.zeros(0x10000, np.uint8)
    composing = _composing_marks()
    for cp in range(0x10000):
        c = chr(cp)
        f = 0
        if c.isspace():
            f |= _SPACE
        if cp >= 0x80 and c.lower() != c:
            f |= _CASED
        if c.isalnum():
            f |= _ALNUM
        if (
            not 0xD800 <= cp < 0xE000
            and cp not in composing
            and unicodedata.combining(c) == 0
            and unicodedata.is_normalized("NFKC", c)
        ):
            f |= _INERT
        flags[cp] = f
    return flags


@cache
def map_table() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``compat_map`` as arrays: start[cp] and length[cp] (0: unchanged) into a flat array."""
    start = np.zeros(0x10000, np.int64)
    length = np.zeros(0x10000, np.int64)
    flat: list[int] = []
    for cp, rep in sorted(compat_map().items()):
        start[cp] = len(flat)
        length[cp] = len(rep)
        flat.extend(ord(c) for c in rep)
    return start, length, np.array(flat, np.uint32)


@njit(cache=True, nogil=True)
def _normalize_kernel(
    cps: np.ndarray,
    offsets: np.ndarray,
    table: np.ndarray,
    mstart: np.ndarray,
    mlen: np.ndarray,
    mflat: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # pragma: no cover
    n = offsets.shape[0] - 1
    cap = 0
    for i in range(cps.shape[0]):
        c = cps[i]
        cap += mlen[c] + 1 if c < 0x10000 else 1
    out = np.empty(cap + 1, np.uint32)
    out_off = np.zeros(n + 1, np.int64)
    flags = np.zeros(n, np.uint8)
    o = 0
    for d in range(n):
        pending = False
        started = False
        fl = 0
        i = offsets[d]
        end = offsets[d + 1]
        k = 0  # position in a replacement being emitted
        kend = 0
        while i < end or k < kend:
            if k < kend:
                cp = np.uint32(mflat[k])
                k += 1
            else:
                cp = cps[i]
                i += 1
                if cp < 0x10000 and mlen[cp] > 0:
                    k = mstart[cp]
                    kend = k + mlen[cp]
                    continue
            if cp < 0x80:
                if 65 <= cp <= 90:
                    cp += np.uint32(32)
                space = (table[cp] & 1) != 0
            elif cp < 0x10000:
                f = table[cp]
                space = (f & 1) != 0
                fl |= f & 2
                if (f & 8) == 0:
                    fl |= 1
            else:
                space = False
                fl |= 4
            if space:
                pending = started
                continue
            if pending:
                out[o] = 0x20
                o += 1
                pending = False
            out[o] = cp
            o += 1
            started = True
        out_off[d + 1] = o
        flags[d] = fl
    return out[:o], out_off, flags


def to_codepoints(texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """All texts as one uint32 code-point array plus offsets (len(texts) + 1)."""
    offsets = np.zeros(len(texts) + 1, np.int64)
    np.cumsum([len(t) for t in texts], out=offsets[1:])
    data = "".join(texts).encode("utf-32-le", "surrogatepass")
    return np.frombuffer(data, np.uint32), offsets


def _finish(raw: str, s: str, flags: int) -> str | None:
    # flags: 1 a character that is not NFKC-inert, 2 a non-ASCII character lowercase changes, 4 beyond the BMP
    """The reference result from the kernel's output ``s``, or None when it is already final."""
    changed = False
    if flags & (_F_LOWER | _F_ASTRAL):
        s = " ".join(s.lower().split())
        changed = True
    if (flags & _F_NONASCII or changed) and not unicodedata.is_normalized("NFKC", s):
        return normalize(raw)
    return s if changed else None


def normalize_batch(texts: Sequence[str], *, as_codepoints: bool = False) -> Any:
    """``[normalize(t) for t in texts]``, fast. With ``as_codepoints``: (cps, offsets) instead."""
    if not as_codepoints:
        out_strings: list[str] = [" ".join(t.lower().split()) if t.isascii() else "" for t in texts]
        todo = [d for d, t in enumerate(texts) if not t.isascii()]
        if todo:
            for d, s in zip(todo, _kernel_strings([texts[d] for d in todo]), strict=True):
                out_strings[d] = s
        return out_strings
    cps, offsets = to_codepoints(texts)
    out, out_off, flags = _normalize_kernel(cps, offsets, char_table(), *map_table())
    flagged = np.flatnonzero(flags)
    fixes: dict[int, str] = {}
    if flagged.shape[0]:
        data = out.tobytes()
        for d in flagged.tolist():
            s = data[4 * out_off[d] : 4 * out_off[d + 1]].decode("utf-32-le", "surrogatepass")
            fixed = _finish(texts[d], s, int(flags[d]))
            if fixed is not None:
                fixes[d] = fixed
    if not fixes:
        return out, out_off
    parts: list[np.ndarray] = []
    lens = np.diff(out_off)
    for d in range(len(texts)):
        if d in fixes:
            parts.append(np.frombuffer(fixes[d].encode("utf-32-le", "surrogatepass"), np.uint32))
            lens[d] = len(fixes[d])
        else:
            parts.append(out[out_off[d] : out_off[d + 1]])
    new_off = np.zeros(len(texts) + 1, np.int64)
    np.cumsum(lens, out=new_off[1:])
    return np.concatenate(parts), new_off


def _kernel_strings(texts: list[str]) -> list[str]:
    cps, offsets = to_codepoints(texts)
    out, out_off, flags = _normalize_kernel(cps, offsets, char_table(), *map_table())
    data = out.tobytes()
    bounds = (4 * out_off).tolist()
    fl = flags.tolist()
    strings: list[str] = []
    for d, raw in enumerate(texts):
        s = data[bounds[d] : bounds[d + 1]].decode("utf-32-le", "surrogatepass")
        if fl[d]:
            fixed = _finish(raw, s, fl[d])
            if fixed is not None:
                s = fixed
        strings.append(s)
    return strings


_L8 = np.uint64(0x0101010101010101)


@njit(cache=True, nogil=True)
def majority_bits(hs: np.ndarray, bits: int = 64) -> Any:  # pragma: no cover
    """SimHash of equally weighted hashes: bit b is set when more than half of ``hs`` have it.

    Bits are counted 8 byte-lanes at a time, flushing the lanes before one can overflow.
    """
    total = hs.shape[0]
    counts = np.zeros(64, np.int64)
    acc = np.zeros(8, np.uint64)
    pending = 0
    for k in range(total):
        h = hs[k]
        for j in range(8):
            acc[j] += (h >> np.uint64(j)) & _L8
        pending += 1
        if pending == 255 or k == total - 1:
            for j in range(8):
                v = acc[j]
                for lane in range(8):
                    counts[8 * lane + j] += np.int64((v >> np.uint64(8 * lane)) & np.uint64(0xFF))
                acc[j] = 0
            pending = 0
    fp = np.uint64(0)
    for b in range(bits):
        if 2 * counts[b] > total:
            fp |= np.uint64(1) << np.uint64(b)
    return fp


@njit(cache=True, nogil=True)
def _shingle_kernel(
    cps: np.ndarray,
    offsets: np.ndarray,
    table: np.ndarray,
    n: int,
    step: int,
    bits: int,
    binary: bool,
    sec: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover
    nd = offsets.shape[0] - 1
    out = np.zeros(nd, np.uint64)
    ok = np.ones(nd, np.bool_)
    maxlen = 0
    for d in range(nd):
        if offsets[d + 1] - offsets[d] > maxlen:
            maxlen = offsets[d + 1] - offsets[d]
    buf = np.empty(4 * maxlen + 8, np.uint8)
    starts = np.empty(maxlen + 1, np.int64)
    hs = np.empty(maxlen + 1, np.uint64)
    for d in range(nd):
        # keep letters and digits, UTF-8 encode, remember where each character starts
        nb = 0
        nc = 0
        for i in range(offsets[d], offsets[d + 1]):
            cp = cps[i]
            if cp >= 0x10000:
                ok[d] = False
                break
            if (table[cp] & 4) == 0:
                continue
            starts[nc] = nb
            nc += 1
            if cp < 0x80:
                buf[nb] = cp
                nb += 1
            elif cp < 0x800:
                buf[nb] = 0xC0 | (cp >> 6)
                buf[nb + 1] = 0x80 | (cp & 0x3F)
                nb += 2
            else:
                buf[nb] = 0xE0 | (cp >> 12)
                buf[nb + 1] = 0x80 | ((cp >> 6) & 0x3F)
                buf[nb + 2] = 0x80 | (cp & 0x3F)
                nb += 3
        if not ok[d] or nc == 0:
            continue
        starts[nc] = nb
        # windows: as neardup.text.char_shingles
        nh = 0
        if nc <= n:
            h, good = xxh3_64(buf, 0, nb, sec)
            if not good:
                ok[d] = False
                continue
            hs[0] = h
            nh = 1
        else:
            i = 0
            while i + n <= nc:
                h, good = xxh3_64(buf, starts[i], starts[i + n] - starts[i], sec)
                if not good:
                    ok[d] = False
                    break
                hs[nh] = h
                nh += 1
                i += step
            if ok[d] and step == n and nc % n:
                a = nc - nc % n
                h, good = xxh3_64(buf, starts[a], nb - starts[a], sec)
                hs[nh] = h
                nh += 1
        if not ok[d]:
            continue
        feats = hs[:nh]
        if binary:
            feats = np.unique(feats)
        fp = majority_bits(feats, bits)
        out[d] = fp
    return out, ok


def shingle_fingerprints(
    cps: np.ndarray, offsets: np.ndarray, n: int, step: int, bits: int, binary: bool
) -> tuple[np.ndarray, np.ndarray]:
    """SimHash (xxh3, weight 1 per window or per distinct window) of normalized code points.

    Returns (fingerprints, ok); documents with ok False must be done by the reference path.
    """
    return _shingle_kernel(cps, offsets, char_table(), n, step, bits, binary, secret())

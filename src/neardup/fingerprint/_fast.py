"""Batch fast paths: text normalization and character-shingle SimHash in compiled code.

The kernels are the C extension ``_fp_c`` (built by pip at install); where it could not be built (no
C compiler) the same kernels run in numba (``_fast_numba``, compiled once into the kernel cache).

Both give exactly what the reference path gives (``neardup.text.normalize`` and
``char_shingles(shingle_text(...))`` hashed with xxh3); documents the kernels cannot handle
exactly (non-ASCII letters with case, code points beyond the BMP, text that is not NFKC after the
full-width mapping, windows over 240 UTF-8 bytes) are flagged and done by the reference code.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Sequence
from functools import cache
from types import ModuleType
from typing import Any

import numpy as np

from neardup.text.normalize import compat_map, normalize

_fp_c: ModuleType | None
try:
    from neardup.fingerprint import _fp_c
except ImportError:  # built without a C compiler: the numba kernels of _fast_numba
    _fp_c = None

__all__ = ["normalize_batch", "shingle_fingerprints", "text_list", "to_codepoints"]

_SPACE, _CASED, _ALNUM, _INERT = 1, 2, 4, 8
_F_NONASCII, _F_LOWER, _F_ASTRAL = 1, 2, 4


def text_list(texts: Iterable[str]) -> list[str]:
    """``texts`` as a list, or a TypeError naming the first item that is not a str.

    >>> text_list("abc")
    Traceback (most recent call last):
    TypeError: expected a sequence of texts, got a str: wrap one text in a list
    >>> text_list(["a", 5])
    Traceback (most recent call last):
    TypeError: texts must be str; item 1 is int
    """
    if isinstance(texts, (str, bytes)):
        raise TypeError(
            f"expected a sequence of texts, got a {type(texts).__name__}: wrap one text in a list"
        )
    if isinstance(texts, np.ndarray) and texts.dtype.kind == "U" and texts.ndim == 1:
        return texts.tolist()  # type: ignore[no-any-return]
    try:
        items = iter(texts)
    except TypeError:
        raise TypeError(f"expected a sequence of texts, got {type(texts).__name__}") from None
    docs = texts if isinstance(texts, list) else list(items)
    if not set(map(type, docs)) <= {str}:  # one pass in C; the loop below only finds the culprit
        for i, t in enumerate(docs):
            if not isinstance(t, str):
                raise TypeError(f"texts must be str; item {i} is {type(t).__name__}")
    return docs


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


def _normalize_kernel(cps: np.ndarray, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Normalized code points of each text (lowercase ASCII, compat_map applied, spaces collapsed),
    their offsets, and per text the flags of what the kernel cannot decide (see ``_finish``)."""
    start, length, flat = map_table()
    if _fp_c is None:
        from neardup.fingerprint._fast_numba import _normalize_kernel as kernel

        return kernel(cps, offsets, char_table(), start, length, flat)
    cps = np.ascontiguousarray(cps, np.uint32)
    offsets = np.ascontiguousarray(offsets, np.int64)
    n = offsets.shape[0] - 1
    out_off = np.empty(n + 1, np.int64)
    flags = np.empty(n, np.uint8)
    out = _fp_c.normalize(cps, offsets, char_table(), start, length, flat, out_off, flags)
    return np.frombuffer(out, np.uint32), out_off, flags


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
    out, out_off, flags = _normalize_kernel(cps, offsets)
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
    out, out_off, flags = _normalize_kernel(cps, offsets)
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


def shingle_fingerprints(
    cps: np.ndarray, offsets: np.ndarray, n: int, step: int, bits: int, binary: bool
) -> tuple[np.ndarray, np.ndarray]:
    """SimHash (xxh3, weight 1 per window or per distinct window) of normalized code points.

    Returns (fingerprints, ok); documents with ok False must be done by the reference path.
    """
    if _fp_c is None:
        from neardup.fingerprint._fast_numba import _shingle_kernel
        from neardup.fingerprint._xxh3 import secret

        return _shingle_kernel(cps, offsets, char_table(), n, step, bits, binary, secret())
    nd = offsets.shape[0] - 1
    out = np.empty(nd, np.uint64)
    ok = np.empty(nd, np.bool_)
    _fp_c.shingle_into(
        np.ascontiguousarray(cps, np.uint32),
        np.ascontiguousarray(offsets, np.int64),
        char_table(),
        n,
        step,
        bits,
        binary,
        out,
        ok,
    )
    return out, ok

"""The nshash sentence scanner: one pass over UTF-8 bytes finds each document's n longest sentences.

Sentences are cut as ``neardup.text.split_sentences`` cuts them (a run of CJK terminators plus
closing quotes, or a newline), trimmed, and measured after normalization (whitespace runs become
one space, dropped unless between two ASCII characters). A document with a Latin sentence end
(". ") is flagged instead: the caller sends it through ``split_sentences`` itself.

Kept sentences are rows ``(s, e, bs, be, length, ws)``: code point bounds, UTF-8 byte bounds,
normalized length, and 1 when normalization changes the text (the caller then hashes the
normalized string instead of the byte slice). Rows are longest first, ties in text order.

>>> import numpy as np
>>> top, none = np.zeros((2, ROW), np.int64), np.zeros(0, np.uint64)
>>> _scan_one("短句。这一句要长一些才行。".encode(), 13, 2, 5, top, none, none), top[0, :2].tolist()
(1, [3, 13])
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from neardup.fingerprint._md5 import md5_head

__all__ = ["CHANGED", "LATIN", "ROW", "_scan", "_scan_one"]

#: columns of a kept-sentence row
ROW = 6


@njit(cache=True, nogil=True)
def _isspace(c: int) -> bool:
    if c <= 0x20:
        return c == 0x20 or 0x09 <= c <= 0x0D or 0x1C <= c <= 0x1F
    if c < 0x85:
        return False
    return (
        c == 0x85
        or c == 0xA0
        or c == 0x1680
        or 0x2000 <= c <= 0x200A
        or c == 0x2028
        or c == 0x2029
        or c == 0x202F
        or c == 0x205F
        or c == 0x3000
    )


@njit(cache=True, nogil=True)
def _isterm(c: int) -> bool:  # 。！？；!?;…
    return (
        c == 0x3002
        or c == 0xFF01
        or c == 0xFF1F
        or c == 0xFF1B
        or c == 0x21
        or c == 0x3F
        or c == 0x3B
        or c == 0x2026
    )


@njit(cache=True, nogil=True)
def _isclose(c: int) -> bool:  # ”’」』）)"'
    return (
        c == 0x201D
        or c == 0x2019
        or c == 0x300D
        or c == 0x300F
        or c == 0xFF09
        or c == 0x29
        or c == 0x22
        or c == 0x27
    )


@njit(cache=True, nogil=True)
def _islatinclose(c: int) -> bool:  # . ! ? " ' ) ]
    return c == 0x2E or c == 0x21 or c == 0x3F or c == 0x22 or c == 0x27 or c == 0x29 or c == 0x5D


@njit(cache=True, nogil=True)
def _decode(buf: Any, b: int) -> tuple[int, int]:
    """The code point starting at byte ``b`` of UTF-8 (surrogates allowed) and its width."""
    x = np.int64(buf[b])
    if x < 0x80:
        return x, 1
    if x < 0xE0:
        return ((x & 0x1F) << 6) | (np.int64(buf[b + 1]) & 0x3F), 2
    if x < 0xF0:
        return ((x & 0x0F) << 12) | ((np.int64(buf[b + 1]) & 0x3F) << 6) | (np.int64(buf[b + 2]) & 0x3F), 3
    return (
        ((x & 0x07) << 18)
        | ((np.int64(buf[b + 1]) & 0x3F) << 12)
        | ((np.int64(buf[b + 2]) & 0x3F) << 6)
        | (np.int64(buf[b + 3]) & 0x3F),
        4,
    )


@njit(cache=True, nogil=True)
def _is(kind: int, c: int) -> bool:
    if kind == 0:
        return _isterm(c)
    if kind == 1:
        return _isclose(c)
    return _islatinclose(c)


@njit(cache=True, nogil=True)
def _run_end(buf: Any, j: int, bj: int, end: int, kind: int) -> tuple[int, int]:
    """The code point and byte offset after the run of ``kind`` characters (0 terminators, 1 CJK
    closers, 2 Latin closers) starting at code point ``j`` (byte ``bj``)."""
    while j < end:
        cj, wj = _decode(buf, bj)
        if not _is(kind, cj):
            break
        j += 1
        bj += wj
    return j, bj


@njit(cache=True, nogil=True)
def _gap(run: int, run_odd: bool, prev: int, c: int) -> tuple[int, bool]:
    """What a pending whitespace run between ``prev`` and ``c`` adds to the normalized length, and
    whether normalization changes it: one space between two ASCII characters (changed unless it was
    a single ' '), nothing otherwise."""
    if run == 0:
        return 0, False
    if prev < 0x80 and c < 0x80:
        return 1, run > 1 or run_odd
    return 0, True


@njit(cache=True, nogil=True)
def _keep(k: int, n: int, s: int, e: int, bs: int, be: int, length: int, ws: bool, top: Any) -> int:
    """Keep a piece if it is among the n longest so far (``top`` rows as in the module docstring).
    Returns the new count."""
    if k == n and top[n - 1, 4] >= length:
        return k
    pos = k if k < n else n - 1
    while pos > 0 and top[pos - 1, 4] < length:  # ties keep text order
        top[pos, :] = top[pos - 1, :]
        pos -= 1
    top[pos, 0] = s
    top[pos, 1] = e
    top[pos, 2] = bs
    top[pos, 3] = be
    top[pos, 4] = length
    top[pos, 5] = 1 if ws else 0
    return k + 1 if k < n else k


@njit(cache=True, nogil=True)
def _scan_doc(buf: Any, i: int, b: int, end: int, n: int, top: Any) -> tuple[int, bool, int]:
    """One document, code points [i, end) starting at byte ``b``: fill ``top`` with its n longest
    pieces. Returns (pieces kept, whether it has a Latin sentence end, the byte offset of ``end``)."""
    k = 0
    latin = False
    # the current piece: first / last+1 non-space (code points, bytes), normalized length, the last
    # non-space character, the pending whitespace run, whether normalization changes the piece
    first = -1
    first_b = 0
    last = 0
    last_b = 0
    length = 0
    prev = 0
    run = 0
    run_odd = False
    ws = False
    while i < end:
        x = buf[b]
        if 0xE4 <= x <= 0xE9:
            # a run of U+4000..U+9FFF (CJK ideographs: the common case), none of them a space,
            # terminator or closer: take it whole without decoding
            if first < 0:
                first = i
                first_b = b
            elif run > 0:
                ws = True  # a space next to a non-ASCII character is dropped
            run = 0
            run_odd = False
            j = i + 1
            bj = b + 3
            while j < end and 0xE4 <= buf[bj] <= 0xE9:
                j += 1
                bj += 3
            length += j - i
            prev = 0x4E00
            i = j
            b = bj
            last = i
            last_b = b
            continue
        c, w = _decode(buf, b)
        if c == 0x0A:  # a newline ends the piece and is not part of it
            if first >= 0:
                k = _keep(k, n, first, last, first_b, last_b, length, ws, top)
            first = -1
            length = 0
            run = 0
            run_odd = False
            ws = False
            i += 1
            b += 1
            continue
        if _isspace(c):
            run += 1
            run_odd = run_odd or c != 0x20
            i += 1
            b += w
            continue
        if first < 0:
            first = i
            first_b = b
        else:
            add, changed = _gap(run, run_odd, prev, c)
            length += add
            ws = ws or changed
        run = 0
        run_odd = False
        if _isterm(c):  # terminators and closing quotes end the piece and belong to it
            j, bj = _run_end(buf, i, b, end, 0)
            j, bj = _run_end(buf, j, bj, end, 1)
            length += j - i
            k = _keep(k, n, first, j, first_b, bj, length, ws, top)
            first = -1
            length = 0
            ws = False
            i = j
            b = bj
            continue
        if c == 0x2E and not latin:
            j, bj = _run_end(buf, i + 1, b + 1, end, 2)
            if j < end:
                latin = _isspace(_decode(buf, bj)[0])
        length += 1
        prev = c
        i += 1
        b += w
        last = i
        last_b = b
    if first >= 0:
        k = _keep(k, n, first, last, first_b, last_b, length, ws, top)
    return k, latin, b


@njit(cache=True, nogil=True)
def _scan(buf: Any, bounds: Any, n: int, min_chars: int) -> tuple[Any, Any, Any]:
    """Each document's n longest sentences, in one pass over the UTF-8 bytes ``buf`` of a batch.

    Document d is code points [bounds[d], bounds[d+1]). Returns the kept rows (at least
    ``min_chars`` long, document by document), per document the number kept, and whether it has a
    Latin sentence end (then none are kept).
    """
    ndocs = bounds.shape[0] - 1
    out = np.empty((ndocs * n, ROW), np.int64)
    kept = np.zeros(ndocs, np.int64)
    latin = np.zeros(ndocs, np.bool_)
    top = np.zeros((n, ROW), np.int64)
    nout = 0
    b = 0
    for d in range(ndocs):
        k, latin[d], b = _scan_doc(buf, bounds[d], b, bounds[d + 1], n, top)
        if latin[d]:
            continue
        for j in range(k):
            if top[j, 4] < min_chars:
                break
            out[nout, :] = top[j, :]
            nout += 1
            kept[d] += 1
    return out[:nout], kept, latin


#: ``_scan_one``'s result flags above the count (n <= 255 fits in the low 8 bits)
CHANGED = 1 << 8
LATIN = 1 << 9


@njit(cache=True, nogil=True)
def _scan_one(buf: Any, nchars: int, n: int, min_chars: int, top: Any, heads: Any, tail: Any) -> int:
    """One document (``nchars`` code points, UTF-8 ``buf``, bytes or uint8 array): fill the (n, ROW)
    array ``top``; return how many rows are at least ``min_chars`` long, plus ``LATIN`` when the
    document has a Latin sentence end (then the count is 0).

    With a non-empty ``heads`` (uint64, n) the kept rows' byte slices are also hashed there (the md5
    key of ``get_hash64("md5")``; ``tail`` is md5's 128-byte scratch). ``CHANGED`` is added when a
    kept row's text changes under normalization: its head is then the raw slice's, not its key.
    """
    k, latin, _ = _scan_doc(buf, 0, 0, nchars, n, top)
    if latin:
        return LATIN
    kept = 0
    changed = False
    while kept < k and top[kept, 4] >= min_chars:
        if heads.shape[0]:
            heads[kept] = md5_head(buf, top[kept, 2], top[kept, 3], tail)
        changed = changed or top[kept, 5] != 0
        kept += 1
    return kept + CHANGED if changed else kept

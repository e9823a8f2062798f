"""The URL kernels in numba: canonical keys of a batch in one pass for the common URL shapes, the
in-memory seen table (:mod:`neardup.urls.memory`) and the Bloom filter (:mod:`neardup.urls.bloom`).

They run where the C extension ``_urls_c`` (the same kernels, built by pip at install) is missing;
:mod:`neardup.urls._kernels` chooses.

Canonical keys:

The kernel reads every URL of a batch from one byte buffer and, for a URL of a *simple shape*,
writes exactly the string the exact path (:func:`~neardup.urls.canonical.canonicalize_url`:
validation, tracking-parameter removal, then w3lib) returns, and its XXH3-64. Anything outside
that shape is flagged for the exact path, so the fast path can only be faster, never different:

- printable ASCII only (non-ASCII, spaces, tabs and control characters go to the exact path);
- scheme ``http`` or ``https`` (any case) then ``://``; no ``\\`` anywhere;
- host of letters, digits, ``-``, ``_`` and ``.``: labels 1..63 characters that start and end
  with a letter, digit or ``_``, no ``xn--`` label, no trailing dot, at most 253 characters, the
  last label not starting with a digit (an IPv4 address, however written); no userinfo (``@``),
  no IPv6 (``[``);
- port absent or 1..65535 without leading zeros (dropped when it is the scheme's default);
- path of RFC 3986 path characters without ``%``, ``;``, ``[``, ``]``, ``|`` and without ``.``
  or ``..`` segments (empty means ``/``);
- query without ``%`` and ``\\``; its pairs are split on ``&`` and the first ``=``, the dropped
  parameters removed, the rest sorted by (name, value) with ``+`` read as a space (as w3lib
  decodes it), and written back percent-encoded but for letters, digits, ``_.-~`` and ``+``
  (a later ``=`` as ``%3D``), a missing ``=`` added;
- the fragment is dropped.

The agreement is tested on a large real URL list and a generated one (``tests/unit/urls``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from neardup.fingerprint._xxh3 import xxh3_64

__all__ = ["DROP_GENERAL", "PATH_OK", "canonical_batch", "canonical_one"]

#: status codes per URL
OK = 0  # canonical bytes written, hash set
SLOW = 1  # the exact path decides (other shape, or invalid)
UNHASHED = 2  # canonical bytes written, longer than 240 bytes: hash them outside

_PATH_CHARS = b"!$&'()*+,-./0123456789:=@ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz~"
PATH_OK = np.zeros(256, dtype=np.bool_)
PATH_OK[np.frombuffer(_PATH_CHARS, dtype=np.uint8)] = True
_HOST_CHARS = b"-.0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz"
HOST_OK = np.zeros(256, dtype=np.bool_)
HOST_OK[np.frombuffer(_HOST_CHARS, dtype=np.uint8)] = True
_QUERY_CHARS = b"+-.0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz~"
QUERY_OK = np.zeros(256, dtype=np.bool_)
QUERY_OK[np.frombuffer(_QUERY_CHARS, dtype=np.uint8)] = True
_HEX = np.frombuffer(b"0123456789ABCDEF", dtype=np.uint8).copy()
#: the drop list has patterns the kernel cannot match (``?``, ``[``, inner ``*``, non-ASCII):
#: every URL with a query takes the exact path
DROP_GENERAL = -1


@njit(cache=True, nogil=True, inline="always")
def _low(c: int) -> int:  # pragma: no cover
    return c + 32 if 65 <= c <= 90 else c


@njit(cache=True, nogil=True, inline="always")
def _qbyte(c: int) -> int:  # pragma: no cover
    """A query byte as w3lib compares it: '+' decodes to a space."""
    return 32 if c == 43 else c


@njit(cache=True, nogil=True)
def _quote_plus(buf: Any, a: int, b: int, out: Any, o: int) -> int:  # pragma: no cover
    """Write buf[a:b] as w3lib re-encodes a decoded query part: unreserved bytes and '+' as they
    are (a '+' was a space), every other byte as %XX."""
    for u in range(a, b):
        c = buf[u]
        if QUERY_OK[c]:
            out[o] = c
            o += 1
        else:
            out[o] = 37
            out[o + 1] = _HEX[c >> 4]
            out[o + 2] = _HEX[c & 15]
            o += 3
    return o


@njit(cache=True, nogil=True)
def _dropped(buf: Any, a: int, b: int, names: Any, offs: Any, is_prefix: Any) -> bool:  # pragma: no cover
    """Does the parameter name buf[a:b] match a dropped name or prefix (case-insensitively)?"""
    n = b - a
    for k in range(offs.shape[0] - 1):
        p0 = offs[k]
        m = offs[k + 1] - p0
        if is_prefix[k]:
            if n < m:
                continue
        elif n != m:
            continue
        same = True
        for t in range(m):
            if _low(_qbyte(buf[a + t])) != names[p0 + t]:
                same = False
                break
        if same:
            return True
    return False


@njit(cache=True, nogil=True)
def _pair_less(
    buf: Any, ka: int, ea: int, va: int, a_end: int, kb: int, eb: int, vb: int, b_end: int
) -> bool:  # pragma: no cover
    """(name, value) of pair a < that of pair b, bytewise with '+' read as a space."""
    la, lb = ea - ka, eb - kb
    for t in range(min(la, lb)):
        x, y = _qbyte(buf[ka + t]), _qbyte(buf[kb + t])
        if x != y:
            return x < y
    if la != lb:
        return la < lb
    la, lb = a_end - va, b_end - vb
    for t in range(min(la, lb)):
        x, y = _qbyte(buf[va + t]), _qbyte(buf[vb + t])
        if x != y:
            return x < y
    return la < lb


@njit(cache=True, nogil=True)
def _one(
    buf: Any,
    s: int,
    e: int,
    max_length: int,
    names: Any,
    offs: Any,
    is_prefix: Any,
    drop_mode: int,
    out: Any,
    o: int,
    work: Any,
) -> int:  # pragma: no cover
    """Write the canonical form of buf[s:e] at out[o:]; return its end, or -1 for the exact path.

    ``work`` is scratch of shape (5, at least e - s): the query pairs' key and value bounds and
    their sort order."""
    pk, pe, pv, pz, order = work[0], work[1], work[2], work[3], work[4]
    if e - s > max_length or e - s < 8:
        return -1
    for i in range(s, e):
        c = buf[i]
        if c < 33 or c > 126 or c == 92:  # space, control, non-ASCII, backslash
            return -1
    # scheme
    if _low(buf[s]) != 104 or _low(buf[s + 1]) != 116 or _low(buf[s + 2]) != 116 or _low(buf[s + 3]) != 112:
        return -1
    i = s + 4
    secure = False
    if _low(buf[i]) == 115:
        secure = True
        i += 1
    if i + 3 > e or buf[i] != 58 or buf[i + 1] != 47 or buf[i + 2] != 47:
        return -1
    i += 3
    out[o] = 104
    out[o + 1] = 116
    out[o + 2] = 116
    out[o + 3] = 112
    o += 4
    if secure:
        out[o] = 115
        o += 1
    out[o] = 58
    out[o + 1] = 47
    out[o + 2] = 47
    o += 3
    # host
    h0 = i
    label = 0
    last = i  # where the last label starts
    prev = 46  # '.'
    while i < e:
        c = buf[i]
        if c == 47 or c == 63 or c == 35 or c == 58:  # / ? # :
            break
        if not HOST_OK[c]:
            return -1
        if c == 46:
            if label == 0 or prev == 45:  # empty label, or a label ending in '-'
                return -1
            label = 0
            last = i + 1
        else:
            if label == 0:
                if c == 45:
                    return -1
                if (
                    (c == 120 or c == 88)
                    and i + 3 < e
                    and _low(buf[i + 1]) == 110
                    and buf[i + 2] == 45
                    and buf[i + 3] == 45
                ):
                    return -1  # "xn--": punycode is checked on the exact path
            label += 1
            if label > 63:
                return -1
        out[o] = _low(c)
        o += 1
        prev = c
        i += 1
    if label == 0 or prev == 45 or i - h0 > 253:  # empty host, trailing dot or '-', too long
        return -1
    if 48 <= buf[last] <= 57:  # the last label starts with a digit: maybe an IPv4 address (exact path)
        return -1
    # port
    if i < e and buf[i] == 58:
        i += 1
        p0 = i
        port = 0
        while i < e and 48 <= buf[i] <= 57:
            port = port * 10 + (buf[i] - 48)
            i += 1
            if i - p0 > 5:
                return -1
        if i == p0 or buf[p0] == 48 or port > 65535:
            return -1
        if i < e and buf[i] != 47 and buf[i] != 63 and buf[i] != 35:
            return -1
        if port != (443 if secure else 80):
            out[o] = 58
            o += 1
            for t in range(p0, i):
                out[o] = buf[t]
                o += 1
    # path
    if i >= e or buf[i] != 47:
        out[o] = 47
        o += 1
    seg = i
    while i < e:
        c = buf[i]
        if c == 63 or c == 35:
            break
        if c == 47:
            seg = i + 1
        elif not PATH_OK[c]:
            return -1
        elif c == 46 and i - seg <= 1:
            # '.' or '..' segment?
            j = i + 1
            if i - seg == 1 and buf[seg] != 46:
                j = -1
            if j >= 0 and (j >= e or buf[j] == 47 or buf[j] == 63 or buf[j] == 35):
                return -1
        out[o] = c
        o += 1
        i += 1
    # query
    if i < e and buf[i] == 63:
        i += 1
        q_end = i
        while q_end < e and buf[q_end] != 35:
            if buf[q_end] == 37:  # '%'
                return -1
            q_end += 1
        if q_end > i and drop_mode == DROP_GENERAL:
            return -1
        n = 0
        while i < q_end:
            a = i
            eq = -1
            while i < q_end and buf[i] != 38:
                if buf[i] == 61 and eq < 0:
                    eq = i
                i += 1
            if i > a:
                k_end = eq if eq >= 0 else i
                if drop_mode == 0 or not _dropped(buf, a, k_end, names, offs, is_prefix):
                    pk[n] = a
                    pe[n] = k_end
                    pv[n] = eq + 1 if eq >= 0 else i
                    pz[n] = i
                    n += 1
            i += 1  # past '&'
        if n > 0:
            for t in range(n):
                order[t] = t
            for t in range(1, n):  # insertion sort: queries are short; equal pairs keep their order
                x = order[t]
                u = t - 1
                while u >= 0 and _pair_less(
                    buf, pk[x], pe[x], pv[x], pz[x], pk[order[u]], pe[order[u]], pv[order[u]], pz[order[u]]
                ):
                    order[u + 1] = order[u]
                    u -= 1
                order[u + 1] = x
            out[o] = 63
            o += 1
            for t in range(n):
                x = order[t]
                if t:
                    out[o] = 38
                    o += 1
                o = _quote_plus(buf, pk[x], pe[x], out, o)
                out[o] = 61
                o = _quote_plus(buf, pv[x], pz[x], out, o + 1)
    return o


@njit(cache=True, nogil=True)
def canonical_batch(
    buf: Any,
    starts: Any,
    max_length: int,
    names: Any,
    offs: Any,
    is_prefix: Any,
    drop_mode: int,
    secret: Any,
    out: Any,
    out_starts: Any,
    hashes: Any,
    status: Any,
) -> None:  # pragma: no cover
    """URL ``i`` is buf[starts[i]:starts[i+1]]; its canonical bytes go to out[out_starts[i]:out_starts[i+1]].

    ``status[i]``: 0 canonical and hashed, 1 for the exact path, 2 canonical but over 240 bytes
    (hash it outside). ``out`` needs 4 bytes per input byte plus 1 per URL.
    """
    n = starts.shape[0] - 1
    longest = 1
    for i in range(n):
        longest = max(longest, starts[i + 1] - starts[i])
    work = np.empty((5, longest), dtype=np.int64)
    o = 0
    for i in range(n):
        out_starts[i] = o
        end = _one(buf, starts[i], starts[i + 1], max_length, names, offs, is_prefix, drop_mode, out, o, work)
        if end < 0:
            status[i] = SLOW
            hashes[i] = 0
            continue
        length = end - o
        h, ok = xxh3_64(out, o, length, secret)
        hashes[i] = h
        status[i] = OK if ok else UNHASHED
        o = end
    out_starts[n] = o


@njit(cache=True, nogil=True)
def canonical_one(
    buf: Any, max_length: int, names: Any, offs: Any, is_prefix: Any, drop_mode: int, secret: Any
) -> tuple[np.uint64, int]:  # pragma: no cover
    """(XXH3-64 of the canonical form, status) of one URL: status 0 hashed, 1 exact path, 2 too long to hash here."""
    n = buf.shape[0]
    out = np.empty(4 * n + 8, dtype=np.uint8)
    work = np.empty((5, max(n, 1)), dtype=np.int64)
    end = _one(buf, 0, n, max_length, names, offs, is_prefix, drop_mode, out, 0, work)
    if end < 0:
        return np.uint64(0), SLOW
    h, ok = xxh3_64(out, 0, end, secret)
    return h, OK if ok else UNHASHED


# --- the in-memory seen table (memory.py) ----------------------------------------------------------
_EMPTY = np.uint64(0)
_ZERO_STANDIN = np.uint64(0x9E3779B97F4A7C15)  # a hash of exactly 0 is stored as this value


@njit(cache=True, nogil=True)
def _slot(keys: Any, h: Any) -> tuple[Any, int, bool]:
    """Linear probing for hash ``h``: the value stored for it (0 is stored as the stand-in, as 0
    marks an empty slot), and its slot and True, or the empty slot where it goes and False."""
    if h == 0:
        h = _ZERO_STANDIN
    mask = keys.shape[0] - 1
    j = np.int64(h & np.uint64(mask))
    while True:
        k = keys[j]
        if k == 0:
            return h, j, False
        if k == h:
            return h, j, True
        j = (j + 1) & mask


@njit(cache=True, nogil=True)
def memory_check_add(keys: Any, vals: Any, hashes: Any, now: int, recrawl: int, out: Any) -> tuple[int, int]:
    n_new = 0
    n_due = 0
    for i in range(hashes.shape[0]):
        h, j, found = _slot(keys, hashes[i])
        if not found:
            keys[j] = h
            vals[j] = now
            out[i] = True
            n_new += 1
        elif recrawl >= 0 and np.int64(now) - np.int64(vals[j]) >= recrawl:
            vals[j] = now
            out[i] = True
            n_due += 1
        else:
            out[i] = False
    return n_new, n_due


@njit(cache=True, nogil=True)
def memory_record(keys: Any, vals: Any, hashes: Any, stamp: int) -> int:
    """Set the last-fetch second of each hash to ``stamp`` (inserting it); return how many were new."""
    n_new = 0
    for i in range(hashes.shape[0]):
        h, j, found = _slot(keys, hashes[i])
        if not found:
            keys[j] = h
            n_new += 1
        vals[j] = stamp
    return n_new


@njit(cache=True, nogil=True)
def memory_contains(keys: Any, hashes: Any, out: Any) -> None:
    for i in range(hashes.shape[0]):
        out[i] = _slot(keys, hashes[i])[2]


@njit(cache=True, nogil=True)
def memory_remove(keys: Any, vals: Any, hashes: Any) -> int:
    mask = keys.shape[0] - 1
    removed = 0
    for i in range(hashes.shape[0]):
        _, j, found = _slot(keys, hashes[i])
        if not found:
            continue
        removed += 1
        # backward-shift deletion: move later members of the probe run into the hole
        hole = j
        nxt = (j + 1) & mask
        while keys[nxt] != 0:
            home = np.int64(keys[nxt] & np.uint64(mask))
            # the entry at nxt may move to hole if its home is not in (hole, nxt] cyclically
            if (nxt - home) & mask >= (nxt - hole) & mask:
                keys[hole] = keys[nxt]
                vals[hole] = vals[nxt]
                hole = nxt
            nxt = (nxt + 1) & mask
        keys[hole] = 0
        vals[hole] = 0
    return removed


@njit(cache=True, nogil=True)
def memory_reinsert(keys: Any, vals: Any, old_keys: Any, old_vals: Any) -> None:
    mask = keys.shape[0] - 1
    for i in range(old_keys.shape[0]):
        h = old_keys[i]
        if h == 0:
            continue
        j = np.int64(h & np.uint64(mask))
        while keys[j] != 0:
            j = (j + 1) & mask
        keys[j] = h
        vals[j] = old_vals[i]


# --- the Bloom filter (bloom.py) ---------------------------------------------------------------------
@njit(cache=True, nogil=True)
def _mix(h: Any) -> Any:
    """splitmix64 finalizer: a second independent-looking 64-bit value from the URL hash."""
    z = h + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True, nogil=True)
def bloom_positions(hashes: Any, k: int, shard_bits: int, shards: int, out_shard: Any, out_pos: Any) -> None:
    mb = np.uint64(shard_bits)
    for i in range(hashes.shape[0]):
        h1 = hashes[i]
        h2 = _mix(h1) | np.uint64(1)
        out_shard[i] = np.uint32(_mix(h2) % np.uint64(shards))
        for j in range(k):
            out_pos[i, j] = np.uint32((h1 + np.uint64(j) * h2) % mb)


@njit(cache=True, nogil=True)
def bloom_check_add(words: Any, hashes: Any, k: int, shard_bits: int, shards: int, out: Any) -> int:
    mb = np.uint64(shard_bits)
    added = 0
    for i in range(hashes.shape[0]):
        h1 = hashes[i]
        h2 = _mix(h1) | np.uint64(1)
        base = np.uint64(_mix(h2) % np.uint64(shards)) * mb
        new = False
        for j in range(k):
            bit = base + (h1 + np.uint64(j) * h2) % mb
            w = bit >> np.uint64(6)
            b = np.uint64(1) << (bit & np.uint64(63))
            if words[w] & b == 0:
                new = True
                words[w] |= b
        out[i] = new
        if new:
            added += 1
    return added

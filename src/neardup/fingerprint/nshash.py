"""nshash: a document's fingerprint is the hashes of its n longest sentences (seed 002).

News reposts copy whole articles and change a few characters, the title or the editor's name. The
n longest sentences (n = 5) of a repost are almost always the original's, so two documents that
share any of those sentence hashes get the same ``similar_id``; grouping by it deduplicates a
corpus. ``n=1`` is the "longest sentence only" method the seed starts from.

How a text becomes keys (``sentence_hashes``):

1. the text is split as ``neardup.text.split_sentences`` splits it (。！？；… with closing quotes,
   newlines, English sentence ends);
2. each sentence is normalized: every whitespace run becomes one space, and a space survives only
   between two ASCII characters ("中 文" -> "中文", "a  b" -> "a b"), so re-wrapped, re-indented
   or space-padded copies hash alike;
3. the n longest sentences (normalized characters, ties in text order) of at least
   ``min_sentence_chars`` characters are kept; when no sentence is that long, the whole text
   (normalized the same way) is the one key, so short texts match only exact copies;
4. each is hashed to 64 bits: md5 by default as the seed (the first 8 bytes of the digest, big
   endian, as ``get_hash64("md5")``), or farmhash, xxh3, murmur3.

One numba pass over the UTF-8 of a whole batch cuts, measures and ranks; only the kept sentences
are hashed, sliced from the UTF-8 bytes. Texts with an English sentence end go through
``split_sentences`` itself. Both paths are tested equal.

``NSHash`` maps those keys to integer ids in a store (``neardup.stores``): memory, a snapshot
file, LevelDB or Redis. Ids come from a counter kept in the store, so they survive restarts; when a
document links two groups, they merge (the smaller id wins) and every member resolves to it.

>>> with NSHash(hashdb="memory://") as nsh:
...     a = nsh.get_similar("第一句话足够长，这是用于测试的一句话，长度超过了三十个字符的门槛。第二句。")
...     b = nsh.get_similar("标题改了。第一句话足够长，这是用于测试的一句话，长度超过了三十个字符的门槛。")
...     a == b
True
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import threading
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from typing import Any

import numpy as np
from numba import njit

from neardup.exceptions import ConfigError, FormatError, InputError
from neardup.fingerprint.hashing import HASH_NAMES, get_hash64
from neardup.stores.base import Key, KeyValueStore, open_store, prepare_groups
from neardup.text.sentences import _LATIN_END, split_sentences

__all__ = ["NSHash", "longest_sentences", "sentence_hashes", "sentence_hashes_many"]

DEFAULT_N = 5
DEFAULT_MIN_SENTENCE_CHARS = 30
#: bump when the way text becomes keys changes: stores built with another version are refused
KEYS_VERSION = 1

# whitespace runs other than newlines (newlines end sentences)
_WS = re.compile(r"[^\S\n]+")
# a space with a non-ASCII character on either side (spaces inside Chinese text carry nothing)
_CJK_SPACE = re.compile(r" (?=[^\x00-\x7f])|(?<=[^\x00-\x7f]) ")


def _to_text(text: object) -> str:
    if isinstance(text, str):
        return text
    if isinstance(text, (bytes, bytearray, memoryview)):
        try:
            return bytes(text).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(
                f"text is not UTF-8 (bad byte at offset {exc.start}); decode it first or "
                "convert it with iconv"
            ) from None
    raise InputError(f"text must be str or UTF-8 bytes, got {type(text).__name__}")


def _check_args(n: int, min_sentence_chars: int) -> None:
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 255:
        raise ConfigError(
            f"n (sentences per document) must be an int between 1 and 255, got {n!r}; "
            "the seed uses 5, and 1 for the longest sentence only"
        )
    if (
        isinstance(min_sentence_chars, bool)
        or not isinstance(min_sentence_chars, int)
        or min_sentence_chars < 0
    ):
        raise ConfigError(f"min_sentence_chars must be an int >= 0, got {min_sentence_chars!r}")


def longest_sentences(
    text: str | bytes, n: int = DEFAULT_N, min_sentence_chars: int = DEFAULT_MIN_SENTENCE_CHARS
) -> list[str]:
    """The n longest sentences of ``text`` (whitespace collapsed) of at least ``min_sentence_chars``
    characters, longest first; or ``[whole text]`` when none is that long.

    >>> longest_sentences("短句。这一句要长一些才行。中等长度的句子。", n=2, min_sentence_chars=5)
    ['这一句要长一些才行。', '中等长度的句子。']
    >>> longest_sentences("太短。也短。", n=2)
    ['太短。也短。']
    """
    return _keyer(n, "xxh3", min_sentence_chars).sentences_many([text])[0]


def _hasher(hashfunc: str) -> Callable[[bytes], int]:
    if hashfunc not in HASH_NAMES:
        raise ConfigError(f"hashfunc must be one of {', '.join(map(repr, HASH_NAMES))}, got {hashfunc!r}")
    return get_hash64(hashfunc)


def sentence_hashes(
    text: str | bytes,
    n: int = DEFAULT_N,
    hashfunc: str = "md5",
    min_sentence_chars: int = DEFAULT_MIN_SENTENCE_CHARS,
) -> list[int]:
    """The 64-bit hashes of ``longest_sentences(text, n, min_sentence_chars)``, repeats removed.

    >>> len(sentence_hashes("这是第一个足够长的句子，它有很多很多很多很多很多个字。短句。", n=5, min_sentence_chars=10))
    1
    """
    return list(dict.fromkeys(_keyer(n, hashfunc, min_sentence_chars).keys_many([text])[0]))  # type: ignore[arg-type]


def sentence_hashes_many(
    texts: Sequence[str | bytes],
    n: int = DEFAULT_N,
    hashfunc: str = "md5",
    min_sentence_chars: int = DEFAULT_MIN_SENTENCE_CHARS,
) -> list[list[int]]:
    """``sentence_hashes`` of each text, in one pass (much faster than one call per text).

    >>> [len(h) for h in sentence_hashes_many(["一句。", "另一句。"])]
    [1, 1]
    """
    keyer = _keyer(n, hashfunc, min_sentence_chars)
    return [list(dict.fromkeys(keys)) for keys in keyer.keys_many(texts)]  # type: ignore[arg-type]


@lru_cache(maxsize=32, typed=True)
def _keyer(n: int, hashfunc: str, min_sentence_chars: int) -> _Keyer:
    _check_args(n, min_sentence_chars)
    return _Keyer(n, hashfunc, min_sentence_chars)


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
def _keep(
    k: int, n: int, s: int, e: int, bs: int, be: int, length: int, ws: bool, top: Any, top_ws: Any
) -> int:
    """Keep a piece (code points [s, e), UTF-8 bytes [bs, be), normalized ``length``) if it is among
    the n longest so far; ``top`` rows are (s, e, bs, be, length). Returns the new count."""
    if k == n and top[n - 1, 4] >= length:
        return k
    pos = k if k < n else n - 1
    while pos > 0 and top[pos - 1, 4] < length:  # ties keep text order
        top[pos, :] = top[pos - 1, :]
        top_ws[pos] = top_ws[pos - 1]
        pos -= 1
    top[pos, 0] = s
    top[pos, 1] = e
    top[pos, 2] = bs
    top[pos, 3] = be
    top[pos, 4] = length
    top_ws[pos] = ws
    return k + 1 if k < n else k


@njit(cache=True, nogil=True)
def _scan(buf: Any, bounds: Any, n: int, min_chars: int) -> Any:
    """Each document's n longest sentences, in one pass over the UTF-8 bytes ``buf``.

    Document d is code points [bounds[d], bounds[d+1]). Sentences are cut as split_sentences cuts
    them (a run of CJK terminators plus closing quotes, or a newline), trimmed, and measured after
    normalization (whitespace runs -> one space, dropped unless between two ASCII characters).
    Returns, for the kept sentences (at least ``min_chars`` long, longest first, document by
    document): code point and byte bounds, and whether normalization changes them; per document the
    number kept, and whether a Latin sentence end (". ") means it must go through split_sentences
    itself (then none are kept).
    """
    ndocs = bounds.shape[0] - 1
    out = np.empty((ndocs * n, 4), np.int64)
    out_ws = np.empty(ndocs * n, np.bool_)
    kept = np.zeros(ndocs, np.int64)
    latin = np.zeros(ndocs, np.bool_)
    top = np.zeros((n, 5), np.int64)
    top_ws = np.zeros(n, np.bool_)
    nout = 0
    i = 0  # code point index
    b = 0  # byte offset of code point i
    for d in range(ndocs):
        end = bounds[d + 1]
        k = 0
        # the current piece: first / last+1 non-space (code points, bytes), normalized length, the
        # last non-space character, the pending whitespace run, whether normalization changes it
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
            if c == 0x0A:
                if first >= 0:
                    k = _keep(k, n, first, last, first_b, last_b, length, ws, top, top_ws)
                first = -1
                length = 0
                run = 0
                run_odd = False
                ws = False
                i += 1
                b += 1
                continue
            elif _isspace(c):
                run += 1
                if c != 0x20:
                    run_odd = True
                i += 1
                b += w
                continue
            elif _isterm(c):
                if first < 0:
                    first = i
                    first_b = b
                elif run > 0:
                    if prev < 0x80 and c < 0x80:
                        length += 1
                        if run > 1 or run_odd:
                            ws = True
                    else:
                        ws = True
                j = i
                bj = b
                while j < end:
                    cj, wj = _decode(buf, bj)
                    if not _isterm(cj):
                        break
                    j += 1
                    bj += wj
                while j < end:
                    cj, wj = _decode(buf, bj)
                    if not _isclose(cj):
                        break
                    j += 1
                    bj += wj
                length += j - i
                k = _keep(k, n, first, j, first_b, bj, length, ws, top, top_ws)
                first = -1
                length = 0
                run = 0
                run_odd = False
                ws = False
                i = j
                b = bj
                continue
            elif c == 0x2E and not latin[d]:
                j = i + 1
                bj = b + 1
                while j < end:
                    cj, wj = _decode(buf, bj)
                    if not _islatinclose(cj):
                        break
                    j += 1
                    bj += wj
                if j < end:
                    cj, wj = _decode(buf, bj)
                    if _isspace(cj):
                        latin[d] = True
            # an ordinary character
            if first < 0:
                first = i
                first_b = b
            elif run > 0:
                if prev < 0x80 and c < 0x80:
                    length += 1
                    if run > 1 or run_odd:
                        ws = True
                else:
                    ws = True
            run = 0
            run_odd = False
            length += 1
            prev = c
            i += 1
            b += w
            last = i
            last_b = b
        if first >= 0:
            k = _keep(k, n, first, last, first_b, last_b, length, ws, top, top_ws)
        if latin[d]:
            continue
        for j in range(k):
            if top[j, 4] < min_chars:
                break
            out[nout, :] = top[j, :4]
            out_ws[nout] = top_ws[j]
            nout += 1
            kept[d] += 1
    return out[:nout], out_ws[:nout], kept, latin


def _normalize(s: str) -> str:
    """The Python twin of the scanner's normalization: whitespace runs -> one space, kept only
    between two ASCII characters ("中 文" -> "中文", "a  b" -> "a b")."""
    return _CJK_SPACE.sub("", " ".join(s.split()))


# split_sentences' cut (a run of CJK terminators plus closing quotes, or newlines), kept by split()
_CUT = re.compile(r"([。！？；!?;…]+[”’」』）)\"']*|\n+)")
_SCANNER_READY = threading.Event()
_SCANNER_LOADING = threading.Lock()


def _load_scanner() -> None:
    """Load (or compile, in a fresh install) the numba scanner in a daemon thread, once."""
    if not _SCANNER_LOADING.acquire(blocking=False):
        return

    def load() -> None:
        _scan(np.frombuffer("预热。".encode(), np.uint8), np.array([0, 3], np.int64), 1, 1)
        _SCANNER_READY.set()

    threading.Thread(target=load, name="neardup-nshash-scanner", daemon=True).start()


class _Keyer:
    """Texts to nshash keys, a batch at a time: one numba pass over the UTF-8 of all texts finds
    every document's n longest sentences; Python only hashes those (sliced from the UTF-8 bytes)."""

    def __init__(self, n: int, hashfunc: str, min_chars: int) -> None:
        self.n = n
        self.min_chars = min_chars
        self.hashfunc = hashfunc
        self.hash = _hasher(hashfunc)

    def _run(self, texts: Sequence[object]) -> tuple[list[str], str, bytes, Any, Any, list[int]]:
        strs = [t if type(t) is str else _to_text(t) for t in texts]
        big = "".join(strs)
        raw = big.encode("utf-8", "surrogatepass")
        bounds = np.zeros(len(strs) + 1, np.int64)
        np.cumsum(np.fromiter(map(len, strs), np.int64, len(strs)), out=bounds[1:])
        spans, ws, kept, _latin = _scan(np.frombuffer(raw, np.uint8), bounds, self.n, self.min_chars)
        return strs, big, raw, spans, ws, kept.tolist()

    def _slow(self, text: str) -> list[str]:
        """A text the scanner left out (a Latin sentence end, or no sentence long enough)."""
        sents = [_normalize(s) for s in split_sentences(_WS.sub(" ", text))]
        sents.sort(key=len, reverse=True)
        picked = [x for x in sents[: self.n] if len(x) >= self.min_chars]
        if picked:
            return picked
        whole = _normalize(text)
        if not whole:
            raise InputError("text is empty (or only whitespace); nshash needs some text")
        return [whole]

    def sentences_many(self, texts: Sequence[object]) -> list[list[str]]:
        """``longest_sentences`` of each text (whole-text fallback included)."""
        strs, big, _, spans, ws, kept = self._run(texts)
        pieces = [big[a:z] for a, z in zip(spans[:, 0].tolist(), spans[:, 1].tolist(), strict=True)]
        for j in np.flatnonzero(ws).tolist():
            pieces[j] = _normalize(pieces[j])
        out: list[list[str]] = []
        pos = 0
        for text, c in zip(strs, kept, strict=True):
            if c:
                out.append(pieces[pos : pos + c])
                pos += c
            else:
                out.append(self._slow(text))
        return out

    def keys_one(self, text: object) -> list[Key]:
        """``keys_many([text])[0]`` without batch set-up: plain Python until the compiled scanner
        is loaded (a background thread loads it on first use, so no call waits for numba), then
        one scanner call on this text's bytes."""
        if _SCANNER_READY.is_set():
            return self._keys_compiled(text if type(text) is str else _to_text(text))
        _load_scanner()
        return self._keys_python(text if type(text) is str else _to_text(text))

    def _keys_python(self, text: str) -> list[Key]:
        """The same keys as the scanner, cut with one regex split (a text with a Latin sentence end
        takes split_sentences itself)."""
        h = self.hash
        if not ("." in text and _LATIN_END.search(text)):
            parts = _CUT.split(text)
            parts.append("")
            sents = []
            for piece in map(str.__add__, parts[::2], parts[1::2]):
                piece = piece.strip()
                if piece:
                    sents.append(_normalize(piece) if " " in piece or not piece.isprintable() else piece)
            sents.sort(key=len, reverse=True)
            picked = [x for x in sents[: self.n] if len(x) >= self.min_chars]
            if picked:
                return [h(x.encode("utf-8", "surrogatepass")) for x in picked]
        return [h(x.encode("utf-8", "surrogatepass")) for x in self._slow(text)]

    def _keys_compiled(self, text: str) -> list[Key]:
        raw = text.encode("utf-8", "surrogatepass")
        spans, ws, kept, _ = _scan(
            np.frombuffer(raw, np.uint8), np.array([0, len(text)], np.int64), self.n, self.min_chars
        )
        h = self.hash
        if not kept[0]:
            return [h(x.encode("utf-8", "surrogatepass")) for x in self._slow(text)]
        return [
            h(_normalize(text[a:z]).encode("utf-8", "surrogatepass")) if w else h(raw[b0:b1])
            for (a, z, b0, b1), w in zip(spans[:, :4].tolist(), ws.tolist(), strict=True)
        ]

    def keys_many(self, texts: Sequence[object]) -> list[list[Key]]:
        """The keys of each text: 64-bit hashes of its sentences to hash, longest first."""
        strs, big, raw, spans, ws, kept = self._run(texts)
        h = self.hash
        bounds = zip(spans[:, 2].tolist(), spans[:, 3].tolist(), strict=True)
        if self.hashfunc == "md5":  # get_hash64("md5") inlined: digests joined, read by numpy
            md5 = hashlib.md5
            digests = b"".join([md5(raw[a:z]).digest() for a, z in bounds])
            flat: list[int] = np.frombuffer(digests, dtype=">u8")[::2].tolist()
        else:
            flat = [h(raw[a:z]) for a, z in bounds]
        for j in np.flatnonzero(ws).tolist():
            flat[j] = h(_normalize(big[spans[j, 0] : spans[j, 1]]).encode("utf-8", "surrogatepass"))
        out: list[list[Key]] = []
        pos = 0
        for text, c in zip(strs, kept, strict=True):
            if c:
                out.append(flat[pos : pos + c])  # type: ignore[arg-type]
                pos += c
            else:
                out.append([h(s.encode("utf-8", "surrogatepass")) for s in self._slow(text)])
        return out


def _refuse_upstream_pickle(name: str) -> None:
    """FormatError if veelion/nshash's memory store ``{name}.hashdb.pkl`` is there and ours is not."""
    pkl, snap = f"{name}.hashdb.pkl", f"{name}.hashdb.snap"
    if os.path.exists(pkl) and not os.path.exists(snap):
        raise FormatError(
            f"{pkl!r} is veelion/nshash's memory store: neardup keeps its own in {snap!r} and never loads "
            "pickles (its keys are hashes of differently split sentences, so its ids cannot be reused). "
            f"Re-run your documents to rebuild the groups (NSHash(name={name!r}) then get_similar_many), "
            f"after moving {pkl!r} aside, or pass another name"
        )


class NSHash:
    """Assign ``similar_id``s to documents by their n longest sentences (the seed's API).

    ``hashdb``: ``"memory"`` (seed-compatible: kept in memory, saved to ``{name}.hashdb.snap`` on
    close and at exit), ``"leveldb"`` (the directory ``{name}.hashdb``), a store URL
    (``"memory://"`` nothing saved, ``"file:///p/snap"``, ``"leveldb:///p/db"``,
    ``"redis://host:6379/0?prefix=job"``) or an open store (left open by ``close``).

    >>> nsh = NSHash(name="demo", hashfunc="md5", hashdb="memory://")
    >>> nsh.get_similar("只有一句短话。")
    1
    >>> nsh.get_similar_many(["只有一句短话。", "另一句。"])
    [1, 2]
    """

    def __init__(
        self,
        name: str = "test",
        hashfunc: str = "md5",
        hashdb: str | KeyValueStore = "memory",
        n: int = DEFAULT_N,
        min_sentence_chars: int = DEFAULT_MIN_SENTENCE_CHARS,
        *,
        batch_size: int = 2000,
    ) -> None:
        _check_args(n, min_sentence_chars)
        if not isinstance(name, str) or not name:
            raise ConfigError(f"name must be a non-empty string (the seed's file name stem), got {name!r}")
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise ConfigError(f"batch_size must be a positive int, got {batch_size!r}")
        self.name = name
        self.hashfunc = hashfunc
        self.n = n
        self.min_sentence_chars = min_sentence_chars
        self.batch_size = batch_size
        self._keyer = _keyer(n, hashfunc, min_sentence_chars)
        self._owned = True
        if isinstance(hashdb, str) and hashdb == "memory":
            from neardup.stores.memory import MemoryStore

            _refuse_upstream_pickle(name)
            self.store: KeyValueStore = MemoryStore(f"{name}.hashdb.snap")
        elif isinstance(hashdb, str) and hashdb == "leveldb":
            from neardup.stores.leveldb import LevelDBStore

            self.store = LevelDBStore(f"{name}.hashdb")
        elif isinstance(hashdb, str) and "://" in hashdb:
            self.store = open_store(hashdb)
        elif isinstance(hashdb, KeyValueStore):
            self.store = hashdb
            self._owned = False
        else:
            raise ConfigError(
                f"hashdb must be 'memory', 'leveldb', a store URL (memory://, file:///path, leveldb:///path, "
                f"redis://host:port/db?prefix=p) or a store object, got {hashdb!r}"
            )
        self._assign: Callable[[list[list[Key]]], list[int]] = getattr(
            self.store, "_assign_prepared", self.store.assign_many
        )
        try:
            self._check_meta()
        except BaseException:
            self.close()
            raise

    def __getstate__(self) -> dict[str, Any]:
        """Pickle the settings and the store (a Redis store drops its client and reconnects), so an
        NSHash can be shipped to worker processes or Spark executors."""
        state = self.__dict__.copy()
        del state["_keyer"], state["_assign"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._keyer = _keyer(self.n, self.hashfunc, self.min_sentence_chars)
        self._assign = getattr(self.store, "_assign_prepared", self.store.assign_many)

    def settings(self) -> dict[str, Any]:
        """What decides the keys; stored in the store and checked when it is reopened."""
        return {
            "algorithm": "nshash",
            "keys_version": KEYS_VERSION,
            "hashfunc": self.hashfunc,
            "n": self.n,
            "min_sentence_chars": self.min_sentence_chars,
        }

    def _check_meta(self) -> None:
        mine = self.settings()
        raw = self.store.get_meta("nshash")
        if raw is None:
            self.store.set_meta("nshash", json.dumps(mine, sort_keys=True))
            return
        theirs = json.loads(raw)
        if theirs != mine:
            diff = ", ".join(
                f"{k}={theirs.get(k)!r} (you asked {mine.get(k)!r})"
                for k in sorted(set(mine) | set(theirs))
                if theirs.get(k) != mine.get(k)
            )
            raise ConfigError(
                f"store {self.store.url!r} was built with other nshash settings: {diff}; "
                "use the same settings or another store/prefix"
            )

    def get_nshash(self, text: str | bytes, n: int | None = None) -> list[int]:
        """The document's keys: the hashes of its ``n`` longest sentences (default: this NSHash's n).

        >>> nsh = NSHash(hashdb="memory://", min_sentence_chars=0)
        >>> len(nsh.get_nshash("第一句话。第二句话要长一些。第三句。", 2))
        2
        """
        if n is None or n == self.n:
            keyer = self._keyer
        else:
            _check_args(n, self.min_sentence_chars)
            keyer = _keyer(n, self.hashfunc, self.min_sentence_chars)
        return list(dict.fromkeys(keyer.keys_many([text])[0]))  # type: ignore[arg-type]

    def get_similar(self, text: str | bytes) -> int:
        """The document's similar_id: an existing group's if it shares a sentence hash, else a new id."""
        return self._assign([self._keyer.keys_one(text)])[0]

    def get_similar_many(self, texts: Iterable[str | bytes]) -> list[int]:
        """``get_similar`` of each text, in order, batched (one store round trip per ``batch_size``)."""
        keys_many, out = self._keyer.keys_many, []
        batch: list[object] = []
        for t in texts:
            batch.append(t)
            if len(batch) >= self.batch_size:
                out.extend(self._assign(keys_many(batch)))
                batch = []
        if batch:
            out.extend(self._assign(keys_many(batch)))
        return out

    def assign_keys(self, keys: Sequence[Sequence[Key]]) -> list[int]:
        """Group ids for precomputed key lists (e.g. ``sentence_hashes`` computed on Spark executors)."""
        return self._assign(prepare_groups(keys))

    def resolve(self, ids: Sequence[int]) -> list[int]:
        """The current id of each similar_id handed out earlier (groups may have merged since)."""
        return self.store.resolve(ids)

    def stats(self) -> dict[str, Any]:
        return {**self.store.stats(), **self.settings()}

    def flush(self) -> None:
        self.store.flush()

    def close(self) -> None:
        """Save and close the store (unless it was passed in open)."""
        if self._owned:
            self.store.close()

    def __enter__(self) -> NSHash:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"NSHash(hashfunc={self.hashfunc!r}, n={self.n}, store={self.store.url!r})"
